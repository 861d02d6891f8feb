import fs from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { ADDRESS_SECRET, ADMIN } from '../helpers/app.js'
import { DB_KIND } from '../helpers/database.js'
import { eventually } from '../helpers/eventually.js'
import { greeterAddonsDir, tempAddonsDir } from '../helpers/fixtures.js'
import { http, serverStorage, startServer } from '../helpers/server.js'

t.test('a bad addon stops start-up: one line, exit code 1, no stack trace', async t => {
  const addonsDir = await tempAddonsDir(t)
  await fs.mkdir(path.join(addonsDir, 'broken'))
  await fs.writeFile(path.join(addonsDir, 'broken', 'addon.json'), JSON.stringify({ id: 'broken', name: 'Broken', entry: 'index.js' }))
  const server = await startServer(t, { args: ['--addons-dir', addonsDir], waitUntilReady: false })
  t.equal(await server.exited, 1)
  t.match(server.stderr(), /^shoutbox: addon "broken" \(.*addon\.json\): field version expected required property\n$/)
})

/** Why the server cannot be started as the unprivileged user `nobody` here, if it cannot. */
async function nobodyCannotRun (): Promise<string | false> {
  if (process.getuid?.() !== 0) return 'starting the server as another user needs root'
  // nobody must be able to pass through every folder down to the checkout and to the node
  // binary (mktemp -d makes a closed one).
  for (const start of [path.resolve('.'), path.dirname(process.execPath)]) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      if (((await fs.stat(dir)).mode & 0o001) === 0) return `${dir} is closed to other users, so nobody cannot run the server`
      if (path.dirname(dir) === dir) break
    }
  }
  return false
}

t.test('port 80 without privileges: one line naming the fix, exit code 1', { skip: await nobodyCannotRun() }, async t => {
  const server = await startServer(t, { port: 80, uid: 65534, waitUntilReady: false })
  t.equal(await server.exited, 1)
  t.equal(server.stderr(), 'shoutbox: no permission to listen on port 80; run with --dev (port 8088) or choose a port with --port N / PORT=N\n')
})

t.test('a port already in use: one line, exit code 1', async t => {
  const taken = net.createServer()
  await new Promise<void>(resolve => taken.listen(0, '127.0.0.1', resolve))
  t.teardown(() => taken.close())
  const port = (taken.address() as net.AddressInfo).port
  const server = await startServer(t, { port, waitUntilReady: false })
  t.equal(await server.exited, 1)
  t.equal(server.stderr(), `shoutbox: port ${port} is already in use; choose another with --port N / PORT=N\n`)
})

t.test('a DATABASE_URL nobody answers: one line naming it, exit code 1, no stack from knex', async t => {
  const closed = net.createServer()
  await new Promise<void>(resolve => closed.listen(0, '127.0.0.1', resolve))
  const port = (closed.address() as net.AddressInfo).port
  await new Promise(resolve => closed.close(resolve))
  const server = await startServer(t, { env: { DATABASE_URL: `postgres://shoutbox@127.0.0.1:${port}/shoutbox`, ADDRESS_SECRET }, waitUntilReady: false })
  t.equal(await server.exited, 1)
  t.equal(server.stderr(), `shoutbox: cannot reach the database at DATABASE_URL (connect ECONNREFUSED 127.0.0.1:${port})\n`)
  t.notMatch(server.stdout(), /Acquire connection error|\bat /, 'knex\'s message is kept for LOG_LEVEL=debug')
})

t.test('METRICS_PORT already in use: one line naming the metrics port, not the host\'s, exit code 1', async t => {
  const taken = net.createServer()
  await new Promise<void>(resolve => taken.listen(0, '127.0.0.1', resolve))
  t.teardown(() => taken.close())
  const metricsPort = (taken.address() as net.AddressInfo).port
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: { ...storage.env, METRICS_PORT: String(metricsPort) }, waitUntilReady: false })
  t.equal(await server.exited, 1)
  t.equal(server.stderr(), `shoutbox: metrics port ${metricsPort} is already in use; choose another with METRICS_PORT=N\n`)
})

t.test('SIGTERM: requests in flight finish, then the process exits 0', async t => {
  const storage = await serverStorage(t)
  const addonsDir = await greeterAddonsDir(t)
  const server = await startServer(t, { args: ['--addons-dir', addonsDir], env: { ...storage.env, LOG_LEVEL: 'info', LOG_REQUESTS: '1' } })
  t.equal((await http(server, 'POST', '/api/setup/finish', { body: ADMIN })).status, 200)
  const inFlight = Array.from({ length: 5 }, () => http(server, 'GET', '/api/greeter/slow?ms=1500'))
  // The signal comes once the server has read all five (it logs each request it reads).
  const read = await eventually(() => server.stdout().split('/api/greeter/slow').length - 1, count => count >= 5)
  if (read.ms === Infinity) throw new Error(`the five requests never arrived: ${server.stdout()}`)
  server.child.kill('SIGTERM')
  const answers = await Promise.all(inFlight)
  t.same(answers.map(a => [a.status, a.body]), Array(5).fill([200, { result: 'ok', waited: 1500 }]), 'every accepted request answered')
  t.equal(await server.exited, 0, 'a clean exit')
  await t.rejects(fetch(`${server.url}/api/health`), 'no longer listening')
})

