import { ALL_PERMISSIONS, holdsNode, type PermissionDeclaration } from '../../sdk/index.js'

/** Held by the built-in admin role: passes every permission check. */
export const ALL = ALL_PERMISSIONS

/** The host's own permissions. */
export const HOST_PERMISSIONS: readonly PermissionDeclaration[] = [
  { key: 'PANEL_ACCESS', node: 'panel.access' },
  { key: 'MANAGE_ROLES', node: 'panel.manage.roles' },
  { key: 'MANAGE_USERS', node: 'panel.manage.users' },
  { key: 'MANAGE_ADDONS', node: 'panel.manage.addons' },
  { key: 'MANAGE_SETTINGS', node: 'panel.manage.settings' },
  { key: 'MANAGE_WEBHOOKS', node: 'panel.manage.webhooks' }
]

/** Opens the panel; the built-in member role never holds it. */
export const PANEL_ACCESS = 'panel.access'

/** The SDK's: one rule for the host and the addons. */
export { holdsNode }
