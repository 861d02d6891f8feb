import os from 'node:os'
import path from 'node:path'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { buildApp, type BuildOptions } from '../../src/host/app.js'
import { loadConfig, type HostConfig } from '../../src/host/config.js'
import { PasswordHasher } from '../../src/host/identity/passwords.js'
import { sessionCookieFor } from '../../src/host/identity/sessions.js'
import { testDatabase, type TestDatabase } from './database.js'
import type { Tap } from './types.js'

/** Cheap argon2id parameters for tests; production uses OWASP's (see passwords.ts). */
export const testHasher = new PasswordHasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 })

/** What the tests' hosts hold as ADDRESS_SECRET: the keys of client addresses are derived from it. */
export const ADDRESS_SECRET = 'tests-address-secret-0123456789abcdef'

/** What the tests' hosts hold as SETUP_TOKEN: finishing setup needs it. */
export const SETUP_TOKEN = 'tests-setup-token-0123456789'

/** The first administrator; as a body it finishes setup (it carries the setup token). */
export const ADMIN = { username: 'admin', email: 'admin@example.org', password: 'correct horse battery', setupToken: SETUP_TOKEN }

/** What build() gives a test. */
export type App = FastifyInstance

export function testConfig (overrides: Partial<HostConfig> = {}): HostConfig {
  return {
    ...loadConfig([], {}),
    addonsDir: path.join(os.tmpdir(), 'shoutbox-tests-no-addons'),
    logLevel: 'silent',
    logRequests: false,
    setupToken: SETUP_TOKEN,
    addressSecret: ADDRESS_SECRET,
    ...overrides
  }
}

export interface TestAppOptions extends Partial<Omit<BuildOptions, 'config'>> {
  readonly config?: Partial<HostConfig>
  /** Share a database between apps (several host processes); a fresh one otherwise. */
  readonly db?: TestDatabase
}

/** A fresh app on a fresh database, closed when the test ends. */
export async function build (t: Tap, options: TestAppOptions = {}): Promise<App> {
  const db = options.db ?? await testDatabase()
  const database = await db.open()
  let app: App
  try {
    // No mention-mail rounds in the background (a test runs them with app.mail.mentions.round()):
    // their queries would mix with those a test watches.
    const mail = { mentionsPollMs: 3_600_000, mentionsFirstRoundMs: 3_600_000, ...options.mail }
    app = await buildApp({ hasher: testHasher, ...options, mail, config: testConfig(options.config), database })
  } catch (error) {
    await database.knex.destroy()
    if (options.db === undefined) await db.drop()
    throw error
  }
  t.teardown(async () => {
    await app.close()
    if (options.db === undefined) await db.drop()
  })
  return app
}

/** Finishes setup with the ADMIN account; returns the admin's session cookie. */
export async function setUp (app: App): Promise<string> {
  const response = await app.inject({ method: 'POST', url: '/api/setup/finish', payload: ADMIN })
  if (response.statusCode !== 200) throw new Error(`setup failed: ${response.statusCode} ${response.body}`)
  return sessionCookie(response, app)
}

/**
 * `name=value` of the session cookie a response set. Its name is the app's (PUBLIC_URL
 * over https makes it `__Host-shoutbox_session`); without the app, the default name.
 */
export function sessionCookie (response: LightMyRequestResponse, app?: FastifyInstance): string {
  const name = app?.identity.sessionCookie.name ?? sessionCookieFor(undefined).name
  const cookie = response.cookies.find(c => c.name === name)
  if (cookie === undefined) throw new Error(`no session cookie ${name} in ${response.statusCode} ${response.body}`)
  return `${name}=${cookie.value}`
}

export async function login (app: App, username: string, password: string): Promise<string> {
  const response = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password } })
  return sessionCookie(response, app)
}

/** Creates a role with `permissions` and a user holding it; returns the user's cookie. */
export async function userWith (app: App, adminCookie: string, name: string, permissions: string[]): Promise<string> {
  const role = await app.inject({
    method: 'POST', url: '/api/panel/roles', headers: { cookie: adminCookie }, payload: { name: `${name}-role`, permissions }
  })
  if (role.statusCode !== 200) throw new Error(`role: ${role.body}`)
  const user = await app.inject({
    method: 'POST',
    url: '/api/panel/users',
    headers: { cookie: adminCookie },
    payload: { username: name, email: `${name}@example.org`, password: 'a long password', roleId: role.json().role.id }
  })
  if (user.statusCode !== 200) throw new Error(`user: ${user.body}`)
  return login(app, name, 'a long password')
}
