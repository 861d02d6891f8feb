import t from 'tap'
import { ADMIN } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { http, serverStorage, startServer } from '../helpers/server.js'
import { querySql } from '../helpers/storage-sql.js'

t.test('SIGTERM under load: no accepted request fails, exit 0 within 10 s', async t => {
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: storage.env })
  await http(server, 'POST', '/api/setup/finish', { body: ADMIN })
  const cookie = (await http(server, 'POST', '/api/auth/login', { body: { username: ADMIN.username, password: ADMIN.password } })).cookie!

  const statuses = new Map<number, number>()
  const acknowledged: string[] = []
  let refused = 0
  let stop = false
  const client = async (id: number): Promise<void> => {
    for (let n = 0; !stop; n++) {
      const message = `client ${id} #${n}`
      try {
        const answer = n % 2 === 0
          ? await http(server, 'POST', '/panel/api/shoutbox', { body: { message }, cookie })
          : await http(server, 'GET', '/api/shoutbox/list')
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
        if (n % 2 === 0 && answer.status === 200) acknowledged.push(message)
      } catch {
        // Refused or reset before it was accepted: the server had stopped listening.
        refused++
        return
      }
    }
  }
  const clients = Array.from({ length: 16 }, (_, id) => client(id))
  // The signal comes mid-load: once 100 requests were answered, however busy the machine.
  const answered = (): number => [...statuses.values()].reduce((a, b) => a + b, 0)
  if ((await eventually(answered, n => n >= 100, 60_000)).ms === Infinity) throw new Error(`only ${answered()} answers in 60 s`)
  const signalled = Date.now()
  server.child.kill('SIGTERM')
  const code = await server.exited
  const took = Date.now() - signalled
  stop = true
  await Promise.all(clients)
  t.equal(code, 0, 'exit code 0')
  t.ok(took < 10_000, `stopped in ${took} ms`)
  t.same([...statuses.keys()], [200], `every answer was a success: ${JSON.stringify(Object.fromEntries(statuses))}`)
  t.comment(`answered ${answered()}, refused before acceptance ${refused}`)
  const stored = new Set((await querySql<{ message: string }>(storage, 'select message from shoutbox_shouts')).map(r => r.message))
  t.same(acknowledged.filter(m => !stored.has(m)), [], 'every acknowledged publish is stored')
})
