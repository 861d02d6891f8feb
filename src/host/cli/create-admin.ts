/**
 * Scripted installs: creates the first administrator and finishes setup, no browser; then
 * answers the wizard's question as its form does by default: the shoutbox's list shows the
 * newest 50 shouts (`--max-shouts N`, or `none` for all of them).
 *
 *   SHOUTBOX_ADMIN_PASSWORD=… npm run create-admin -- --username admin --email admin@example.org
 *   printf '%s' "$PASSWORD" | npm run create-admin -- --username admin --email admin@example.org --max-shouts 100
 *
 * The password is read from SHOUTBOX_ADMIN_PASSWORD or standard input, never from the
 * command line (where every user of the machine could read it in the process list).
 */
import { parseArgs } from 'node:util'
import { Value } from '@sinclair/typebox/value'
import { PlatformAlreadyInstalled, isPlatformError } from '../../sdk/index.js'
import { buildApp } from '../app.js'
import { ConfigError, loadConfig } from '../config.js'
import { DataDirInUse } from '../database/data-dir-claim.js'
import { finishSetup } from '../endpoints/setup.js'
import { NewAccountSchema } from '../schemas.js'

/** What the setup wizard's shoutbox step fills in. */
const WIZARD_MAX_SHOUTS = 50

function fail (line: string): never {
  process.stderr.write(`create-admin: ${line}\n`)
  process.exit(1)
}

async function readStdin (): Promise<string> {
  if (process.stdin.isTTY) fail('give the password in SHOUTBOX_ADMIN_PASSWORD or on standard input')
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '')
}

const { values } = parseArgs({
  options: {
    username: { type: 'string' },
    email: { type: 'string' },
    'data-dir': { type: 'string' },
    'addons-dir': { type: 'string' },
    'max-shouts': { type: 'string', default: String(WIZARD_MAX_SHOUTS) }
  },
  strict: true
})
if (values.username === undefined || values.email === undefined) {
  fail('usage: create-admin --username NAME --email ADDRESS [--max-shouts N|none] (password from SHOUTBOX_ADMIN_PASSWORD or stdin)')
}
const maxShouts = values['max-shouts'] === 'none' ? null : /^[0-9]{1,9}$/.test(values['max-shouts']) ? Number(values['max-shouts']) : fail('--max-shouts takes a whole number, or none')
const password = process.env.SHOUTBOX_ADMIN_PASSWORD ?? await readStdin()
const account = { username: values.username, email: values.email, password }
const problem = Value.Errors(NewAccountSchema, account).First()
if (problem !== undefined) fail(`${problem.path.slice(1)} ${problem.message.toLowerCase()}`)

const args = [
  ...(values['data-dir'] === undefined ? [] : ['--data-dir', values['data-dir']]),
  ...(values['addons-dir'] === undefined ? [] : ['--addons-dir', values['addons-dir']])
]
const app = await buildApp({ config: { ...loadConfig(args, process.env), logLevel: 'warn' }, logger: { level: 'warn' } }).catch((error: unknown) => {
  if (error instanceof DataDirInUse) fail(`${error.message}; stop the server first`)
  if (error instanceof ConfigError) fail(error.message)
  throw error
})
const outcome = await finishSetup(app.addons.hostContext, account).then(admin => ({ admin }), (error: unknown) => ({ error }))
const configured = 'error' in outcome ? undefined : await setMaxShouts(account.username, account.password)
await app.close()
if ('error' in outcome) {
  const { error } = outcome
  if (isPlatformError(error)) fail(error instanceof PlatformAlreadyInstalled ? 'setup is already finished' : error.code)
  throw error
}
process.stdout.write(`created the administrator "${outcome.admin.username}"; setup is finished\n`)
if (configured !== undefined) fail(`setup is finished, but the shoutbox's maxShouts was not set (${configured}); set it in the panel`)

/**
 * The wizard's shoutbox step, as the wizard takes it: the new administrator signs in and
 * saves the setting through the panel's endpoint (checked, logged and heard by every
 * process as any change of it is), then signs out. The error code when that failed.
 */
async function setMaxShouts (username: string, password: string): Promise<string | undefined> {
  const signedIn = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password } })
  const cookie = signedIn.cookies[0]
  if (signedIn.statusCode !== 200 || cookie === undefined) return codeOf(signedIn.body)
  const headers = { cookie: `${cookie.name}=${cookie.value}` }
  const saved = await app.inject({ method: 'PUT', url: '/api/panel/shoutbox/config', headers, payload: { maxShouts } })
  await app.inject({ method: 'POST', url: '/api/auth/logout', headers })
  return saved.statusCode === 200 ? undefined : codeOf(saved.body)
}

function codeOf (body: string): string {
  try {
    return String((JSON.parse(body) as { error?: unknown }).error)
  } catch {
    return body.slice(0, 100)
  }
}
