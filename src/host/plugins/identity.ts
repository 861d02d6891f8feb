import fp from 'fastify-plugin'
import type { SessionUser } from '../../sdk/index.js'
import type { AddressKeys } from '../identity/address-keys.js'
import { AddressQuota } from '../identity/address-quota.js'
import { ApiTokens } from '../identity/api-tokens.js'
import { LoginThrottle, type ThrottleOptions } from '../identity/login-throttle.js'
import { BoundedPasswords, PasswordHasher, defaultHashingLimits, type HashingLimits } from '../identity/passwords.js'
import { rolesRepository, type RolesRepository } from '../identity/roles.js'
import { Sessions, sessionCookieFor, type SessionCookie } from '../identity/sessions.js'
import { siteSettingsRepository, type SiteSettingsRepository } from '../identity/site-settings.js'
import { usersRepository, type UsersRepository } from '../identity/users.js'
import { SetupState } from '../services/setup-state.js'

export interface IdentityOptions {
  /** What stands for a client's address in the database (keys derived from the address secret). */
  readonly addresses: AddressKeys
  /** argon2id and its parameters (tests use cheap ones). */
  readonly passwords?: PasswordHasher
  /** How many hashes at once and waiting (`defaultHashingLimits` for what is not given). */
  readonly hashing?: Partial<HashingLimits>
  readonly throttle?: ThrottleOptions
  /** `SETUP_TOKEN`: the setup token the operator chose; otherwise one is made. */
  readonly setupToken?: string | undefined
  readonly sessionCookie?: SessionCookie
  /** libuv's thread pool size (`HostConfig.threadPoolSize`), which bounds the hashes at once. */
  readonly threadPoolSize: number
}

/** Who people are: accounts, roles, sessions, passwords, the sign-in throttle and the setup state. */
export interface Identity {
  readonly users: UsersRepository
  readonly roles: RolesRepository
  readonly sessions: Sessions
  /** API tokens (`Authorization: Bearer`): what they act as, and their owners' lists. */
  readonly tokens: ApiTokens
  /** The session cookie's name and flags (from PUBLIC_URL): read and set only through this. */
  readonly sessionCookie: SessionCookie
  /** Every password hash of the process goes through here (bounded; see `BoundedPasswords`). */
  readonly passwords: BoundedPasswords
  readonly signInThrottle: LoginThrottle
  readonly setup: SetupState
  /** Whether visitors may sign up, and the role they get. */
  readonly siteSettings: SiteSettingsRepository
  /** What stands for a client's address in the database: its HMAC under the key of the day. */
  readonly addresses: AddressKeys
  /** Sign-up attempts per client address. */
  readonly signUpQuota: AddressQuota
  /** Names looked up (`GET /api/users/known`) per client address. */
  readonly knownUsersQuota: AddressQuota
}

/** A few sign-ups per address an hour: enough for a family behind one router, too few for a farm of accounts. */
const SIGN_UPS_PER_ADDRESS = { limit: 5, windowMs: 3_600_000 }
/**
 * Names looked up, per client address: a page asks once per name it has not seen, so
 * ten a second is more than a busy room behind one router needs, and a stranger trying
 * name after name gets through 600 a minute, not thousands a second.
 */
const KNOWN_USER_LOOKUPS_PER_ADDRESS = { limit: 600, windowMs: 60_000 }

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
  const roles = rolesRepository(app.db)
  const { addresses } = options
  app.decorate('identity', {
    users: usersRepository(app.db),
    roles,
    sessions: new Sessions(app.db, app.cluster),
    tokens: new ApiTokens(app.db, app.cluster),
    sessionCookie: options.sessionCookie ?? sessionCookieFor(undefined),
    passwords: new BoundedPasswords(
      options.passwords ?? new PasswordHasher(),
      { ...defaultHashingLimits(options.threadPoolSize), ...options.hashing },
      kind => app.log.debug({ kind }, 'password hash')
    ),
    addresses,
    signInThrottle: new LoginThrottle(app.db, addresses, options.throttle),
    setup: new SetupState(app.db, options.setupToken),
    siteSettings: siteSettingsRepository(app.db, roles),
    signUpQuota: new AddressQuota(app.db, 'sign-up', SIGN_UPS_PER_ADDRESS, addresses),
    knownUsersQuota: new AddressQuota(app.db, 'known-users', KNOWN_USER_LOOKUPS_PER_ADDRESS, addresses)
  })
  app.decorateRequest('sessionUser', null)
}, { name: 'shoutbox-identity', dependencies: ['shoutbox-database', 'shoutbox-cluster'] })