t.test('first start in an empty data folder: initdb runs in a child process, so the host never holds its memory', { skip: DB_KIND !== 'embedded' && 'only the embedded database is created by the host' }, async t => {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'shoutbox-first-start-'))
  t.teardown(() => fs.rm(dataDir, { recursive: true, force: true }))
  const env = { DATA_DIR: dataDir, DATABASE_URL: '' }
  const peakOf = async (pid: number): Promise<number> => Number(/VmHWM:\s+(\d+) kB/.exec(await fs.readFile(`/proc/${pid}/status`, 'utf8'))![1]) / 1024
  const first = await startServer(t, { env })
  const peakMiB = await peakOf(first.child.pid!)
  // initdb inside the host took it to about 760 MiB, kept until a restart; now about 300.
  t.ok(peakMiB < 500, `the host's peak resident memory: ${Math.round(peakMiB)} MiB`)
  t.equal((await http(first, 'POST', '/api/setup/finish', { body: ADMIN })).status, 200)
  first.child.kill('SIGTERM')
  t.equal(await first.exited, 0)

  const again = await startServer(t, { env })
  t.same((await http(again, 'GET', '/api/setup/status')).body, { result: 'ok', setupDone: true }, 'a restart opens the same files')
  const restartMiB = await peakOf(again.child.pid!)
  t.ok(peakMiB - restartMiB < 250, `a first start costs the host little more than a restart: ${Math.round(peakMiB)} against ${Math.round(restartMiB)} MiB (initdb in the host added some 575)`)
  // On Node 24 without npm start's --liftoff-only, V8's optimising compiler took a restart to about 780.
  t.ok(restartMiB < 400, `a restart's peak resident memory: ${Math.round(restartMiB)} MiB`)
})

t.test('the embedded database without npm start\'s --liftoff-only: on Node 24 the log says what it costs', { skip: DB_KIND !== 'embedded' && 'only the embedded database runs WebAssembly' }, async t => {
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: storage.env, nodeFlags: [] })
  // The warning is logged before the server listens; the setup line after.
  t.not((await eventually(() => server.stdout(), log => log.includes('setup is not finished'))).ms, Infinity, 'the setup line was logged')
  const warned = server.stdout().includes('node was started without --liftoff-only: on Node 24 the embedded database then takes the process to about 780 MiB')
  // Node 20 takes the flag at run time instead (src/host/database/connect.ts).
  t.equal(warned, Number(process.versions.node.split('.')[0]) > 20, `node ${process.version}: ${server.stdout()}`)
})

t.test('PostgreSQL runs no WebAssembly: no word of the flag without it', { skip: DB_KIND !== 'postgres' && 'PostgreSQL only' }, async t => {
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: storage.env, nodeFlags: [] })
  t.not((await eventually(() => server.stdout(), log => log.includes('setup is not finished'))).ms, Infinity, 'the setup line was logged')
  t.notMatch(server.stdout(), /liftoff/)
})

t.test('a second process on the same embedded data folder is refused with one line; the first goes on; a killed one leaves no claim', { skip: DB_KIND !== 'embedded' && 'PostgreSQL serves any number of processes' }, async t => {
  const storage = await serverStorage(t)
  const first = await startServer(t, { env: storage.env })
  t.equal((await http(first, 'POST', '/api/setup/finish', { body: ADMIN })).status, 200)
  const second = await startServer(t, { env: storage.env, waitUntilReady: false })
  t.equal(await second.exited, 1)
  t.equal(second.stderr(), `shoutbox: the embedded database in ${storage.env.DATA_DIR!} is open in another process (pid ${first.child.pid!}); stop it first, or give this one its own --data-dir\n`)
  t.same((await http(first, 'GET', '/api/setup/status')).body, { result: 'ok', setupDone: true }, 'the first still serves')

  first.child.kill('SIGKILL')
  await first.exited
  const after = await startServer(t, { env: storage.env })
  t.same((await http(after, 'GET', '/api/setup/status')).body, { result: 'ok', setupDone: true }, 'a host started after a kill opens the same files')
})

t.test('LOG_LEVEL=error: the log keeps quiet, but how to finish setup is still said, on stderr', async t => {
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: { ...storage.env, SETUP_TOKEN: '', LOG_LEVEL: 'error' } })
  const said = await eventually(() => server.stderr(), text => /setup is not finished: the setup token is \S+/.test(text))
  t.not(said.ms, Infinity, server.stderr())
  const token = /the setup token is (\S+)/.exec(server.stderr())![1]!
  t.equal(server.stdout(), '', 'nothing else')
  const finished = await http(server, 'POST', '/api/setup/finish', { body: { ...ADMIN, setupToken: token } })
  t.equal(finished.status, 200, 'the token it printed finishes setup')
})

t.test('a development start prints a link that finishes setup; the token in it is the one the host requires', async t => {
  const storage = await serverStorage(t)
  const server = await startServer(t, { args: ['--dev'], env: { ...storage.env, SETUP_TOKEN: '' } })
  // The log line may come a moment after /api/health answers.
  const { value: link } = await eventually(() => /setup is not finished: open (http:\/\/\S+\/panel\/#\/setup\?token=([A-Za-z0-9_-]+))/.exec(server.stdout()), found => found !== null)
  t.ok(link !== null, 'the log has the link')
  const token = decodeURIComponent(link![2]!)
  t.equal(token.length, 32, 'a random 192-bit token')
  const guessed = await http(server, 'POST', '/api/setup/finish', { body: { ...ADMIN, setupToken: 'not-the-token-0123456789' } })
  t.same([guessed.status, guessed.body], [403, { result: 'error', error: 'INVALID_SETUP_TOKEN' }])
  const finished = await http(server, 'POST', '/api/setup/finish', { body: { ...ADMIN, setupToken: token } })
  t.equal(finished.status, 200)
})
