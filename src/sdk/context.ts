import type { Pictures } from './pictures.js'
import type { Knex } from 'knex'
import type { EventType } from './events.js'

/** The signed-in user, as the host resolved it from the session cookie for this request. */
export interface SessionUser {
  readonly id: number
  readonly username: string
  readonly role: { readonly id: number, readonly name: string }
  /** Permission nodes of the user's role; `*` means every permission (the admin role). */
  readonly permissions: readonly string[]
  /** A bot account: it acts only through API tokens. */
  readonly bot?: boolean
  /** Signed up while the site asks for a confirmed address, and has not followed the mailed link yet: may not post. */
  readonly emailUnconfirmed?: boolean
  /** The request came with an API token (`Authorization: Bearer`), not a session: `permissions` are the token's that the user still holds. */
  readonly viaToken?: boolean
}

/** Who did something, as written into the activity log. */
export interface Actor {
  readonly id: number
  readonly username: string
}

export type Transaction = Knex.Transaction
export type Database = Knex
/** A piece of SQL with its bindings, to place in a statement (`db.raw('… ? …', [part])`). */
export type SqlPart = Knex.Raw

export interface Logger {
  debug (obj: unknown, msg?: string): void
  info (obj: unknown, msg?: string): void
  warn (obj: unknown, msg?: string): void
  error (obj: unknown, msg?: string): void
}

/** A config value: a scalar, or a list of strings (a site's set of reactions, say). */
export type ConfigValue = null | boolean | number | string | readonly string[]

export interface AddonConfig {
  /** Every key of the manifest's `config`, stored values over defaults; read now, not cached. */
  all (): Promise<Record<string, ConfigValue>>
  get<T extends ConfigValue = ConfigValue> (key: string): Promise<T>
  /** Stores values (inside `trx` when given); every host process sees them on its next read. */
  set (values: Record<string, ConfigValue>, trx?: Transaction): Promise<void>
}

export interface ActivityLogEntryInput {
  readonly type: string
  /** Who did it; `null` for what the addon does by itself (a timer's work, say). */
  readonly user: Actor | null
  /**
   * Shown in the feed, and the sentence's `{placeholders}`. A string `variant` picks the
   * sentence `activity-logs.<TYPE>.<variant>` when the addon's strings have it.
   */
  readonly details?: Record<string, unknown>
}

export interface ActivityLog {
  /**
   * Writes an entry (or several, in one statement) owned by this addon; pass the
   * transaction that holds the change it describes.
   */
  write (entries: ActivityLogEntryInput | readonly ActivityLogEntryInput[], trx?: Transaction): Promise<void>
  /**
   * The INSERT of these entries, for a caller that writes them in a statement of its own
   * (`with logged as (?) …`): the entries then land, or not, with that statement's change,
   * and a busy path saves a round trip. Writes nothing when `entries` is empty.
   */
  insertion (entries: readonly ActivityLogEntryInput[]): SqlPart
  /**
   * Takes `fields` out of the details of this addon's entries whose detail `key` is one of
   * `values` (inside `trx`): the copies of a text its author erased, say.
   */
  forget (about: { readonly key: string, readonly values: ReadonlyArray<string | number> }, fields: readonly string[], trx: Transaction): Promise<void>
}

/**
 * Outgoing webhooks: deliveries written in the transaction of the change they tell of,
 * for every active hook subscribed to the event (an event the addon declares in
 * `AddonDefinition.webhookEvents`). The host signs and sends them, retries, and keeps
 * their log.
 */
