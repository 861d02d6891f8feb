import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { ADMIN } from '../helpers/app.js'
import { DB_KIND } from '../helpers/database.js'
import { eventually } from '../helpers/eventually.js'
import { http as request, serverStorage, startServer } from '../helpers/server.js'
import { querySql } from '../helpers/storage-sql.js'

/**
 * Webhooks never lose an acknowledged change: with the receiver down, members' shouts
 * are published while the host is killed with SIGKILL; two processes then start on the
 * same PostgreSQL, the receiver comes up, and every acknowledged shout's delivery
 * arrives — none twice once answered 2xx.
 */
t.test('SIGKILL with the receiver down loses no delivery, and two senders send each once', {
  skip: DB_KIND !== 'postgres' && 'two processes on one database: this runs on PostgreSQL'
}, async t => {
  const storage = await serverStorage(t)
  const env = { ...storage.env, WEBHOOKS_ALLOW_HTTP: '1', WEBHOOKS_ALLOW_PRIVATE: '1' }
  const first = await startServer(t, { env })
  await request(first, 'POST', '/api/setup/finish', { body: ADMIN })
  const cookie = (await request(first, 'POST', '/api/auth/login', { body: { username: ADMIN.username, password: ADMIN.password } })).cookie!

  // The receiver's port, reserved now and listened on only later: until then, connections are refused.
  const received = new Map<string, number>()
  const messages = new Set<string>()
  const receiver = http.createServer((req, res) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', chunk => { raw += chunk })
    req.on('end', () => {
      const body = JSON.parse(raw) as { id: string, data: { message?: string } }
      received.set(body.id, (received.get(body.id) ?? 0) + 1)
      if (body.data.message !== undefined) messages.add(body.data.message)
      res.writeHead(200).end()
    })
  })
  await new Promise<void>(resolve => receiver.listen(0, '127.0.0.1', resolve))
  const { port } = receiver.address() as AddressInfo
  await new Promise(resolve => receiver.close(resolve))
  t.teardown(() => { receiver.closeAllConnections(); receiver.close() })
  const hook = await request(first, 'POST', '/panel/api/webhooks', { body: { url: `http://127.0.0.1:${port}/hook`, events: ['shout.created'] }, cookie })
  t.equal(hook.status, 200)

  const acknowledged: string[] = []
  let killed = false
  const client = async (id: number): Promise<void> => {
    for (let n = 0; !killed; n++) {
      const message = `client ${id} shout ${n}`
      try {
        const answer = await request(first, 'POST', '/panel/api/shoutbox', { body: { message }, cookie })
        if (answer.status === 200) acknowledged.push(message)
      } catch {
        return // the connection died with the process: not acknowledged
      }
    }
  }
  const clients = Array.from({ length: 8 }, (_, id) => client(id))
  await eventually(() => acknowledged.length, n => n > 150, 60_000)
  killed = true
  first.child.kill('SIGKILL')
  t.equal(await first.exited, 'SIGKILL')
  await Promise.all(clients)

  // The receiver comes up; two processes share the sending.
  await new Promise<void>(resolve => receiver.listen(port, '127.0.0.1', resolve))
  const two = [await startServer(t, { env }), await startServer(t, { env })]
  // The tries made while the receiver was down wait a minute for the next: that minute
  // passes here at once (not for a delivery a process holds now, nor those the killed one
  // held, whose claims run out by themselves).
  await querySql(storage, `update webhook_deliveries set next_attempt_at = 0
    where status = 'pending' and (locked_until is null or locked_until < ${Date.now()})`)
  const stored = Number((await querySql<{ n: string }>(storage, 'select count(*) as n from shoutbox_shouts'))[0]!.n)
  const missing = await eventually(() => acknowledged.filter(message => !messages.has(message)).length, n => n === 0, 90_000)
  t.equal(missing.value, 0, 'every acknowledged shout\'s delivery arrived')
  await eventually(async () => (await querySql<{ n: string }>(storage, "select count(*) as n from webhook_deliveries where status <> 'delivered'"))[0]!.n, n => n === '0', 30_000)
  t.same([...received.values()].filter(times => times > 1), [], 'none arrived twice')
  t.equal(received.size, stored, 'one delivery for each stored shout')
  t.comment(`${acknowledged.length} acknowledged before the kill, ${stored} stored, ${received.size} delivered by ${two.length} processes in ${Math.round(missing.ms)} ms`)
})
