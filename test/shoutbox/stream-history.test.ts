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

  t.test('a live subscriber\'s shout-deleted frame is exactly {"id":N,"room":"general"}', async t => {
    const deleted = await live.next(e => e.event === 'shout-deleted')
    t.equal(deleted.data, `{"id":${secretId},"room":"general"}`)
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
    t.equal(events.find(e => e.event === 'shout-deleted')!.data, `{"id":${secretId},"room":"general"}`)
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
    t.match(entry.details, { shoutId: secretId, message: SECRET, room: 'general' })
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

t.test('a client too far behind to be caught up is told to start over (reset), never sent part of what it missed', async t => {
  const app = await build(t)
  const cookie = await setUp(app)
  const url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api/shoutbox/stream`
  const publish = (message: string) => app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message } })
  // 1,001 events: one more than a replay sends (as many edits of one shout would leave). Each names its room, as every row does since rooms (migration 010).
  const shout = { id: 1, message: 'again', username: 'admin', date: 1, room: 'general' }
  await app.db.batchInsert('shoutbox_events', Array.from({ length: 1001 }, () => ({ kind: 'shout-edited', shout: JSON.stringify(shout), created_at: 1 })), 500)
  const latest = async (): Promise<number> => Number((await app.db('shoutbox_events').max('id as max').first())!.max)

  /** What a client resuming after `lastEventId` receives, up to a marker published after it connected. */
  const resume = async (lastEventId: number, marker: string): Promise<SseEvent[]> => {
    const client = connectSse(url, { 'last-event-id': String(lastEventId) })
    t.teardown(() => client.close())
    t.equal(await client.status, 200)
    await client.next(e => e.event === 'reset' || e.event.startsWith('shout-'))
    await publish(marker)
    await client.next(e => e.event === 'shout-created' && JSON.parse(e.data).message === marker)
    return client.events
  }

  t.test('more than 1,000 events behind: reset with the newest id, then live events', async t => {
    const newest = await latest()
    const events = await resume(0, 'marker one')
    t.same(events.map(e => e.event), ['reset', 'shout-created'])
    t.same([events[0]!.id, events[0]!.data], [String(newest), '{}'])
  })

  t.test('1,000 behind or fewer: replayed, no reset', async t => {
    const newest = await latest()
    const events = await resume(newest - 3, 'marker two')
    t.same(events.map(e => e.event), ['shout-edited', 'shout-edited', 'shout-created', 'shout-created'])
    t.same(events.map(e => Number(e.id)).slice(0, 3), [newest - 2, newest - 1, newest])
  })

  t.test('an id this history never reached (another installation\'s): reset', async t => {
    const events = await resume(await latest() + 1000, 'marker three')
    t.same(events.map(e => e.event), ['reset', 'shout-created'])
  })

  t.test('an id from before the kept 10,000 (maybe pruned): reset, though few events are left after it', async t => {
    const before = await latest()
    await app.db.raw(`insert into shoutbox_events (id, kind, shout, created_at) overriding system value values (?, 'shout-edited', ?, 1)`, [before + 20_000, JSON.stringify(shout)])
    await app.db('shoutbox_events').where('id', '<=', before).delete()
    const events = await resume(before, 'marker four')
    t.same(events.map(e => e.event), ['reset', 'shout-created'])
  })
})
