import type { Knex } from 'knex'
import { NoPermission, type ErasureMode, type SessionUser } from '../../sdk/index.js'
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
}

/** The settings table's row; `defaultRoleId` null means the member role. */
interface Stored {
  readonly signUp: boolean
  readonly defaultRoleId: number | null
  readonly activityKeepDays: number | null
  readonly erasure: ErasureMode
}

const KEY = 'site'
const DEFAULTS: Stored = { signUp: false, defaultRoleId: null, activityKeepDays: null, erasure: 'anonymise' }

/** The site's settings, in the host's `settings` table (shared by every process, read on each use). */
export class SiteSettingsStore {
  constructor (private readonly db: Knex, private readonly roles: RolesRepository) {}

  async read (db: Knex = this.db): Promise<SiteSettings> {
    const stored = await this.stored(db)
    return { signUp: stored.signUp, defaultRoleId: stored.defaultRoleId ?? (await this.roles.member(db)).id, activityKeepDays: stored.activityKeepDays, erasure: stored.erasure }
  }

  /**
   * Checks and stores the values given by `actor`; the caller logs and commits. Choosing
   * the role of new accounts gives its permissions to whoever signs up (the actor too,
   * with a second account), so the actor must hold every one of them.
   */
  async write (values: Partial<SiteSettings>, actor: Pick<SessionUser, 'permissions'>, trx: Knex.Transaction): Promise<SiteSettings> {
    if (values.defaultRoleId !== undefined) await this.assertEligible(values.defaultRoleId, actor, trx)
    const next = { ...await this.stored(trx), ...values }
    await trx(SETTINGS_TABLE).insert({ key: KEY, value: JSON.stringify(next) }).onConflict('key').merge(['value'])
    return this.read(trx)
  }

  /** The roles `defaultRoleId` may name: none that opens the panel. */
  async eligibleRoles (): Promise<Array<{ id: number, name: string }>> {
    return (await this.roles.list()).filter(eligible).map(({ id, name }) => ({ id, name }))
  }

  /**
   * The role a sign-up gets now: the chosen one, unless it has since been given the panel
   * (or removed), in which case the member role — signing up never opens the panel: if
   * the member role itself opens it (given `panel.access`, or a staff role called "member"
   * before the member role was built in), nobody signs up (`SIGN_UP_CLOSED`).
   */
  async signUpRoleId (): Promise<number> {
    const { defaultRoleId } = await this.stored(this.db)
    const chosen = defaultRoleId === null ? undefined : await this.roles.find(defaultRoleId)
    if (chosen !== undefined && eligible(chosen)) return chosen.id
    const member = await this.roles.member()
    if (!eligible(member)) throw new SignUpClosed()
    return member.id
  }

  private async assertEligible (roleId: number, actor: Pick<SessionUser, 'permissions'>, trx: Knex): Promise<void> {
    const role = await this.roles.find(roleId, trx)
    if (role === undefined) throw new UnknownRole()
    if (!eligible(role)) throw new DefaultRoleNotAllowed()
    if (!role.permissions.every(node => holdsNode(actor, node))) throw new NoPermission()
  }

  private async stored (db: Knex): Promise<Stored> {
    const row = await db(SETTINGS_TABLE).where({ key: KEY }).first<{ value: Partial<Stored> } | undefined>('value')
    return { ...DEFAULTS, ...row?.value }
  }
}

function eligible (role: { permissions: readonly string[] }): boolean {
  return !role.permissions.includes(PANEL_ACCESS) && !role.permissions.includes(ALL)
}
