import t from 'tap'
import { ADMIN } from '../helpers/app.js'
import { DB_KIND } from '../helpers/database.js'
import { http, serverStorage, startServer } from '../helpers/server.js'
import { connectSse, type SseClient } from '../helpers/sse.js'

/**
 * CONTRACT §27 across two host processes on one PostgreSQL: a direct message written on
 * one reaches its other member's streams on the other — the shout stream and the
 * notification stream — and no one else's (a third member's, an administrator's).
 */

const PASSWORD = 'a long password'

t.test('direct messages on two host processes', { skip: DB_KIND !== 'postgres' && 'the embedded database belongs to one process: this runs on PostgreSQL' }, async t => {
  const storage = await serverStorage(t)
  const [a, b] = await Promise.all([startServer(t, { env: storage.env }), startServer(t, { env: storage.env })])
  const admin = (await http(a, 'POST', '/api/setup/finish', { body: ADMIN })).cookie!
  await http(a, 'PUT', '/api/panel/shoutbox/config', { body: { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 }, cookie: admin })
  const roles = (await http(a, 'GET', '/api/panel/roles', { cookie: admin })).body as { roles: Array<{ id: number, name: string }> }
  const memberRole = roles.roles.find(role => role.name === 'member')!.id
  const cookies: Record<string, string> = {}
  for (const username of ['ayse', 'bora', 'cem']) {
    t.equal((await http(a, 'POST', '/api/panel/users', { body: { username, email: `${username}@example.org`, password: PASSWORD, roleId: memberRole }, cookie: admin })).status, 200)
    cookies[username] = (await http(b, 'POST', '/api/auth/login', { body: { username, password: PASSWORD } })).cookie!
  }
  const streams: Record<string, SseClient> = {
    bora: connectSse(`${b.url}/api/shoutbox/stream`, { cookie: cookies.bora! }),
    cem: connectSse(`${b.url}/api/shoutbox/stream`, { cookie: cookies.cem! }),
    admin: connectSse(`${b.url}/api/shoutbox/stream`, { cookie: admin }),
    ayse: connectSse(`${a.url}/api/shoutbox/stream`, { cookie: cookies.ayse! }),
    boraNotes: connectSse(`${b.url}/api/notifications/stream`, { cookie: cookies.bora! }),
    cemNotes: connectSse(`${b.url}/api/notifications/stream`, { cookie: cookies.cem! })
  }
  t.teardown(() => { for (const stream of Object.values(streams)) stream.close() })
  for (const stream of Object.values(streams)) await stream.next(event => event.event === 'ready', 15_000)

  const first = await http(a, 'POST', '/api/shoutbox/direct/bora', { body: { message: 'hello from a' }, cookie: cookies.ayse })
  t.equal(first.status, 200)
  const conversation = (first.body as { conversation: number }).conversation
  const note = await streams.boraNotes!.next(event => event.event === 'notification', 15_000)
  t.match(JSON.parse(note.data), { notification: { kind: 'direct', data: { conversation, by: 'ayse', excerpt: 'hello from a' } } }, 'her notification reaches his stream on the other process')

  // The start is a change of rooms: once b has heard it, his stream there carries the conversation.
  await streams.bora!.next(event => event.event === 'rooms-changed', 15_000)
  t.equal((await http(a, 'POST', '/api/shoutbox/direct/bora', { body: { message: 'second, from a' }, cookie: cookies.ayse })).status, 200)
  const heard = await streams.bora!.next(event => event.event === 'shout-created' && event.data.includes('second, from a'), 15_000)
  t.match(JSON.parse(heard.data), { message: 'second, from a', username: 'ayse', room: `~${conversation}` }, 'written on a, heard on b')
  t.equal((await http(b, 'POST', '/api/shoutbox/direct/ayse', { body: { message: 'answer from b' }, cookie: cookies.bora })).status, 200)
  await streams.ayse!.next(event => event.event === 'shout-created' && event.data.includes('answer from b'), 15_000)
  t.pass('written on b, heard on a')

  // A shout on the board after them: once it reaches every stream, what they lack they will not get.
  await http(a, 'POST', '/api/shoutbox', { body: { message: 'a public marker' }, cookie: cookies.cem })
  for (const name of ['cem', 'admin'] as const) {
    await streams[name]!.next(event => event.data.includes('a public marker'), 15_000)
    t.notOk(streams[name]!.events.some(event => event.data.includes('from a') || event.data.includes('from b') || event.data.includes(`~${conversation}`)), `${name}'s stream on b carries nothing of it`)
  }
  t.notOk(streams.cemNotes!.events.some(event => event.event === 'notification'), 'nor a third member\'s notifications')
})
