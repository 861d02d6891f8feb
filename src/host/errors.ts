import { BadRequest, Conflict, NoPermission } from '../sdk/index.js'

/** The host's own error classes beyond the SDK catalogue; codes derive from the names. */
export class UsernameTaken extends Conflict {}
/** A username an addon refuses at sign-up (the shoutbox: a watched word that blocks) → USERNAME_NOT_ALLOWED, 400. */
export class UsernameNotAllowed extends BadRequest {}
export class EmailTaken extends Conflict {}
export class RoleNameTaken extends Conflict {}
export class UnknownRole extends BadRequest {}
export class RoleIsBuiltIn extends NoPermission {}
/** Finishing setup needs the one-time setup token (printed in the log at start, or SETUP_TOKEN). */
export class InvalidSetupToken extends NoPermission {}
/** The change would leave the platform without an active administrator. */
export class LastAdmin extends Conflict {}
/** `POST /api/auth/signup` while the site does not let visitors sign up. */
export class SignUpClosed extends NoPermission {}
/** A role that would give a stranger the panel cannot be the role sign-ups get. */
export class DefaultRoleNotAllowed extends BadRequest {}
