import { createHash, randomBytes } from 'node:crypto'
import { Type, type Static } from '@sinclair/typebox'
import { checker, type Database, type ReplyControl, type SessionUser, type Transaction } from '../../sdk/index.js'
import { SESSIONS_TABLE, USERS_TABLE } from '../database/tables.js'
import type { Cluster } from '../services/cluster.js'
import { SESSION_USER_COLUMNS, toSessionUser, withRole, type SessionUserRow } from './users.js'

/** The session cookie's name on a site not known to be served over https. */
export const SESSION_COOKIE_NAME = 'shoutbox_session'

/** How the session cookie is named and sent; `Identity.sessionCookie` is the one every reader uses. */
export interface SessionCookie {
  readonly name: string
  /** Always `Secure`; otherwise `Secure` only when the request came over https. */
  readonly alwaysSecure: boolean
}

/** Tells the browser to forget the session cookie (with `Secure` where the cookie needs it to be replaced). */
export function clearSessionCookie (reply: ReplyControl, cookie: SessionCookie): void {
  reply.clearCookie(cookie.name, cookie.alwaysSecure ? { secure: true } : undefined)
}

/**
 * The session cookie for a site whose public origin is `publicUrl` (PUBLIC_URL). Over
 * https it is `__Host-shoutbox_session`: browsers accept that name only with `Secure`,
 * path `/` and no `Domain`, so neither a plain-http page nor a sibling subdomain can
 * plant or overwrite it. It is Secure even when the request reached us as plain http
 * from a TLS proxy we were not told to trust.
 */
export function sessionCookieFor (publicUrl: string | undefined): SessionCookie {
  return publicUrl?.startsWith('https:') === true
    ? { name: `__Host-${SESSION_COOKIE_NAME}`, alwaysSecure: true }
    : { name: SESSION_COOKIE_NAME, alwaysSecure: false }
}
export const SESSION_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000

/** Announced when one session (or API token) ends; carries the hash of its secret. */
export const SIGNED_OUT = 'host:signed-out'
/** Announced when a user's sessions end; carries `{userId, keep}`. */
export const USER_SIGNED_OUT = 'host:user-signed-out'
/** Announced when roles or users changed. */
export const IDENTITY_CHANGED = 'host:identity-changed'
/** Announced when one account changed in what its sessions may do, its sessions kept (its address confirmed); carries the user's id. */
export const ACCOUNT_CHANGED = 'host:account-changed'
const CACHE_SIZE = 10_000

/** The notice that a user's sessions ended: all of them but the one whose hash is `keep`. */
const UserSignedOutSchema = Type.Object({
  userId: Type.Integer({ minimum: 1 }),
  /** The hash of the one session kept (a password change keeps the changer's), or null. */
  keep: Type.Union([Type.String(), Type.Null()])
})
type UserSignedOut = Static<typeof UserSignedOutSchema>

/** What USER_SIGNED_OUT carries: every process's sessions, tokens and addons hear it. */
export const isUserSignedOut = checker(UserSignedOutSchema)

/** Sessions that ended: one, by the hash of its token, or a user's all but `keep`. */
export type SessionsEnded = { readonly hash: string } | UserSignedOut

/**
 * Sessions live in the database, so every host process shares them. The cookie carries
 * a 256-bit random token; the database keeps only its SHA-256, so a leaked database
 * backup holds no usable session.
 *
 * Each process remembers the sessions it has seen, so a signed-in request costs no
 * query. A sign-out, the end of a user's sessions, or any change to roles is announced
 * on the cluster and every process forgets at once; while the notification link is down
 * nothing is remembered. A disabled account's sessions do not resolve even if a row
 * were left behind.
 */
export class Sessions {
  private lastPurge = 0
  private readonly known = new Map<string, { user: SessionUser, expiresAt: number }>()
  /**
   * Raised by every forgetting: a resolve that was already reading from the database when
   * a session ended sees it changed and does not remember what it read.
   */
  private generation = 0
  private readonly table: SessionsRepository
  private readonly endListeners = new Set<(ended: SessionsEnded) => void>()

  constructor (db: Database, private readonly cluster: Cluster, private readonly now: () => number = Date.now) {
    this.table = sessionsRepository(db)
    cluster.subscribe(SIGNED_OUT, hash => {
      this.generation++
      this.known.delete(hash)
      this.tellEnded({ hash })
    })
    cluster.subscribeJson(USER_SIGNED_OUT, isUserSignedOut, notice => {
      this.forgetUser(notice)
      this.tellEnded(notice)
    })
    cluster.subscribe(IDENTITY_CHANGED, () => this.forgetAll())
    cluster.subscribe(ACCOUNT_CHANGED, id => this.forgetUser({ userId: Number(id), keep: null }))
    cluster.onResync(() => this.forgetAll())
  }

  /** Roles or users changed (inside `trx`): every process drops what it remembers on commit. */
  async identityChanged (trx: Transaction): Promise<void> {
    await this.cluster.notify(IDENTITY_CHANGED, '', trx)
  }

