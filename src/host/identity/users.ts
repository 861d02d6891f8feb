import type { Knex } from 'knex'
import { BadRequest, type Database, type SessionUser, type Transaction } from '../../sdk/index.js'
import { EmailTaken, LastAdmin, UnknownRole, UsernameTaken } from '../errors.js'
import { PG_FOREIGN_KEY_VIOLATION, PG_NUMERIC_OUT_OF_RANGE, PG_UNIQUE_VIOLATION, isPgError, violatedConstraint } from '../database/errors.js'
import { ACCOUNT_CHANGES_LOCK, RETIRED_USERNAMES_TABLE, ROLES_TABLE, USERS_TABLE } from '../database/tables.js'
import { ADMIN_ROLE_ID } from './roles.js'

/** How a retired username is kept: the SHA-256 of its lower case, enough to refuse it again, not to read it. */
export const RETIRED_NAME = "encode(sha256(convert_to(lower(?::text), 'UTF8')), 'hex')"

/** The columns a `SessionUser` is made of (`toSessionUser`), from a query joined with each user's role (`withRole`). */
export const SESSION_USER_COLUMNS = [`${USERS_TABLE}.id`, `${USERS_TABLE}.username`, `${USERS_TABLE}.bot`, `${USERS_TABLE}.email_unconfirmed`, `${ROLES_TABLE}.id as role_id`, `${ROLES_TABLE}.name as role_name`, `${ROLES_TABLE}.permissions`] as const

/** A row of SESSION_USER_COLUMNS. */
export interface SessionUserRow {
  readonly id: number
  readonly username: string
  readonly bot: boolean
  readonly email_unconfirmed: boolean
  readonly role_id: number
  readonly role_name: string
  readonly permissions: string[]
}

/** `query`, over `users` or a table joined to it, joined with each user's role: what a signed-in user is read from. */
export const withRole = <Q extends Knex.QueryBuilder>(query: Q): Q => query.join(ROLES_TABLE, `${ROLES_TABLE}.id`, `${USERS_TABLE}.role_id`) as Q

/** A user as every access check sees them: their role and its permissions; `bot` only for a bot account. */
export const toSessionUser = (row: SessionUserRow): SessionUser => ({
  id: row.id, username: row.username, role: { id: row.role_id, name: row.role_name }, permissions: row.permissions, ...(row.bot ? { bot: true } : {}), ...(row.email_unconfirmed ? { emailUnconfirmed: true } : {})
})

export interface User {
  readonly id: number
  readonly username: string
  readonly email: string
  readonly roleId: number
  readonly disabled: boolean
  /** A bot account: it cannot sign in with a password, only act through API tokens. */
  readonly bot: boolean
  readonly createdAt: number
}

export interface UserWithHash extends User {
  readonly passwordHash: string
}

export interface NewUser {
  readonly username: string
  readonly email: string
  readonly passwordHash: string
  readonly roleId: number
  readonly bot?: boolean
  /** Signed up while the site asks for a confirmed address: may not post until the mailed link is followed. */
  readonly emailUnconfirmed?: boolean
}

/** What an administrator may change about an account. */
export interface UserChange {
  readonly roleId?: number
  readonly disabled?: boolean
  readonly passwordHash?: string
}

interface Row { id: number, username: string, email: string, role_id: number, disabled: boolean, bot: boolean, created_at: number, password_hash: string }

const toUser = (row: Row): UserWithHash => ({
  id: row.id,
  username: row.username,
  email: row.email,
  roleId: row.role_id,
  disabled: row.disabled,
  bot: row.bot,
  createdAt: row.created_at,
  passwordHash: row.password_hash
})

export const withoutHash = ({ passwordHash: _, ...user }: UserWithHash): User => user

/** A path id past int4 reaches the query as a number PostgreSQL cannot compare: a bad request, not a 500. */
const outOfRange = (error: unknown): never => {
  if (isPgError(error, PG_NUMERIC_OUT_OF_RANGE)) throw new BadRequest({ bodyValidationError: 'params/id is out of range' })
  throw error
}

/**
 * Inserts the account in `trx`, then reads the retired names: an insert that waited on
 * the name's unique index for a deletion of that name to commit sees the deletion's
 * retired name only now (a check before the insert would have missed it), and the
 * transaction ends without the account.
 */
