/**
 * A publish is one statement (src/shoutbox/publisher.ts): its change notice is built in
 * SQL from the rows the statement wrote, sent by PostgreSQL when it commits, and handed to
 * this process by the cluster's `delivered`. These check that notice against what was
 * stored, as this process and as another one hear it.
 */
import t from 'tap'
import { streamHistoryRepository } from '../../src/shoutbox/stream-history.js'
import { Publisher } from '../../src/shoutbox/publisher.js'
import { shoutsRepository } from '../../src/shoutbox/shouts-repository.js'
import { build, setUp, type App } from '../helpers/app.js'
import { DB_KIND, testDatabase } from '../helpers/database.js'
import { eventually } from '../helpers/eventually.js'

const CHANGED = 'shoutbox:changed'

/** Messages that SQL building, JSON escaping or knex's placeholders could get wrong. */
const AWKWARD = [
  'plain',
  '"quoted" and \\back\\slashed\\',
  "it's '); drop table shoutbox_shouts; --",
  'placeholders ? ?? :name $1 \\? {x}',
  'ünïcödé 😀 \u2028 \u00a0 tab\there',
  'line\nbreaks\r\n and a control \u0001 character',
  '{"kind":"settings"}'
]

/** Every notice `app` hears on the board's topic, as sent. */
function hear (app: App): string[] {
  const heard: string[] = []
  app.cluster.subscribe(CHANGED, payload => heard.push(payload))
  return heard
}

/** What announceChange would send for these stored shouts (all of the default room): their created events, whole, each shout with its room. */
async function expectedNotice (app: App, ids: readonly number[]) {
  const events = await app.db('shoutbox_events').where({ kind: 'shout-created' })
    .whereRaw("(shout->>'id')::integer = any(?)", [ids as number[]]).orderBy('id').select<Array<{ id: number }>>('id')
  const stored = await streamHistoryRepository(app.db).find(events.map(e => e.id))
  const shouts = new Map((await shoutsRepository(app.db).list(null)).map(shout => [shout.id, shout]))
  return {
    kind: 'shout-created',
    eventIds: stored.map(e => e.id),
    events: stored.map(e => ({ id: e.id, kind: e.kind, shout: { ...shouts.get(e.shout.id), room: 'general', replyTo: null } }))
  }
}

function publishAll (app: App, cookie: string, messages: readonly string[]) {
  return Promise.all(messages.map(message =>
    app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message } })))
}

t.test('the notice of a publish is the stored shouts and events, whole; this process hears it once', async t => {
  const app = await build(t)
  const cookie = await setUp(app)
  const heard = hear(app)
  const answers = await publishAll(app, cookie, AWKWARD)
  t.same(answers.map(a => a.statusCode), AWKWARD.map(() => 200))
  const stored = await shoutsRepository(app.db).list(null)
  t.same(stored.map(s => s.message).sort(), [...AWKWARD].sort(), 'stored as sent')
  const ids = stored.map(s => s.id)

  const notices = heard.map(text => JSON.parse(text) as { kind: string, eventIds: number[], events: unknown[] })
  t.ok(notices.length >= 1 && notices.length <= AWKWARD.length, `${notices.length} notice(s) for ${AWKWARD.length} publishes arriving together`)
  const joined = {
    kind: notices[0]!.kind,
    eventIds: notices.flatMap(n => n.eventIds),
    events: notices.flatMap(n => n.events)
  }
  t.strictSame(joined, await expectedNotice(app, ids), 'the notices name every event, with the shout as stored, in order')
  t.ok(notices.every(n => n.kind === 'shout-created'), 'each of kind shout-created')
})

t.test('a notice too long for NOTICE names its events without them; the list still follows', async t => {
  const app = await build(t)
  const cookie = await setUp(app)
  const heard = hear(app)
  await app.inject({ url: '/api/shoutbox/list' }) // a kept list, to be updated from the notice
  // Each control character is six bytes in JSON (\u0001): one such shout is over 3,000 bytes of notice.
  const message = '\u0001'.repeat(499) + '!'
  const answer = await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message } })
  t.equal(answer.statusCode, 200)
  const { id } = (await shoutsRepository(app.db).list(1))[0]!
  t.equal(heard.length, 1)
  const notice = JSON.parse(heard[0]!) as Record<string, unknown>
  const { eventIds } = await expectedNotice(app, [id])
  t.strictSame(notice, { kind: 'shout-created', eventIds }, 'the event ids, and no events')
  const listed = (await app.inject({ url: '/api/shoutbox/list' })).json() as { shouts: Array<{ id: number, message: string }> }
  t.same(listed.shouts[0], { ...listed.shouts[0], id, message }, 'the list has it, read back from the database')
})