  /**
   * One account changed (inside `trx`) in a way its sessions and tokens carry, none of
   * them ended: every process reads them again on their next request. Its streams stay open.
   */
  async accountChanged (userId: number, trx: Transaction): Promise<void> {
    await this.cluster.notify(ACCOUNT_CHANGED, String(userId), trx)
  }

  /**
   * Ends every session of `userId` (inside `trx`), except the one whose token is `keep`:
   * their rows go now, and on commit every process forgets them. Used when an account is
   * disabled or deleted, gets a new password or another role.
   */
  async endSessionsOf (userId: number, keep: string | undefined, trx: Transaction): Promise<void> {
    const notice: UserSignedOut = { userId, keep: keep === undefined ? null : hashToken(keep) }
    await this.table.deleteOfUser(userId, notice.keep, trx)
    await this.cluster.notifyJson(USER_SIGNED_OUT, notice, trx)
  }

  /**
   * Runs `listener` when sessions end on any process: one (`{hash}`, a sign-out) or a
   * user's all but `keep` (`{userId, keep}`). What was opened with them (an event
   * stream) ends too.
   */
  onEnd (listener: (ended: SessionsEnded) => void): void {
    this.endListeners.add(listener)
  }

  private tellEnded (ended: SessionsEnded): void {
    for (const listener of this.endListeners) listener(ended)
  }

  private forgetAll (): void {
    this.generation++
    this.known.clear()
  }

  private forgetUser ({ userId, keep }: UserSignedOut): void {
    this.generation++
    for (const [hash, entry] of this.known) if (entry.user.id === userId && hash !== keep) this.known.delete(hash)
  }

  async create (userId: number): Promise<{ token: string, expiresAt: number }> {
    const token = randomBytes(32).toString('base64url')
    const createdAt = this.now()
    const expiresAt = createdAt + SESSION_LIFETIME_MS
    await this.table.insert({ token_hash: hashToken(token), user_id: userId, created_at: createdAt, expires_at: expiresAt })
    await this.purgeExpired()
    return { token, expiresAt }
  }

  /** The session's user with the role's current permissions, or null for an unknown or expired token. */
  async resolve (token: string): Promise<SessionUser | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null
    const hash = hashToken(token)
    const remembered = this.cluster.isLinked ? this.known.get(hash) : undefined
    if (remembered !== undefined) {
      if (remembered.expiresAt > this.now()) return remembered.user
      await this.destroy(token)
      return null
    }
    const generation = this.generation
    const row = await this.table.findWithUser(hash)
    if (row === undefined) return null
    if (row.expires_at <= this.now()) {
      await this.destroy(token)
      return null
    }
    const user = toSessionUser(row)
    if (this.cluster.isLinked && generation === this.generation) {
      if (this.known.size >= CACHE_SIZE) this.known.delete(this.known.keys().next().value!)
      this.known.set(hash, { user, expiresAt: row.expires_at })
    }
    return user
  }

  async destroy (token: string): Promise<void> {
    const hash = hashToken(token)
    await this.table.delete(hash)
    await this.cluster.notify(SIGNED_OUT, hash)
  }

  /** Deletes expired sessions, at most once a minute. */
  async purgeExpired (): Promise<void> {
    const now = this.now()
    if (now - this.lastPurge < 60_000) return
    this.lastPurge = now
    await this.table.deleteExpired(now)
  }
}

export function hashToken (token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/** `sessions`: a session row is read together with its user and role, in one query, on every resolve. */
function sessionsRepository (db: Database) {
  return {
    async insert (row: { token_hash: string, user_id: number, created_at: number, expires_at: number }): Promise<void> {
      await db(SESSIONS_TABLE).insert(row)
    },

    async findWithUser (tokenHash: string) {
      return withRole(db(SESSIONS_TABLE).join(USERS_TABLE, `${USERS_TABLE}.id`, `${SESSIONS_TABLE}.user_id`))
        .where(`${SESSIONS_TABLE}.token_hash`, tokenHash)
        .andWhere(`${USERS_TABLE}.disabled`, false)
        .first<(SessionUserRow & { expires_at: number }) | undefined>(...SESSION_USER_COLUMNS, `${SESSIONS_TABLE}.expires_at`)
    },

    async delete (tokenHash: string): Promise<void> {
      await db(SESSIONS_TABLE).where({ token_hash: tokenHash }).delete()
    },

    async deleteOfUser (userId: number, keepHash: string | null, trx: Transaction): Promise<void> {
      const query = trx(SESSIONS_TABLE).where({ user_id: userId })
      if (keepHash !== null) void query.whereNot({ token_hash: keepHash })
      await query.delete()
    },

    async deleteExpired (now: number): Promise<void> {
      await db(SESSIONS_TABLE).where('expires_at', '<=', now).delete()
    }
  }
}

type SessionsRepository = ReturnType<typeof sessionsRepository>