export interface WebhookOutbox {
  /** Writes `event`'s deliveries, one per item (`data` is what it tells; `subject` what it is about, e.g. `shout:12`), inside `trx`. */
  enqueue (event: string, items: ReadonlyArray<{ readonly data: Record<string, unknown>, readonly subject?: string }>, trx: Transaction): Promise<void>
  /**
   * The INSERT of `event`'s deliveries as a part of a statement of the caller's own
   * (`with hooked as (?) …`): `rows` is a SELECT of a `data` (jsonb) and a `subject` (text)
   * column, which may read the statement's other parts.
   */
  insertion (event: string, rows: SqlPart): SqlPart
  /** Takes `fields` out of the pending deliveries about `subject`, inside the transaction that deletes it (`data.deleted` then says so). */
  redact (subject: string, fields: readonly string[], trx: Transaction): Promise<void>
  /** Sets `fields` in the pending deliveries about `subject` that carry them, inside the transaction that changes it (an edited text): what is sent is current. */
  rewrite (subject: string, fields: Readonly<Record<string, unknown>>, trx: Transaction): Promise<void>
}

export interface Events {
  /**
   * Delivers `payload` to every listener of `event`, in this process. With `trx`, delivery
   * waits until that transaction commits (and is dropped if it rolls back).
   */
  emit<T> (event: EventType<T>, payload: T, trx?: Transaction): void
}

export interface Cluster {
  /**
   * True while this process is sure to hear every notice from the others. While false,
   * nothing kept in memory from the database can be trusted to be current.
   */
  readonly linked: boolean
  /**
   * Tells every host process sharing the database (this one included) about a change.
   * With `trx`, the message is sent by PostgreSQL only when that transaction commits.
   */
  notify (topic: string, payload: string, trx?: Transaction): Promise<void>
  /**
   * `notify` folded into a statement of the caller's, for a change announced by the
   * statement that makes it: one round trip. Returns the SQL expression to select there;
   * `payload` is an SQL text expression of that statement. For a statement run on its
   * own (its own transaction), not inside `transaction` — use `notify` with `trx` there.
   * PostgreSQL sends the message when the statement commits; then pass the text it sent
   * to `delivered`, which is how this process hears it.
   */
  notifying (topic: string, payload: SqlPart): SqlPart
  /** This process hears a message that a committed statement sent with `notifying`. */
  delivered (topic: string, payload: string): void
  /** Runs `handler` for each message on `topic`, from any process. */
  subscribe (topic: string, handler: (payload: string) => void): void
  /** Runs `handler` whenever messages may have been missed (the notification link was down). */
  onResync (handler: () => void): void
}

export interface Localisation {
  /** The string `key` of this addon in `locale` (English fallback, then the key itself). */
  t (locale: string, key: string, values?: Record<string, unknown>): string
}

export interface Permissions {
  /** True when `user`'s role holds this addon's permission `key` (admins hold all). */
  has (user: SessionUser, key: string): boolean
}

export interface MetricCounter {
  inc (by?: number): void
}

export interface Metrics {
  /**
   * A counter the host exports for Prometheus as `shoutbox_addon_<addon>_<name>`
   * (`name`: lower-case letters, digits and `_`, ending in `_total` by convention).
   */
  counter (name: string, help: string): MetricCounter
}

export interface Users {
  /**
   * The account `id` as a signed-in request would see it (name, role, the role's current
   * permissions), so `permissions.has` can be asked about it; undefined when there is
   * no such account. A disabled account is found too (it cannot sign in, but it exists).
   */
  find (id: number, trx?: Transaction): Promise<SessionUser | undefined>
  /**
   * The account `id` as `find` shapes it, when it is active: what a member may be told
   * about. A disabled account is undefined here, exactly as one that does not exist.
   */
  findActive (id: number): Promise<SessionUser | undefined>
  /** The active (not disabled) accounts named `names`, compared case-insensitively, as `find` shapes them: those a shout may mention. */
  findByNames (names: readonly string[]): Promise<SessionUser[]>
  /** The usernames of the accounts `ids` (those that exist; `active`: and are not disabled), by id. */
  namesOf (ids: readonly number[], options?: { readonly active?: boolean }): Promise<Map<number, string>>
  /**
   * Whether an account (a disabled one too) has a username that, in lower case and with
   * each of `fold`'s pairs replaced in turn (`['m', 'rn']`: every `m` by `rn`), equals
   * `folded`: how an addon finds a name that would pass for a member's, by its own idea of
   * look-alike letters. One statement.
   */
  usernameFolded (fold: ReadonlyArray<readonly [string, string]>, folded: string): Promise<boolean>
  /** When the account `id` was made (ms); undefined when there is none: a young account weighs less. */
  createdAt (id: number): Promise<number | undefined>
  /**
   * Runs `handler` on every process when what a user may do may have changed: with their
   * id when their sessions ended (signed out everywhere, disabled, deleted, a new
   * password or another role), with null when any role's permissions may have changed
   * (a role edited, or the notices' link was down). Whatever was decided from a
   * `SessionUser` read earlier must be decided again.
   */
  onAccessChange (handler: (userId: number | null) => void): void
}

