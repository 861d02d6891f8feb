import { BadRequest, type Database, NotFound, type Transaction } from '../../sdk/index.js'
import { RoleIsBuiltIn, RoleNameTaken } from '../errors.js'
import { PG_NUMERIC_OUT_OF_RANGE, PG_UNIQUE_VIOLATION, isPgError } from '../database/errors.js'
import { DEFAULT_GRANTS_TABLE, ROLES_TABLE } from '../database/tables.js'
import { ALL, PANEL_ACCESS } from './permissions.js'

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

/**
 * Built in: the admin role (every permission, unchangeable) and the member role (the
 * other built-in one, made by the host's migrations). The member role keeps its name and
 * never opens the panel; which member permissions a site grants is the site's choice.
 */
function assertChangeable (id: number, current: Pick<Role, 'name' | 'builtin'>, role: RoleInput): void {
  if (!current.builtin) return
  if (id === ADMIN_ROLE_ID || role.name !== current.name || role.permissions.some(node => node === PANEL_ACCESS || node === ALL)) {
    throw new RoleIsBuiltIn()
  }
}

export function rolesRepository (db: Database) {
  const translate = (error: unknown): never => {
    if (isPgError(error, PG_UNIQUE_VIOLATION)) throw new RoleNameTaken()
    if (isPgError(error, PG_NUMERIC_OUT_OF_RANGE)) throw new BadRequest({ bodyValidationError: 'params/id is out of range' })
    throw error
  }
  return {
    async list (): Promise<Role[]> {
      return db(ROLES_TABLE).orderBy('id').select('id', 'name', 'permissions', 'builtin')
    },

    async find (id: number, trx: Database = db): Promise<Role | undefined> {
      return trx(ROLES_TABLE).where({ id }).first<Role | undefined>('id', 'name', 'permissions', 'builtin').catch(translate)
    },

    /** The built-in member role. */
    async member (trx: Database = db): Promise<Role> {
      const role = await trx(ROLES_TABLE).where({ builtin: true }).whereNot({ id: ADMIN_ROLE_ID }).orderBy('id').first<Role | undefined>('id', 'name', 'permissions', 'builtin')
      if (role === undefined) throw new Error('the built-in member role is missing')
      return role
    },

    /**
     * Adds `nodes` the member role has never been given by default (see `default_grants`)
     * to it; true when the role changed.
     */
    async grantDefaults (nodes: readonly string[], trx: Transaction): Promise<boolean> {
      if (nodes.length === 0) return false
      const fresh: Array<{ node: string }> = await trx(DEFAULT_GRANTS_TABLE)
        .insert(nodes.map(node => ({ node, granted_at: Date.now() })))
        .onConflict('node').ignore()
        .returning('node')
      if (fresh.length === 0) return false
      const member = await trx(ROLES_TABLE).where({ id: (await this.member(trx)).id }).forUpdate().first<Role>('id', 'permissions')
      await trx(ROLES_TABLE).where({ id: member.id })
        .update({ permissions: JSON.stringify(unique([...member.permissions, ...fresh.map(row => row.node)])) })
      return true
    },

    async create (role: RoleInput, trx: Database = db): Promise<Role> {
      const [row] = await trx(ROLES_TABLE)
        .insert({ name: role.name, permissions: JSON.stringify(unique(role.permissions)) })
        .returning<Role[]>(['id', 'name', 'permissions', 'builtin'])
        .catch(translate)
      return row as Role
    },

    /**
     * `allowed` sees the role as it is (locked until `trx` ends) and may refuse the change
     * by throwing; a built-in role is refused before it is asked, unless the change keeps
     * it what it must be (see assertChangeable).
     */
    async update (id: number, role: RoleInput, allowed: (current: Role) => void, trx: Transaction): Promise<Role> {
      const current = await trx(ROLES_TABLE).where({ id }).forUpdate().first<Role | undefined>('id', 'name', 'permissions', 'builtin').catch(translate)
      if (current === undefined) throw new NotFound()
      assertChangeable(id, current, role)
      allowed(current)
      const [row] = await trx(ROLES_TABLE)
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
