import { randomBytes } from 'node:crypto'
import { ALL_PERMISSIONS, type Database, holdsNode, type SessionUser, type Transaction } from '../../sdk/index.js'
import { API_TOKENS_TABLE, USERS_TABLE } from '../database/tables.js'
import type { Cluster } from '../services/cluster.js'
import { ACCOUNT_CHANGED, hashToken, IDENTITY_CHANGED, isUserSignedOut, SIGNED_OUT, USER_SIGNED_OUT } from './sessions.js'
import { SESSION_USER_COLUMNS, toSessionUser, withRole, type SessionUserRow } from './users.js'

/** What a token's owner sees of it: never its secret, which is shown once, on creation. */
export interface ApiToken {
  readonly id: number
  readonly name: string
  readonly permissions: readonly string[]
  readonly createdAt: number
  readonly expiresAt: number
  readonly lastUsedAt: number | null
}

export const TOKEN_PREFIX = 'sbx_'
const SECRET_SHAPE = /^sbx_[A-Za-z0-9_-]{43}$/
const DAY_MS = 24 * 60 * 60 * 1000
/** A process writes a token's `lastUsedAt` at most this often: the list shows the minute, not every call. */
const LAST_USE_EVERY_MS = 60_000
const CACHE_SIZE = 10_000
/** How many tokens one account may hold at once: enough for every bot and script, too few to fill a table. */
export const MAX_TOKENS_PER_USER = 50

interface Row {
  id: number
  user_id: number
  name: string
  permissions: string[]
  created_at: number | string
  expires_at: number | string
  last_used_at: number | string | null
}

const toToken = (row: Row): ApiToken => ({
  id: row.id,
  name: row.name,
  permissions: row.permissions,
  createdAt: Number(row.created_at),
  expiresAt: Number(row.expires_at),
  lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at)
})

/** The secret of an `Authorization: Bearer <secret>` header, if that is what it holds. */
export function bearerSecret (authorization: string | undefined): string | undefined {
  if (authorization === undefined || !/^bearer /i.test(authorization)) return undefined
  return authorization.slice(7).trim()
}

/**
 * The permissions a token acts with: those it was given that its user still holds. A
 * token given `*` acts with everything only while its user holds `*` (the admin role).
 */
export function tokenPermissions (given: readonly string[], held: readonly string[]): string[] {
  return given.filter(node => node === ALL_PERMISSIONS ? held.includes(ALL_PERMISSIONS) : holdsNode({ permissions: held }, node))
}

/**
 * API tokens: `Authorization: Bearer sbx_…` acts as the token's user, with the token's
 * permissions that the user still holds. The table keeps the SHA-256 of each secret, as
 * the sessions table does of session tokens, so a leaked backup holds no usable token.
 *
 * Each process remembers the tokens it has resolved. Revoking a token is announced like
 * a sign-out (`host:signed-out` with its hash), so every process forgets it, and what was
 * opened with it (an event stream) ends; a disabled, deleted or re-roled user's
 * sessions-ended notice, and any change of roles, are heard the same way.
 */
export class ApiTokens {
  private readonly known = new Map<string, { user: SessionUser, tokenId: number, expiresAt: number }>()
  private readonly lastUseWritten = new Map<number, number>()
  private generation = 0

  constructor (private readonly db: Database, private readonly cluster: Cluster, private readonly now: () => number = Date.now) {
    cluster.subscribe(SIGNED_OUT, hash => {
      this.generation++
      this.known.delete(hash)
    })
    cluster.subscribeJson(USER_SIGNED_OUT, isUserSignedOut, ({ userId }) => {
      this.generation++
      for (const [hash, entry] of this.known) if (entry.user.id === userId) this.known.delete(hash)
    })
    cluster.subscribe(IDENTITY_CHANGED, () => this.forgetAll())
    cluster.subscribe(ACCOUNT_CHANGED, id => {
      this.generation++
      for (const [hash, entry] of this.known) if (entry.user.id === Number(id)) this.known.delete(hash)
    })
    cluster.onResync(() => this.forgetAll())
  }

  private forgetAll (): void {
    this.generation++
    this.known.clear()
  }

  /** Whether `value` has a token's shape (what a wrong guess of another shape never costs a query for). */
  static looksLikeSecret (value: string): boolean {
    return SECRET_SHAPE.test(value)
  }

