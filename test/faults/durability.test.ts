import t from 'tap'
import { ADMIN } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { http, serverStorage, startServer } from '../helpers/server.js'
import { querySql } from '../helpers/storage-sql.js'

/**
 * Many clients publish; the host is killed with SIGKILL in the middle. After a restart
 * every publish answered ok is there with its CREATED_SHOUT entry, and no shout exists
 * without its entry.
 */
t.test('SIGKILL under load loses no acknowledged shout', async t => {
  const storage = await serverStorage(t)
  const first = await startServer(t, { env: storage.env })
  await http(first, 'POST', '/api/setup/finish', { body: ADMIN })
  const cookie = (await http(first, 'POST', '/api/auth/login', { body: { username: ADMIN.username, password: ADMIN.password } })).cookie!

  const acknowledged: string[] = []
  let sent = 0
  let killed = false
  const client = async (id: number): Promise<void> => {
    for (let n = 0; !killed; n++) {
      const message = `client ${id} shout ${n}`
      sent++
      try {
        const answer = await http(first, 'POST', '/panel/api/shoutbox', { body: { message }, cookie })
        if (answer.status === 200) acknowledged.push(message)
      } catch {
        return // the connection died with the process: not acknowledged
      }
    }
  }
  const clients = Array.from({ length: 16 }, (_, id) => client(id))
  // Killed mid-load: once 200 publishes were answered, however busy the machine is.
  await eventually(() => acknowledged.length, n => n > 200, 60_000)
  killed = true
  first.child.kill('SIGKILL')
  t.equal(await first.exited, 'SIGKILL')
  await Promise.all(clients)
  t.ok(acknowledged.length > 200, `${acknowledged.length} acknowledged before the kill`)

  const shouts = await querySql<{ message: string }>(storage, 'select message from shoutbox_shouts')
  const entries = await querySql<{ message: string }>(storage, "select details->>'message' as message from activity_logs where type = 'CREATED_SHOUT'")
  const stored = new Set(shouts.map(s => s.message))
  const lost = acknowledged.filter(m => !stored.has(m))
  t.same(lost, [], 'every acknowledged shout is stored')
  t.same([...entries.map(e => e.message)].sort(), [...shouts.map(s => s.message)].sort(), 'each shout has its entry, and no entry lacks its shout')
  t.comment(`sent ${sent}, acknowledged ${acknowledged.length}, stored ${shouts.length}, lost ${lost.length}`)

  const second = await startServer(t, { env: storage.env })
  const listed = await http(second, 'GET', '/api/shoutbox/list')
  t.equal((listed.body!.shouts as unknown[]).length, shouts.length, 'and the restarted host lists them all')
})
