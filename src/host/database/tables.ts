/**
 * The host's tables and advisory locks, in one place. Migrations write the names out:
 * they describe the tables as they were made, whatever these say later.
 */
export const USERS_TABLE = 'users'
/** The roles and the permission nodes each gives. */
export const ROLES_TABLE = 'roles'
/** Signed-in sessions, by the hash of their token. */
export const SESSIONS_TABLE = 'sessions'
/** The site's settings and setup's state, a JSON value per key. */
export const SETTINGS_TABLE = 'settings'
/** The activity feed. */
export const ACTIVITY_LOGS_TABLE = 'activity_logs'
/** What the platform tells one user (a mention, say). */
export const NOTIFICATIONS_TABLE = 'notifications'
/** Each addon's configuration, a value per key. */
export const ADDON_CONFIG_TABLE = 'addon_config'
/** Whether each addon is enabled. */
export const ADDON_STATE_TABLE = 'addon_state'
/** Fixed-window counters per key (sign-ups per client address), shared by every process. */
export const ADDRESS_QUOTAS_TABLE = 'address_quotas'
export const API_TOKENS_TABLE = 'api_tokens'
/** Permission nodes once given to the member role by default: never given again. */
export const DEFAULT_GRANTS_TABLE = 'default_grants'
/** The usernames of deleted accounts, lower-cased: nobody takes one again. */
export const RETIRED_USERNAMES_TABLE = 'retired_usernames'
/** The migrations that have run, by owner (the host or an addon). */
export const SCHEMA_MIGRATIONS_TABLE = 'schema_migrations'
/** Sign-in attempts counted per hashed key, for throttling. */
export const SIGN_IN_ATTEMPTS_TABLE = 'sign_in_attempts'
export const USER_PREFERENCES_TABLE = 'user_preferences'
/** Outgoing webhooks. */
export const WEBHOOKS_TABLE = 'webhooks'
/** Outgoing webhooks' outbox: one row per delivery. */
export const WEBHOOK_DELIVERIES_TABLE = 'webhook_deliveries'
/** Pictures uploaded to the site (src/host/pictures/). */
export const UPLOADS_TABLE = 'uploads'

/*
 * The keys of the host's advisory locks: constants no other lock of the platform uses
 * (the addon's are in src/shoutbox/tables.ts).
 */
/** Serialises schema creation and migrations across host processes. */
export const MIGRATION_LOCK = 7_310_001
/** Serialises account changes (on any process), so the last active administrator stays one. */
export const ACCOUNT_CHANGES_LOCK = 7_310_101
