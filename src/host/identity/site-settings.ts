import { NoPermission, type Database, type ErasureMode, type SessionUser, type Transaction } from '../../sdk/index.js'
import { SETTINGS_TABLE } from '../database/tables.js'
import { DefaultRoleNotAllowed, SignUpClosed, UnknownRole } from '../errors.js'
import { ALL, PANEL_ACCESS, holdsNode } from './permissions.js'
import type { RolesRepository } from './roles.js'

/** `GET/PUT /api/panel/settings`: who may join the site, and as what. */
export interface SiteSettings {
  /** Visitors may create their own account (`POST /api/auth/signup`). */
  readonly signUp: boolean
  /** The role a new account gets; the built-in member role unless the site chose another. */
  readonly defaultRoleId: number
  /** How many days the activity log keeps an entry (30–3650); null: forever. */
  readonly activityKeepDays: number | null
  /** What a deleted account's shouts become: kept under `deleted user`, or deleted. */
  readonly erasure: ErasureMode
  /** A member who signs up may post only once they followed the link mailed to their address. */
  readonly verifyEmail: boolean
}

/** The settings table's row; `defaultRoleId` null means the member role. */
interface Stored {
  readonly signUp: boolean
  readonly defaultRoleId: number | null
  readonly activityKeepDays: number | null
  readonly erasure: ErasureMode
  readonly verifyEmail: boolean
}

const KEY = 'site'
const DEFAULTS: Stored = { signUp: false, defaultRoleId: null, activityKeepDays: null, erasure: 'anonymise', verifyEmail: false }

/** The site's settings, in the host's `settings` table (shared by every process, read on each use). */
export function siteSettingsRepository (db: Database, roles: RolesRepository) {
  const stored = async (trx: Database): Promise<Stored> => {
    const row = await trx(SETTINGS_TABLE).where({ key: KEY }).first<{ value: Partial<Stored> } | undefined>('value')
    return { ...DEFAULTS, ...row?.value }
  }

  const assertEligible = async (roleId: number, actor: Pick<SessionUser, 'permissions'>, trx: Transaction): Promise<void> => {
    const role = await roles.find(roleId, trx)
    if (role === undefined) throw new UnknownRole()
    if (!eligible(role)) throw new DefaultRoleNotAllowed()
    if (!role.permissions.every(node => holdsNode(actor, node))) throw new NoPermission()
  }

  const read = async (trx: Database = db): Promise<SiteSettings> => {
    const values = await stored(trx)
    return { signUp: values.signUp, defaultRoleId: values.defaultRoleId ?? (await roles.member(trx)).id, activityKeepDays: values.activityKeepDays, erasure: values.erasure, verifyEmail: values.verifyEmail }
  }

  return {
    read,

    /**
     * Checks and stores the values given by `actor`; the caller logs and commits. Choosing
     * the role of new accounts gives its permissions to whoever signs up (the actor too,
     * with a second account), so the actor must hold every one of them.
     */
    async write (values: Partial<SiteSettings>, actor: Pick<SessionUser, 'permissions'>, trx: Transaction): Promise<SiteSettings> {
      if (values.defaultRoleId !== undefined) await assertEligible(values.defaultRoleId, actor, trx)
      const next = { ...await stored(trx), ...values }
      await trx(SETTINGS_TABLE).insert({ key: KEY, value: JSON.stringify(next) }).onConflict('key').merge(['value'])
      return await read(trx)
    },

    /** The roles `defaultRoleId` may name: none that opens the panel. */
    async eligibleRoles (): Promise<Array<{ id: number, name: string }>> {
      return (await roles.list()).filter(eligible).map(({ id, name }) => ({ id, name }))
    },

    /**
     * The role a sign-up gets now: the chosen one, unless it has since been given the panel
     * (or removed), in which case the member role — signing up never opens the panel: if
     * the member role itself opens it (given `panel.access`, or a staff role called "member"
     * before the member role was built in), nobody signs up (`SIGN_UP_CLOSED`).
     */
    async signUpRoleId (): Promise<number> {
      const { defaultRoleId } = await stored(db)
      const chosen = defaultRoleId === null ? undefined : await roles.find(defaultRoleId)
      if (chosen !== undefined && eligible(chosen)) return chosen.id
      const member = await roles.member()
      if (!eligible(member)) throw new SignUpClosed()
      return member.id
    }
  }
}

export type SiteSettingsRepository = ReturnType<typeof siteSettingsRepository>

function eligible (role: { permissions: readonly string[] }): boolean {
  return !role.permissions.includes(PANEL_ACCESS) && !role.permissions.includes(ALL)
}