t.test('another process hears the same notice', { skip: DB_KIND !== 'postgres' && 'the embedded database belongs to one process: this runs on PostgreSQL' }, async t => {
  const db = await testDatabase()
  t.teardown(() => db.drop())
  const a = await build(t, { db })
  const cookie = await setUp(a)
  const b = await build(t, { db })
  const [onA, onB] = [hear(a), hear(b)]
  const answers = await publishAll(a, cookie, AWKWARD)
  t.same(answers.map(r => r.statusCode), AWKWARD.map(() => 200))
  const heard = await eventually(async () => onB.length, () => onB.length === onA.length)
  t.ok(heard.ms < Infinity, `b heard all ${onA.length} after ${heard.ms} ms`)
  t.strictSame(onB, onA, 'the same texts, in the same order')
  // PostgreSQL sends a's notices back to a too, in commit order: once b has heard a later
  // one, a has had its echoes of these. It skips them: it heard each once, from `delivered`.
  const heardBefore = onA.length
  await publishAll(a, cookie, ['a later one'])
  t.ok((await eventually(async () => onB.length, n => n === heardBefore + 1)).ms < Infinity, 'b heard the later one')
  t.equal(onA.length, heardBefore + 1, 'a heard each of its own notices once')
})

/**
 * Publishes arriving together are one statement; how it failed decides what happens to
 * them. The first statement of several publishes is made to fail, as the database or the
 * network would fail it.
 */
t.test('a failed statement: refused, each is written again alone; outcome unknown, none is', async t => {
  const app = await build(t)
  const cookie = await setUp(app)
  // Where knex hands a statement to the driver (pg or PGlite).
  const client = app.db.client as { _query: (connection: unknown, query: { sql: string, bindings: unknown[] }) => Promise<unknown> }
  const query = client._query.bind(client)
  let failWith: Error | undefined
  let failed: string[] | undefined
  let hold: Promise<void> | undefined
  client._query = async (connection, statement) => {
    if (statement.sql.includes('with s as (insert into "shoutbox_shouts"')) {
      const messages = (JSON.parse(statement.bindings[0] as string) as Array<{ message: string }>).map(shout => shout.message)
      if (failWith !== undefined && messages.length > 1) {
        const error = failWith
        failWith = undefined
        failed = messages
        throw error
      }
      const held = hold
      hold = undefined
      await held
    }
    return query(connection, statement)
  }
  t.teardown(() => { client._query = query })
  // Counts the publishes that reached the publisher's queue.
  const enqueue = Publisher.prototype.publish
  let queued = 0
  let onQueued = (): void => {}
  Publisher.prototype.publish = function (...args) {
    queued++
    onQueued()
    return enqueue.apply(this, args)
  }
  t.teardown(() => { Publisher.prototype.publish = enqueue })
  /** Resolves once `count` more publishes are queued. */
  const queuedMore = (count: number): Promise<void> => {
    const target = queued + count
    return new Promise(resolve => {
      onQueued = () => { if (queued >= target) resolve() }
    })
  }
  const storedTimes = async (message: string) => (await shoutsRepository(app.db).list(null)).filter(s => s.message === message).length

  const cases: Array<[string, Error, 'retried' | 'refused']> = [
    ['a check violated', Object.assign(new Error('violates check constraint'), { code: '23514', severity: 'ERROR' }), 'retried'],
    ['a trigger\'s exception', Object.assign(new Error('injected'), { code: 'P0001', severity: 'ERROR' }), 'retried'],
    ['a deadlock', Object.assign(new Error('deadlock detected'), { code: '40P01', severity: 'ERROR' }), 'retried'],
    ['the connection lost', new Error('Connection terminated unexpectedly'), 'refused'],
    ['a broken pipe', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }), 'refused'],
    ['the server shutting down', Object.assign(new Error('terminating connection'), { code: '57P01', severity: 'FATAL' }), 'refused'],
    ['the outcome unknown', Object.assign(new Error('statement completion unknown'), { code: '40003', severity: 'ERROR' }), 'refused'],
    ['the disk full', Object.assign(new Error('could not extend file'), { code: '53100', severity: 'ERROR' }), 'refused']
  ]
  for (const [label, error, outcome] of cases) {
    failed = undefined
    // A first publish's statement is held until the five are queued, so they go together next.
    for (let attempt = 1; attempt <= 3 && failed === undefined; attempt++) {
      hold = queuedMore(6)
      const first = publishAll(app, cookie, [`${label} ${attempt}: first`])
      failWith = error
      const messages = Array.from({ length: 5 }, (_, i) => `${label} ${attempt}: ${i}`)
      const answers = await publishAll(app, cookie, messages)
      await first
      failWith = undefined
      if (failed === undefined) continue
      const inFailed = new Set(failed)
      for (const [i, message] of messages.entries()) {
        const status = answers[i]!.statusCode
        if (!inFailed.has(message)) t.equal(status, 200, `${label}: ${message}, not in that statement, stored`)
        else if (outcome === 'retried') t.same([status, await storedTimes(message)], [200, 1], `${label}: ${message} written again alone, once`)
        else t.same([status >= 500, await storedTimes(message)], [true, 0], `${label}: ${message} an error (${status}), nothing written again`)
      }
    }
    const together = failed as string[] | undefined // set by the driver hook above
    t.ok(together !== undefined && together.length > 1, `${label}: publishes arriving together were one statement`)
  }
})
