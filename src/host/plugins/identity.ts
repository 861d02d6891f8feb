import fp from 'fastify-plugin'
import type { SessionUser } from '../../sdk/index.js'
import { LoginThrottle, type ThrottlePolicy } from '../identity/login-throttle.js'
import { PasswordHasher } from '../identity/passwords.js'
import { rolesRepository, type RolesRepository } from '../identity/roles.js'
import { Sessions } from '../identity/sessions.js'
import { usersRepository, type UsersRepository } from '../identity/users.js'
import { SetupState } from '../services/setup-state.js'

export interface IdentityOptions {
  readonly passwords?: PasswordHasher
  readonly throttle?: ThrottlePolicy
  /** `SETUP_TOKEN`: the setup token the operator chose; otherwise one is made. */
  readonly setupToken?: string | undefined
}

/** Who people are: accounts, roles, sessions, passwords, the sign-in throttle and the setup state. */
export interface Identity {
  readonly users: UsersRepository
  readonly roles: RolesRepository
  readonly sessions: Sessions
  readonly passwords: PasswordHasher
  readonly signInThrottle: LoginThrottle
  readonly setup: SetupState
}

declare module 'fastify' {
  interface FastifyInstance {
    identity: Identity
  }
  interface FastifyRequest {
    /** Set by the access check of LoggedInApi and PanelApi endpoints. */
    sessionUser: SessionUser | null
  }
}

export const identityPlugin = fp<IdentityOptions>(async (app, options) => {
  app.decorate('identity', {
    users: usersRepository(app.db),
    roles: rolesRepository(app.db),
    sessions: new Sessions(app.db, app.cluster),
    passwords: options.passwords ?? new PasswordHasher(),
    signInThrottle: new LoginThrottle(app.db, options.throttle),
    setup: new SetupState(app.db, options.setupToken)
  })
  app.decorateRequest('sessionUser', null)
}, { name: 'shoutbox-identity', dependencies: ['shoutbox-database', 'shoutbox-cluster'] })