  /** A new token of `userId`; its secret is in the answer and nowhere else. */
  async create (userId: number, token: { name: string, permissions: readonly string[], expiresInDays: number }, trx: Database = this.db): Promise<{ token: ApiToken, secret: string }> {
    const secret = TOKEN_PREFIX + randomBytes(32).toString('base64url')
    const createdAt = this.now()
    const [row] = await trx(API_TOKENS_TABLE).insert({
      user_id: userId,
      name: token.name,
      secret_hash: hashToken(secret),
      permissions: JSON.stringify([...new Set(token.permissions)]),
      created_at: createdAt,
      expires_at: createdAt + token.expiresInDays * DAY_MS
    }).returning<Row[]>('*')
    return { token: toToken(row!), secret }
  }

  /** How many tokens `userId` holds, expired ones included (they still show in the list until revoked). */
  async countOf (userId: number, trx: Database = this.db): Promise<number> {
    const [row] = await trx(API_TOKENS_TABLE).where({ user_id: userId }).count<Array<{ count: number | string }>>({ count: '*' })
    return Number(row?.count ?? 0)
  }

  /** `userId`'s tokens, the newest first. */
  async listOf (userId: number): Promise<ApiToken[]> {
    const rows: Row[] = await this.db(API_TOKENS_TABLE).where({ user_id: userId }).orderBy('id', 'desc')
    return rows.map(toToken)
  }

  /**
   * Revokes `userId`'s token `id` (inside `trx`); on commit every process forgets it.
   * Undefined when the user has no such token.
   */
  async revoke (userId: number, id: number, trx: Transaction): Promise<ApiToken | undefined> {
    const [row] = await trx(API_TOKENS_TABLE).where({ id, user_id: userId }).delete().returning<Array<Row & { secret_hash: string }>>('*')
    if (row === undefined) return undefined
    await this.cluster.notify(SIGNED_OUT, row.secret_hash, trx)
    return toToken(row)
  }

  /**
   * The user `secret` acts as, with the token's permissions that the user still holds;
   * null for a secret that is unknown, revoked or expired, or whose user is disabled.
   */
  async resolve (secret: string): Promise<SessionUser | null> {
    if (!ApiTokens.looksLikeSecret(secret)) return null
    const remembered = this.remembered(secret)
    if (remembered !== undefined) return remembered
    const hash = hashToken(secret)
    const now = this.now()
    const generation = this.generation
    const row = await withRole(this.db(API_TOKENS_TABLE).join(USERS_TABLE, `${USERS_TABLE}.id`, `${API_TOKENS_TABLE}.user_id`))
      .where(`${API_TOKENS_TABLE}.secret_hash`, hash)
      .andWhere(`${USERS_TABLE}.disabled`, false)
      .first<(SessionUserRow & { token_id: number, token_permissions: string[], expires_at: number | string }) | undefined>(
        ...SESSION_USER_COLUMNS, `${API_TOKENS_TABLE}.id as token_id`, `${API_TOKENS_TABLE}.permissions as token_permissions`, `${API_TOKENS_TABLE}.expires_at`)
    if (row === undefined || Number(row.expires_at) <= now) return null
    // What the token was given that its user still holds.
    const user: SessionUser = { ...toSessionUser(row), permissions: tokenPermissions(row.token_permissions, row.permissions), viaToken: true }
    if (this.cluster.isLinked && generation === this.generation) {
      if (this.known.size >= CACHE_SIZE) this.known.delete(this.known.keys().next().value!)
      this.known.set(hash, { user, tokenId: row.token_id, expiresAt: Number(row.expires_at) })
    }
    this.noteUse(row.token_id, now)
    return user
  }

  /** The user of a token this process remembers and that has not expired, without a query; undefined otherwise. */
  remembered (secret: string): SessionUser | undefined {
    const entry = this.cluster.isLinked ? this.known.get(hashToken(secret)) : undefined
    const now = this.now()
    if (entry === undefined || entry.expiresAt <= now) return undefined
    this.noteUse(entry.tokenId, now)
    return entry.user
  }

  /** Writes the token's last use, at most once a minute per process, never delaying the call. */
  private noteUse (tokenId: number, now: number): void {
    if (now - (this.lastUseWritten.get(tokenId) ?? 0) < LAST_USE_EVERY_MS) return
    this.lastUseWritten.set(tokenId, now)
    if (this.lastUseWritten.size > CACHE_SIZE) this.lastUseWritten.delete(this.lastUseWritten.keys().next().value!)
    this.db(API_TOKENS_TABLE).where({ id: tokenId }).update({ last_used_at: now }).catch(() => {})
  }
}
