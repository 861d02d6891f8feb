import type { Endpoint } from '../../sdk/index.js'
import type { Platform } from '../platform.js'
import { Login, Logout, Me } from './auth.js'
import { Health } from './health.js'
import { ActivityFeed } from './panel-activity.js'
import { ListAddons, SetAddonEnabled } from './panel-addons.js'
import { ListPermissions } from './panel-permissions.js'
import { PanelModules } from './panel-ui.js'
import { CreateRole, ListRoles, UpdateRole } from './panel-roles.js'
import { CreateUser, ListUsers } from './panel-users.js'
import { FinishSetup, SetupStatus } from './setup.js'

/** The host's own endpoints: the same classes an addon writes, given the platform. */
export function hostEndpoints (platform: Platform): Endpoint[] {
  return [
    new SetupStatus(platform), new FinishSetup(platform), new Health(platform),
    new Login(platform), new Logout(platform), new Me(),
    new ListPermissions(platform), new ListRoles(platform), new CreateRole(platform), new UpdateRole(platform),
    new ListUsers(platform), new CreateUser(platform),
    new ActivityFeed(platform),
    new ListAddons(platform), new SetAddonEnabled(platform),
    new PanelModules(platform)
  ] as Endpoint[]
}
