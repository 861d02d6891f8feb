/**
 * Scripted installs: creates the first administrator and finishes setup, no browser.
 *
 *   SHOUTBOX_ADMIN_PASSWORD=… npm run create-admin -- --username admin --email admin@example.org
 *   printf '%s' "$PASSWORD" | npm run create-admin -- --username admin --email admin@example.org
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
    'addons-dir': { type: 'string' }
  },
  strict: true
})
if (values.username === undefined || values.email === undefined) fail('usage: create-admin --username NAME --email ADDRESS (password from SHOUTBOX_ADMIN_PASSWORD or stdin)')
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
await app.close()
if ('error' in outcome) {
  const { error } = outcome
  if (isPlatformError(error)) fail(error instanceof PlatformAlreadyInstalled ? 'setup is already finished' : error.code)
  throw error
}
process.stdout.write(`created the administrator "${outcome.admin.username}"; setup is finished\n`)
