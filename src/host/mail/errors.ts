import { BadRequest, ServiceUnavailable } from '../../sdk/index.js'

/** The site has no way to send mail (no SMTP_URL, not `--dev`): what needs a mail cannot be done → MAIL_UNAVAILABLE, 503. */
export class MailUnavailable extends ServiceUnavailable {}
/** A reset token that is unknown, used, replaced or over 30 minutes old: all alike → INVALID_RESET_TOKEN, 400. */
export class InvalidResetToken extends BadRequest {}
/** An e-mail change link that is unknown, used, replaced or over a day old → INVALID_EMAIL_CHANGE_TOKEN, 400. */
export class InvalidEmailChangeToken extends BadRequest {}
/** A verification link that is unknown, used, replaced or over a week old → INVALID_VERIFICATION_TOKEN, 400. */
export class InvalidVerificationToken extends BadRequest {}
/** An unsubscribe link whose signature is not the site's for that account → INVALID_UNSUBSCRIBE_LINK, 400. */
export class InvalidUnsubscribeLink extends BadRequest {}
