import fs from 'node:fs/promises'
import t from 'tap'
import { loadConfig } from '../../../src/host/config.js'
import { ADMIN, build, setUp } from '../../helpers/app.js'

t.test('TRUST_PROXY as a list: forwarded headers are believed only from those peers', async t => {
  // One open event stream per client: whether a second one is refused shows who the host
  // took the client to be (the stream limit counts request.ip, as the sign-in throttle does).
  const app = await build(t, { config: { trustProxy: ['10.0.0.0/8', '::1'], streamsPerClient: 1 } })
  await setUp(app)
  const signIn = (remoteAddress: string, headers: Record<string, string>) => app.inject({
    method: 'POST', url: '/api/auth/login', remoteAddress, headers, payload: { username: ADMIN.username, password: ADMIN.password }
  })
  const secure = async (remoteAddress: string): Promise<boolean> => {
    const response = await signIn(remoteAddress, { 'x-forwarded-proto': 'https' })
    t.equal(response.statusCode, 200)
    return response.cookies.find(c => c.name === 'shoutbox_session')!.secure === true
  }
  /** Opens a stream (answered at its head, left open) and says how it was answered. */
  const stream = async (remoteAddress: string, forwardedFor: string): Promise<number> => (await app.inject({
    url: '/api/shoutbox/stream', remoteAddress, headers: { 'x-forwarded-for': forwardedFor }, payloadAsStream: true
  })).statusCode

  t.test('X-Forwarded-Proto: https counts only from a listed proxy', async t => {
    t.equal(await secure('127.0.0.1'), false, 'from 127.0.0.1 (not listed) the cookie is not Secure')
    t.equal(await secure('10.1.2.3'), true, 'from 10.1.2.3 (in 10.0.0.0/8) it is')
    t.equal(await secure('::ffff:10.1.2.3'), true, 'an IPv4-mapped peer (dual-stack listener) matches its IPv4 range')
    t.equal(await secure('::1'), true, 'an IPv6 entry')
    t.equal(await secure('::2'), false)
  })

  t.test('X-Forwarded-For from another peer is ignored: the client is the peer', async t => {
    t.equal(await stream('127.0.0.1', '1.2.3.4'), 200)
    t.equal(await stream('127.0.0.1', '5.6.7.8'), 429, 'a stream "for 5.6.7.8" from 127.0.0.1 is 127.0.0.1\'s second')
  })

  t.test('from a listed proxy it is believed: the forwarded client is the one counted', async t => {
    t.equal(await stream('10.1.2.3', '1.2.3.4'), 200, '1.2.3.4 through the proxy: a client of its own')
    t.equal(await stream('10.9.9.9', '1.2.3.4'), 429, 'the same client through another listed proxy')
    t.equal(await stream('10.1.2.3', '4.4.4.4'), 200, 'the proxy is not the client')
    t.equal(await stream('10.1.2.3', '5.5.5.5, 10.5.5.5'), 200, 'a chain of listed proxies is walked...')
    t.equal(await stream('10.1.2.3', '5.5.5.5'), 429, '...to the client behind it')
    t.equal(await stream('10.1.2.3', '1.2.3.4, 8.8.8.8'), 200,
      'an address the client wrote itself (left of an unlisted hop) is not believed: this is 8.8.8.8')
  })

  t.test('X-Forwarded-Host in the Origin check: only from a listed proxy', async t => {
    const post = (remoteAddress: string) => app.inject({
      method: 'POST',
      url: '/api/nowhere',
      remoteAddress,
      headers: { host: 'internal:8080', 'x-forwarded-host': 'shouts.example.org', origin: 'https://shouts.example.org' }
    })
    t.same((await post('127.0.0.1')).json(), { result: 'error', error: 'INVALID_ORIGIN' })
    t.same((await post('10.1.2.3')).json(), { result: 'error', error: 'NOT_FOUND' })
  })
})

t.test('the hop-count form still works', async t => {
  const app = await build(t, { config: { trustProxy: 1 } })
  await setUp(app)
  const response = await app.inject({
    method: 'POST', url: '/api/auth/login', remoteAddress: '192.0.2.1', headers: { 'x-forwarded-proto': 'https' }, payload: { username: 'admin', password: ADMIN.password }
  })
  t.equal(response.cookies.find(c => c.name === 'shoutbox_session')!.secure, true)
})

/** The environment of each `npm start` line of the README's "Several processes" example. */
async function readmeExample (): Promise<NodeJS.ProcessEnv[]> {
  const readme = await fs.readFile(new URL('../../../README.md', import.meta.url), 'utf8')
  const block = /<!-- several-processes:start -->\n```sh\n([\s\S]*?)```\n<!-- several-processes:end -->/.exec(readme)![1]!
  const assignments = (line: string) => Object.fromEntries([...line.matchAll(/(\w+)=(\S+)/g)].map(m => [m[1]!, m[2]!]))
  const exported = block.split('\n').filter(line => line.startsWith('export ')).map(assignments)
  return block.split('\n').filter(line => line.includes('npm start')).map(line => Object.assign({}, ...exported, assignments(line)))
}

t.test('the README\'s several-processes example, copied as it is: a client that reaches the port cannot pose as others', async t => {
  const processes = await readmeExample()
  t.ok(processes.length >= 2, `${processes.length} processes`)
  for (const env of processes) {
    const config = loadConfig([], env)
    t.equal(config.host, '127.0.0.1', `PORT=${env.PORT}: only the machine's own proxy can reach it`)
    t.notOk(typeof config.trustProxy === 'number', 'forwarded headers believed from named proxies, not from whoever is a hop away')
  }
  // Should the port be reachable all the same (HOST changed, a container's port
  // published): the attacker's sign-ups, each claiming another address.
  const { trustProxy, publicUrl } = loadConfig([], processes[0]!)
  const app = await build(t, { config: { trustProxy, publicUrl } })
  const admin = await setUp(app)
  t.equal((await app.inject({ method: 'PUT', url: '/api/panel/settings', headers: { cookie: admin }, payload: { signUp: true } })).statusCode, 200)
  const statuses: number[] = []
  for (let n = 1; n <= 8; n++) {
    const answer = await app.inject({
      method: 'POST', url: '/api/auth/signup', remoteAddress: '203.0.113.9', headers: { 'x-forwarded-for': `198.51.100.${n}` },
      payload: { username: `farm${n}`, email: `farm${n}@example.org`, password: 'a long password' }
    })
    statuses.push(answer.statusCode)
  }
  t.same(statuses, [200, 200, 200, 200, 200, 429, 429, 429], 'five sign-ups an hour for the one client, whatever it writes')
})
