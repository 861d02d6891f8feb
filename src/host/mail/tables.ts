/** Mails waiting to be sent, and those sent or given up (the panel's log). */
export const MAIL_OUTBOX_TABLE = 'mail_outbox'
/** Password resets, by the SHA-256 of their token. */
export const PASSWORD_RESETS_TABLE = 'password_resets'
/** E-mail changes waiting for the link mailed to the new address. */
export const EMAIL_CHANGES_TABLE = 'email_changes'
/** Links mailed at sign-up (or asked for again) to confirm an address, by the SHA-256 of their token. */
export const EMAIL_VERIFICATIONS_TABLE = 'email_verifications'
