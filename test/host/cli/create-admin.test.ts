import { spawn } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { DB_KIND } from '../../helpers/database.js'
import { builtEntry, http, serverStorage, startServer, type ServerStorage } from '../../helpers/server.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))
/** What `npm run create-admin` runs. */
const CLI = path.join(root, 'dist/host/cli/create-admin.js')

async function run (storage: ServerStorage, args: string[], options: { env?: NodeJS.ProcessEnv, stdin?: string } = {}) {
  const cli = await builtEntry(CLI)
  return await new Promise<{ code: number | null, stdout: string, stderr: string }>(resolve => {
    const child = spawn('env', ['-u', 'NODE_OPTIONS', process.execPath, cli, ...args], {
      cwd: root, env: { ...process.env, ...storage.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe']
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => { stdout += c.toString() })
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString() })
    child.stdin.end(options.stdin ?? '')
    child.on('close', code => resolve({ code, stdout, stderr }))
  })
}

t.test('create-admin: a scripted install without a browser', async t => {
  const storage = await serverStorage(t)
  const args = ['--username', 'root-admin', '--email', 'root@example.org']

  const weak = await run(storage, args, { stdin: 'short\n' })
  t.same([weak.code, weak.stderr], [1, 'create-admin: password expected string length greater or equal to 8\n'])

  const made = await run(storage, args, { stdin: 'a strong password\n' })
  t.same([made.code, made.stdout], [0, 'created the administrator "root-admin"; setup is finished\n'], made.stderr)

  const again = await run(storage, args, { env: { SHOUTBOX_ADMIN_PASSWORD: 'another password' } })
  t.same([again.code, again.stderr], [1, 'create-admin: setup is already finished\n'])

  const server = await startServer(t, { env: storage.env })
  const signIn = await http(server, 'POST', '/api/auth/login', { body: { username: 'root-admin', password: 'a strong password' } })
  t.same([signIn.status, signIn.body], [200, { result: 'ok', user: { id: 1, username: 'root-admin', role: { id: 1, name: 'admin' } } }],
    'the password came from stdin, without its newline')
  const settings = await http(server, 'GET', '/api/panel/shoutbox/config', { cookie: signIn.cookie! })
  t.match(settings, { status: 200, body: { result: 'ok', maxShouts: 50 } }, 'the list shows the newest 50, as the wizard sets it')
  const feed = await http(server, 'GET', '/api/panel/logs/activity', { cookie: signIn.cookie! })
  t.match(feed.body, { logs: [{ text: 'root-admin changed the shoutbox settings' }] }, 'logged as the wizard\'s change is (newest first)')
})

t.test('create-admin --max-shouts: another number, or none; anything else is refused before setup', async t => {
  const storage = await serverStorage(t)
  const args = ['--username', 'root-admin', '--email', 'root@example.org']
  const bad = await run(storage, [...args, '--max-shouts', 'lots'], { stdin: 'a strong password\n' })
  t.same([bad.code, bad.stderr], [1, 'create-admin: --max-shouts takes a whole number, or none\n'])
  const made = await run(storage, [...args, '--max-shouts', 'none'], { stdin: 'a strong password\n' })
  t.same([made.code, made.stdout], [0, 'created the administrator "root-admin"; setup is finished\n'], made.stderr)
  const server = await startServer(t, { env: storage.env })
  const signIn = await http(server, 'POST', '/api/auth/login', { body: { username: 'root-admin', password: 'a strong password' } })
  t.match(await http(server, 'GET', '/api/panel/shoutbox/config', { cookie: signIn.cookie! }), { status: 200, body: { result: 'ok', maxShouts: null } }, 'none: every shout')
})

t.test('create-admin beside a running host on the embedded database is refused, and changes nothing', { skip: DB_KIND !== 'embedded' && 'PostgreSQL serves any number of processes' }, async t => {
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: storage.env })
  const refused = await run(storage, ['--username', 'root-admin', '--email', 'root@example.org'], { stdin: 'a strong password\n' })
  t.equal(refused.code, 1)
  t.equal(refused.stderr, `create-admin: the embedded database in ${storage.env.DATA_DIR!} is open in another process (pid ${server.child.pid!}); stop the server first\n`)
  t.same((await http(server, 'GET', '/api/setup/status')).body, { result: 'ok', setupDone: false }, 'setup is still to do')
})
