import type { Knex } from 'knex'
import { EmailTaken, UnknownRole, UsernameTaken } from '../errors.js'
import { PG_FOREIGN_KEY_VIOLATION, PG_UNIQUE_VIOLATION, isPgError, violatedConstraint } from '../database/errors.js'

export interface User {
  readonly id: number
  readonly username: string
  readonly email: string
  readonly roleId: number
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
}

interface Row { id: number, username: string, email: string, role_id: number, created_at: number, password_hash: string }

const toUser = (row: Row): UserWithHash => ({
  id: row.id, username: row.username, email: row.email, roleId: row.role_id, createdAt: row.created_at, passwordHash: row.password_hash
})

const withoutHash = ({ passwordHash: _, ...user }: UserWithHash): User => user

export function usersRepository (db: Knex) {
  return {
    async create (user: NewUser, trx: Knex = db): Promise<User> {
      try {
        const [row] = await trx('users').insert({
          username: user.username,
          email: user.email,
          password_hash: user.passwordHash,
          role_id: user.roleId,
          created_at: Date.now()
        }).returning<Row[]>('*')
        return withoutHash(toUser(row as Row))
      } catch (error) {
        if (isPgError(error, PG_UNIQUE_VIOLATION)) {
          throw violatedConstraint(error) === 'users_email_unique' ? new EmailTaken() : new UsernameTaken()
        }
        if (isPgError(error, PG_FOREIGN_KEY_VIOLATION)) throw new UnknownRole()
        throw error
      }
    },

    /** By username or e-mail address, case-insensitively. */
    async findByLogin (login: string): Promise<UserWithHash | undefined> {
      const row = await db('users')
        .whereRaw('lower(username) = lower(?)', [login])
        .orWhereRaw('lower(email) = lower(?)', [login])
        .first<Row | undefined>()
      return row === undefined ? undefined : toUser(row)
    },

    async list (): Promise<User[]> {
      const rows: Row[] = await db('users').orderBy('id')
      return rows.map(row => withoutHash(toUser(row)))
    }
  }
}

export type UsersRepository = ReturnType<typeof usersRepository>
