import { NoPermission, type SessionUser } from '../../sdk/index.js'
import { holdsNode } from './permissions.js'

/**
 * Who may give what. Nobody hands out more than they hold: a role may receive, and a user
 * may be given through a role, only permission nodes the caller holds itself. The same
 * goes for the people and roles a caller changes: a role or account that holds a node the
 * caller lacks is beyond the caller (so only administrators, who hold `*`, touch the
 * admin role's users). Otherwise a manager of users could reset a stronger user's
 * password and sign in as them.
 */
export function assertHoldsAll (caller: Pick<SessionUser, 'permissions'>, nodes: readonly string[]): void {
  if (!nodes.every(node => holdsNode(caller, node))) throw new NoPermission()
}

/** Nobody changes their own role: not its permissions, and not which role they have. */
export function assertNotOwnRole (caller: Pick<SessionUser, 'role'>, roleId: number): void {
  if (caller.role.id === roleId) throw new NoPermission()
}