async function insertUser (user: NewUser, trx: Database): Promise<User> {
  let row: Row | undefined
  try {
    [row] = await trx(USERS_TABLE).insert({
      username: user.username,
      email: user.email,
      password_hash: user.passwordHash,
      role_id: user.roleId,
      bot: user.bot === true,
      email_unconfirmed: user.emailUnconfirmed === true,
      created_at: Date.now()
    }).returning<Row[]>('*')
  } catch (error) {
    if (isPgError(error, PG_UNIQUE_VIOLATION)) {
      throw violatedConstraint(error) === 'users_email_unique' ? new EmailTaken() : new UsernameTaken()
    }
    if (isPgError(error, PG_FOREIGN_KEY_VIOLATION)) throw new UnknownRole()
    throw error
  }
  if (await trx(RETIRED_USERNAMES_TABLE).whereRaw(`username = ${RETIRED_NAME}`, [user.username]).first() !== undefined) throw new UsernameTaken()
  return withoutHash(toUser(row as Row))
}

export function usersRepository (db: Database) {
  return {
    /** A new account; USERNAME_TAKEN when the name is someone's, or was (see `delete`). */
    async create (user: NewUser, trx: Database = db): Promise<User> {
      return trx.isTransaction === true ? insertUser(user, trx) : trx.transaction(inner => insertUser(user, inner))
    },

    /**
     * The account a sign-in with this login may open: by username or e-mail address,
     * case-insensitively. A disabled account is not found, so signing in to it is
     * answered exactly like an unknown user (and costs the same hash).
     */
    async findByLogin (login: string): Promise<UserWithHash | undefined> {
      const row = await db(USERS_TABLE)
        .where(q => q.whereRaw('lower(username) = lower(?)', [login]).orWhereRaw('lower(email) = lower(?)', [login]))
        .andWhere('disabled', false)
        .andWhere('bot', false)
        .first<Row | undefined>()
      return row === undefined ? undefined : toUser(row)
    },

    async find (id: number, trx: Database = db): Promise<UserWithHash | undefined> {
      const row = await trx(USERS_TABLE).where({ id }).first<Row | undefined>().catch(outOfRange)
      return row === undefined ? undefined : toUser(row)
    },

    /**
     * The account `id` with its role and the role's permissions, shaped as a session resolves a user (see `Sessions.resolve`);
     * `active`: undefined for a disabled account too.
     */
    async sessionUser (id: number, trx: Database = db, { active = false } = {}): Promise<SessionUser | undefined> {
      const query = withRole(trx(USERS_TABLE)).where(`${USERS_TABLE}.id`, id)
      if (active) query.andWhere(`${USERS_TABLE}.disabled`, false)
      const row = await query.first<SessionUserRow | undefined>(...SESSION_USER_COLUMNS).catch(outOfRange)
      return row === undefined ? undefined : toSessionUser(row)
    },

    /** The usernames of the accounts `ids`, by id (those that exist; `active`: and are not disabled). */
    async namesOf (ids: readonly number[], { active = false } = {}): Promise<Map<number, string>> {
      if (ids.length === 0) return new Map()
      const query = db(USERS_TABLE).whereIn('id', [...ids])
      if (active) query.andWhere('disabled', false)
      const rows: Array<{ id: number, username: string }> = await query.select('id', 'username')
      return new Map(rows.map(row => [row.id, row.username]))
    },

    /** The active accounts named `names` (compared case-insensitively), each as `sessionUser` shapes it. */
    async activeSessionUsers (names: readonly string[]): Promise<SessionUser[]> {
      if (names.length === 0) return []
      const rows = await withRole(db(USERS_TABLE))
        .whereRaw(`lower(${USERS_TABLE}.username) = any(?)`, [names.map(name => name.toLowerCase())])
        .andWhere(`${USERS_TABLE}.disabled`, false)
        .select<SessionUserRow[]>(...SESSION_USER_COLUMNS)
      return rows.map(toSessionUser)
    },

    /** Whether an account (disabled too) has a username that, lower-cased and with each pair of `fold` replaced in turn, is `folded` (see `Users.usernameFolded`). */
    async usernameFolded (fold: ReadonlyArray<readonly [string, string]>, folded: string): Promise<boolean> {
      const expression = fold.reduce((sql, [from, to]) => db.raw('replace(?, ?, ?)', [sql, from, to]), db.raw('lower(username)'))
      const row = await db(USERS_TABLE).whereRaw('? = ?', [expression, folded]).first('id')
      return row !== undefined
    },

    /** Those of `names` that are the usernames of active accounts (compared case-insensitively), as spelled in the database. */
    async existing (names: readonly string[]): Promise<string[]> {
      if (names.length === 0) return []
      const rows: Array<{ username: string }> = await db(USERS_TABLE)
        .whereRaw('lower(username) = any(?)', [names.map(name => name.toLowerCase())])
        .andWhere('disabled', false)
        .orderBy('username')
        .select('username')
      return rows.map(row => row.username)
    },

    /** Active (not disabled) accounts of people, whatever their role: bots are not counted. */
    async countPeople (): Promise<number> {
      const [row] = await db(USERS_TABLE).where({ disabled: false, bot: false }).count<Array<{ count: number | string }>>({ count: '*' })
      return Number(row?.count ?? 0)
    },

    /** Active (not disabled) accounts holding the role `roleId`. */
    async countWithRole (roleId: number): Promise<number> {
      const [row] = await db(USERS_TABLE).where({ role_id: roleId, disabled: false }).count<Array<{ count: number | string }>>({ count: '*' })
      return Number(row?.count ?? 0)
    },

    async list (): Promise<User[]> {
      const rows: Row[] = await db(USERS_TABLE).orderBy('id')
      return rows.map(row => withoutHash(toUser(row)))
    },

    /**
     * Puts `next` in the place of the password hash `previous` (the same password, hashed
     * anew): nothing happens if the password was changed meanwhile.
     */
    async rehash (id: number, previous: string, next: string): Promise<void> {
      await db(USERS_TABLE).where({ id, password_hash: previous }).update({ password_hash: next })
    },

    /** The user as changed; undefined when there is no such user. */
    async update (id: number, change: UserChange, trx: Database = db): Promise<User | undefined> {
      const columns = {
        ...(change.roleId === undefined ? {} : { role_id: change.roleId }),
        ...(change.disabled === undefined ? {} : { disabled: change.disabled }),
        ...(change.passwordHash === undefined ? {} : { password_hash: change.passwordHash })
      }
      try {
        const [row] = await trx(USERS_TABLE).where({ id }).update(columns).returning<Row[]>('*')
        return row === undefined ? undefined : withoutHash(toUser(row))
      } catch (error) {
        if (isPgError(error, PG_FOREIGN_KEY_VIOLATION)) throw new UnknownRole()
        throw error
      }
    },

    /**
     * The account goes (its sessions with it: the foreign key cascades); its username is
     * retired, never to be taken again — what was written under it must not seem to be a
     * newcomer's — and kept only as a hash (RETIRED_NAME), so the name itself is gone.
     */
    async delete (id: number, trx: Transaction): Promise<void> {
      const [row] = await trx(USERS_TABLE).where({ id }).delete().returning<Array<{ username: string }>>('username')
      if (row === undefined) return
      await trx(RETIRED_USERNAMES_TABLE).insert({ username: trx.raw(RETIRED_NAME, [row.username]), retired_at: Date.now() }).onConflict('username').ignore()
    },

    /**
     * The account's address is confirmed (a link mailed to it was followed): it may post.
     * True when it was waiting for that; the caller then announces the change
     * (`Sessions.identityChanged`), as what a session may do changed.
     */
    async confirmEmail (id: number, trx: Transaction): Promise<boolean> {
      return (await trx(USERS_TABLE).where({ id, email_unconfirmed: true }).update({ email_unconfirmed: false })) > 0
    },

    /** No account waits for its link any more (the site stopped asking): how many did. */
    async confirmEveryEmail (trx: Transaction): Promise<number> {
      return await trx(USERS_TABLE).where({ email_unconfirmed: true }).update({ email_unconfirmed: false })
    },

    /** Holds the account's row until `trx` ends: what is counted per account (its tokens) stays true until it is written. */
    async lock (id: number, trx: Transaction): Promise<void> {
      await trx(USERS_TABLE).where({ id }).forUpdate().select('id')
    },

    /**
     * Holds every other account change (on any process) until `trx` ends. Without it two
     * administrators disabling each other at once would each still see the other as
     * active, and the platform would be left with none. One lock, always taken first,
     * cannot deadlock.
     */
    async lockAccountChanges (trx: Transaction): Promise<void> {
      await trx.raw('select pg_advisory_xact_lock(?)', [ACCOUNT_CHANGES_LOCK])
    },

    /**
     * Refuses (409 LAST_ADMIN) to let `target` stop being an active administrator when no
     * other is left. Call with the account changes locked: the count cannot change under us.
     */
    async refuseLastAdmin (target: Pick<User, 'id' | 'roleId' | 'disabled'>, trx: Transaction): Promise<void> {
      if (!isActiveAdmin(target)) return
      const another = await trx(USERS_TABLE).where({ role_id: ADMIN_ROLE_ID, disabled: false }).whereNot({ id: target.id }).first('id')
      if (another === undefined) throw new LastAdmin()
    }
  }
}

/** An administrator who may sign in: of those, one must always remain. */
export const isActiveAdmin = (user: Pick<User, 'roleId' | 'disabled'>): boolean => user.roleId === ADMIN_ROLE_ID && !user.disabled

export type UsersRepository = ReturnType<typeof usersRepository>