/** A notification as an addon writes it: its kind, its own fields, and what it is about (`key`), to remove it with that. */
export interface NewNotification {
  readonly kind: string
  readonly data: Record<string, unknown>
  readonly key?: string
}

/**
 * Notifications to one user (the host's service, shared by every addon): the user reads
 * them at `GET /api/notifications` and hears them on their own stream, on any process.
 */
export interface Notifier {
  /** Tells user `userId` something, once `trx` commits (at once without it). */
  notify (userId: number, notification: NewNotification, trx?: Transaction): Promise<void>
  /** Removes this addon's notifications about any of `keys` (what they were about is gone); their users' streams hear it. */
  remove (keys: readonly string[], trx?: Transaction): Promise<void>
  /**
   * Rewrites this addon's notifications whose data field `about.field` is one of
   * `about.values` (inside `trx`): each of `fields` set, or taken out where it is
   * undefined — the copies of an edited or erased text follow it.
   */
  rewrite (about: { readonly field: string, readonly values: ReadonlyArray<string | number> }, fields: Readonly<Record<string, unknown>>, trx: Transaction): Promise<void>
}

/**
 * What stands for a client's address wherever one must be stored: its HMAC (an IPv6
 * client's /64) under a key of the day, so two requests of one day from one client have
 * the same key, and no key can be turned back into the address.
 */
export interface AddressKeys {
  /** The key that stands for `ip` today. */
  keyOf (ip: string): Promise<string>
  /** The keys that stood for `ip` today and yesterday, today's first: for a rule stored with a key that must hold past midnight (at most a day long). */
  recentKeysOf (ip: string): Promise<string[]>
}

/** What the host gives an addon: its only way to reach the platform. */
export interface AddonContext {
  readonly addonId: string
  readonly db: Database
  /** Runs `work` in one transaction; events emitted with it are delivered after commit. */
  transaction<T> (work: (trx: Transaction) => Promise<T>): Promise<T>
  readonly config: AddonConfig
  readonly activityLog: ActivityLog
  readonly events: Events
  readonly cluster: Cluster
  /** Notifications to users (a mention, say). */
  readonly notifications: Notifier
  readonly webhooks: WebhookOutbox
  readonly i18n: Localisation
  readonly permissions: Permissions
  /** Other people's accounts, read only. */
  readonly users: Users
  /** Client addresses as they may be stored (never in clear). */
  readonly addresses: AddressKeys
  readonly metrics: Metrics
  /** Pictures: uploads decoded, stored and served by the host. */
  readonly pictures: Pictures
  readonly log: Logger
  /**
   * The site's public origin (PUBLIC_URL, e.g. `https://shouts.example.org`) when the
   * operator set it: what an address handed out to another tool is made from. Unset, the
   * request's own origin is the best there is.
   */
  readonly publicUrl?: string | undefined
}

/** Held by the built-in admin role: passes every permission check. */
export const ALL_PERMISSIONS = '*'

/**
 * True when `user`'s role holds the permission node `node` (the admin role's `*` holds
 * every one): for nodes an addon names at run time (a room's), where `permissions.has`
 * takes the keys of the manifest.
 */
export function holdsNode (user: Pick<SessionUser, 'permissions'>, node: string): boolean {
  return user.permissions.includes(ALL_PERMISSIONS) || user.permissions.includes(node)
}
