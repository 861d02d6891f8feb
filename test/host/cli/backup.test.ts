import { spawn } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { ADMIN } from '../../helpers/app.js'
import type { Tap } from '../../helpers/types.js'
import { DB_KIND } from '../../helpers/database.js'
import { builtEntry, http, serverStorage, startServer, type RunningServer, type ServerStorage } from '../../helpers/server.js'

const root = fileURLToPath(new URL('../../../', import.meta.url))

/** `npm run backup` / `npm run restore`, as a site owner runs them. */
async function run (script: 'backup' | 'restore', storage: ServerStorage, args: string[]) {
  const cli = await builtEntry(path.join(root, `dist/host/cli/${script}.js`))
  return await new Promise<{ code: number | null, stdout: string, stderr: string }>(resolve => {
    const child = spawn('env', ['-u', 'NODE_OPTIONS', process.execPath, cli, ...args], {
      cwd: root, env: { ...process.env, ...storage.env }, stdio: ['ignore', 'pipe', 'pipe']
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => { stdout += c.toString() })
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString() })
    child.on('close', code => resolve({ code, stdout, stderr }))
  })
}

/** Storage for a board to restore into: an empty data folder, or an empty schema. */
async function emptyStorage (t: Tap): Promise<ServerStorage> {
  const storage = await serverStorage(t)
  if (DB_KIND === 'postgres') return storage
  await fs.rm(path.join(storage.env.DATA_DIR!, 'pgdata'), { recursive: true })
  return storage
}

/** What a site owner would look at: who can sign in, the rooms, the shouts, the settings. */
async function board (server: RunningServer) {
  const admin = (await http(server, 'POST', '/api/auth/login', { body: { username: ADMIN.username, password: ADMIN.password } })).cookie!
  const member = await http(server, 'POST', '/api/auth/login', { body: { username: 'ayla', password: 'a long password' } })
  return {
    member: [member.status, member.body],
    users: (await http(server, 'GET', '/api/panel/users', { cookie: admin })).body,
    rooms: (await http(server, 'GET', '/api/panel/shoutbox/rooms', { cookie: admin })).body,
    general: (await http(server, 'GET', '/api/shoutbox/rooms/general/shouts')).body,
    games: (await http(server, 'GET', '/api/shoutbox/rooms/games/shouts')).body,
    settings: (await http(server, 'GET', '/api/panel/settings', { cookie: admin })).body,
    config: (await http(server, 'GET', '/api/panel/shoutbox/config', { cookie: admin })).body
  }
}

t.test('npm run backup, then npm run restore into an empty board, finds everything', async t => {
  const source = await serverStorage(t)
  const server = await startServer(t, { env: source.env })
  const setup = await http(server, 'POST', '/api/setup/finish', { body: ADMIN })
  t.equal(setup.status, 200)
  const admin = setup.cookie!
  t.equal((await http(server, 'PUT', '/api/panel/settings', { body: { signUp: true }, cookie: admin })).status, 200)
  t.equal((await http(server, 'PUT', '/api/panel/shoutbox/config', { body: { maxShouts: 20 }, cookie: admin })).status, 200)
  t.equal((await http(server, 'POST', '/api/panel/shoutbox/rooms', { body: { slug: 'games', name: 'Games', read: 'everyone' }, cookie: admin })).status, 200)
  const signUp = await http(server, 'POST', '/api/auth/signup', { body: { username: 'ayla', email: 'ayla@example.org', password: 'a long password' } })
  t.equal(signUp.status, 200, JSON.stringify(signUp.body))
  // The administrator has no flood limit; a new member's first shout is enough.
  for (const [room, message, cookie] of [['general', 'hello all', admin], ['games', 'who plays?', admin], ['general', 'second', signUp.cookie!]] as const) {
    t.equal((await http(server, 'POST', `/api/shoutbox/rooms/${room}/shouts`, { body: { message }, cookie })).status, 200)
  }
  const before = await board(server)
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'shoutbox-backup-'))
  t.teardown(() => fs.rm(folder, { recursive: true, force: true }))
  const into = path.join(folder, 'nightly')

  if (DB_KIND === 'embedded') {
    const refused = await run('backup', source, [into])
    t.same([refused.code, refused.stderr.replace(/pid \d+/, 'pid N')], [1,
      `backup: the embedded database in ${source.env.DATA_DIR!} is open in another process (pid N): the embedded database can be open in one process only; stop the board, back up, and start it again\n`],
    'while the board runs, the embedded database cannot be read from outside it')
    server.child.kill('SIGTERM')
    await server.exited
  }
  const made = await run('backup', source, [into])
  t.equal(made.code, 0, made.stderr)
  t.match(made.stdout, /^backed up \d+ rows of \d+ tables into /)
  t.same((await fs.readdir(into)).sort(), DB_KIND === 'embedded' ? ['address-secret', 'shoutbox-backup.json', 'tables.jsonl'] : ['shoutbox-backup.json', 'tables.jsonl'],
    'with the data folder\'s address secret when there is one (the PostgreSQL tests set ADDRESS_SECRET)')
  t.same((await run('backup', source, [into])).stderr, `backup: ${into} is not empty: give a new folder\n`)

  const target = await emptyStorage(t)
  const restored = await run('restore', target, [into])
  t.equal(restored.code, 0, restored.stderr)
  t.match(restored.stdout, /^restored \d+ rows of \d+ tables from /)
  const again = await run('restore', target, [into])
  t.same([again.code, again.stderr], [1, DB_KIND === 'embedded'
    ? `restore: ${target.env.DATA_DIR!} already holds a database: restore into an empty data folder\n`
    : `restore: schema ${target.env.DATABASE_SCHEMA!} already holds tables: restore into an empty schema (DATABASE_SCHEMA) or database\n`], 'never over a board')
  if (DB_KIND === 'embedded') {
    t.equal(await fs.readFile(path.join(target.env.DATA_DIR!, 'address-secret'), 'utf8'), await fs.readFile(path.join(source.env.DATA_DIR!, 'address-secret'), 'utf8'))
  }

  const restoredServer = await startServer(t, { env: target.env })
  t.same(await board(restoredServer), before, 'the same users (who sign in with their passwords), rooms, shouts and settings')
  const next = await http(restoredServer, 'POST', '/api/auth/login', { body: { username: ADMIN.username, password: ADMIN.password } })
  const posted = await http(restoredServer, 'POST', '/api/shoutbox/rooms/general/shouts', { body: { message: 'after the restore' }, cookie: next.cookie! })
  t.equal(posted.status, 200, 'ids go on from where the backup left them')
  t.equal((posted.body as { shout: { id: number } }).shout.id, 4)
})
