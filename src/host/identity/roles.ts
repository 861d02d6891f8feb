import type { Knex } from 'knex'
import { BadRequest, NotFound } from '../../sdk/index.js'
import { RoleIsBuiltIn, RoleNameTaken } from '../errors.js'
import { PG_NUMERIC_OUT_OF_RANGE, PG_UNIQUE_VIOLATION, isPgError } from '../database/errors.js'

export interface Role {
  readonly id: number
  readonly name: string
  readonly permissions: readonly string[]
  readonly builtin: boolean
}

export interface RoleInput {
  readonly name: string
  readonly permissions: readonly string[]
}

export const ADMIN_ROLE_ID = 1

export function rolesRepository (db: Knex) {
  const translate = (error: unknown): never => {
    if (isPgError(error, PG_UNIQUE_VIOLATION)) throw new RoleNameTaken()
    if (isPgError(error, PG_NUMERIC_OUT_OF_RANGE)) throw new BadRequest({ bodyValidationError: 'params/id is out of range' })
    throw error
  }
  return {
    async list (): Promise<Role[]> {
      return db('roles').orderBy('id').select('id', 'name', 'permissions', 'builtin')
    },

    async find (id: number, trx: Knex = db): Promise<Role | undefined> {
      return trx('roles').where({ id }).first<Role | undefined>('id', 'name', 'permissions', 'builtin').catch(translate)
    },

    async create (role: RoleInput, trx: Knex = db): Promise<Role> {
      const [row] = await trx('roles')
        .insert({ name: role.name, permissions: JSON.stringify(unique(role.permissions)) })
        .returning<Role[]>(['id', 'name', 'permissions', 'builtin'])
        .catch(translate)
      return row as Role
    },

    /**
     * `allowed` sees the role as it is (locked until `trx` ends) and may refuse the change
     * by throwing; the built-in role is refused before it is asked.
     */
    async update (id: number, role: RoleInput, trx: Knex = db, allowed: (current: Role) => void = () => {}): Promise<Role> {
      const current = await trx('roles').where({ id }).forUpdate().first<Role | undefined>('id', 'name', 'permissions', 'builtin').catch(translate)
      if (current === undefined) throw new NotFound()
      if (current.builtin) throw new RoleIsBuiltIn()
      allowed(current)
      const [row] = await trx('roles')
        .where({ id })
        .update({ name: role.name, permissions: JSON.stringify(unique(role.permissions)) })
        .returning<Role[]>(['id', 'name', 'permissions', 'builtin'])
        .catch(translate)
      return row as Role
    }
  }
}

function unique (values: readonly string[]): string[] {
  return [...new Set(values)]
}

export type RolesRepository = ReturnType<typeof rolesRepository>
