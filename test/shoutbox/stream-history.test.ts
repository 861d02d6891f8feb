import t from 'tap'
import { up as scrubHistory } from '../../src/shoutbox/migrations/003-deleted-shouts-leave-history.js'
import { build, setUp } from '../helpers/app.js'
import { connectSse, type SseEvent } from '../helpers/sse.js'

const SECRET = 'the launch code is 0000, tell no one'

t.test('a deleted shout\'s text is gone from the stream, live and replayed', async t => {
  const app = await build(t)
  const cookie = await setUp(app)
  const url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api/shoutbox/stream`
  const publish = (message: string) => app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message } })
  const idOf = async (message: string): Promise<number> =>
    (await app.inject({ url: '/api/shoutbox/list' })).json().shouts.find((s: { message: string }) => s.message === message).id

  const live = connectSse(url)
  t.teardown(() => live.close())
  await live.next(e => e.event === 'ready')

  await publish('before')
  await publish(SECRET)
  await publish('after')
  const secretId = await idOf(SECRET)
  await live.next(e => e.event === 'shout-created' && JSON.parse(e.data).message === 'after')
  t.equal((await app.inject({ method: 'DELETE', url: `/api/panel/shoutbox/${secretId}`, headers: { cookie } })).statusCode, 200)

  t.test('a live subscriber\'s shout-deleted frame is exactly {"id":N}', async t => {
    const deleted = await live.next(e => e.event === 'shout-deleted')
    t.equal(deleted.data, `{"id":${secretId}}`)
  })

  /** Everything a client resuming with `lastEventId` receives, up to a marker published after it connected. */
  const replay = async (query: string, headers: Record<string, string>, marker: string): Promise<SseEvent[]> => {
    const client = connectSse(url + query, headers)
    t.teardown(() => client.close())
    t.equal(await client.status, 200)
    await publish(marker)
    await client.next(e => e.event === 'shout-created' && JSON.parse(e.data).message === marker)
    return client.events
  }

  t.test('a new client replaying from Last-Event-ID: 0 never sees the text', async t => {
    const events = await replay('', { 'last-event-id': '0' }, 'marker one')
    t.notOk(JSON.stringify(events).includes(SECRET), 'no frame holds the secret')
    t.same(events.map(e => [e.event, JSON.parse(e.data).message ?? JSON.parse(e.data).id]),
      [['shout-created', 'before'], ['shout-created', 'after'], ['shout-deleted', secretId], ['shout-created', 'marker one']],
      'the rest of the history is intact; the deletion is named by id')
    t.equal(events.find(e => e.event === 'shout-deleted')!.data, `{"id":${secretId}}`)
  })

  t.test('nor one resuming through ?lastEventId=0', async t => {
    const events = await replay('?lastEventId=0', {}, 'marker two')
    t.ok(events.some(e => e.event === 'shout-deleted'), 'it did replay')
    t.notOk(JSON.stringify(events).includes(SECRET))
  })

  t.test('the history table itself no longer holds it', async t => {
    const rows: Array<{ shout: unknown }> = await app.db('shoutbox_events').select('shout')
    t.notOk(JSON.stringify(rows).includes(SECRET))
  })

  t.test('the staff\'s record keeps it: DELETED_SHOUT in the activity log (panel only)', async t => {
    const entry = await app.db('activity_logs').where({ type: 'DELETED_SHOUT' }).first('details')
    t.match(entry.details, { shoutId: secretId, message: SECRET })
  })
})

t.test('history written before the change is scrubbed by the migration', async t => {
  const app = await build(t)
  const cookie = await setUp(app)
  await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message: 'kept' } })
  // What an earlier version left: a deleted shout's created event, and a deletion with the whole shout.
  await app.db('shoutbox_events').insert([
    { kind: 'shout-created', shout: JSON.stringify({ id: 999, message: SECRET, username: 'admin', date: 1 }), created_at: 1 },
    { kind: 'shout-deleted', shout: JSON.stringify({ id: 999, message: SECRET, username: 'admin', date: 1 }), created_at: 2 }
  ])
  await app.db.raw('drop index shoutbox_events_shout_id')
  await scrubHistory(app.db)
  const rows: Array<{ kind: string, shout: Record<string, unknown> }> = await app.db('shoutbox_events').orderBy('id').select('kind', 'shout')
  t.same(rows.map(r => [r.kind, r.shout.message ?? r.shout]), [['shout-created', 'kept'], ['shout-deleted', { id: 999 }]])
})
