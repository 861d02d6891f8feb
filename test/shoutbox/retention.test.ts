import pg from 'pg'
import t from 'tap'
import { MAX_PRUNED_PER_RUN, Retention } from '../../src/shoutbox/retention.js'
import { RETENTION_LOCK } from '../../src/shoutbox/tables.js'
import { ShoutboxSettings } from '../../src/shoutbox/settings.js'
import { shoutsRepository } from '../../src/shoutbox/shouts-repository.js'
import { build, setUp, type App } from '../helpers/app.js'
import { DB_KIND, TEST_DATABASE_URL, testDatabase } from '../helpers/database.js'
import { eventually } from '../helpers/eventually.js'
import { answered } from '../helpers/shouts.js'
import { connectSse } from '../helpers/sse.js'
import type { FullShout as Shout } from '../helpers/types.js'

const DAY = 86_400_000
const retention = (app: App) => Retention.of(app.addons.runtimes.get('shoutbox')!.ctx)
const configure = (app: App, cookie: string, payload: Record<string, unknown>) =>
  app.inject({ method: 'PUT', url: '/panel/api/shoutbox/config', headers: { cookie }, payload })
/** Shouts dated `days` ago, written straight into the table as an old board would hold them. */
async function storeOld (app: App, days: number, count: number, prefix = 'old'): Promise<void> {
  await app.db.raw(`insert into shoutbox_shouts (message, username, date)
    select ? || ' ' || n, 'admin', ? from generate_series(1, ?) as n`, [prefix, Date.now() - days * DAY, count])
}
/**
 * The shouts as stored, newest first, as the archive and the pinned shouts show them (the
 * list's four fields, then the room, replyTo and reactions: CONTRACT §15, §16); every one
 * here is the default room's, answers none and has no reactions.
 */
const stored = async (app: App): Promise<Shout[]> => (await app.db('shoutbox_shouts').orderBy('id', 'desc').select('id', 'message', 'username', 'date'))
  .map(row => answered(row))
const prunedEntries = async (app: App) => app.db('activity_logs').where({ type: 'PRUNED_SHOUTS' }).orderBy('id')
const listed = async (app: App): Promise<string> => (await app.inject({ url: '/api/shoutbox/list' })).body
const rebuilt = async (app: App): Promise<string> => JSON.stringify({ result: 'ok', shouts: await shoutsRepository(app.db).list(null) })

/** CONTRACT §14: retention (keepDays) and PRUNED_SHOUTS. */
t.test('retention', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const address = await app.listen({ port: 0, host: '127.0.0.1' })

  t.test('keepDays null (the default): nothing is ever pruned', async t => {
    await storeOld(app, 4000, 2, 'ancient')
    t.same(await retention(app).run(), { ran: true, pruned: 0 })
    t.equal((await stored(app)).length, 2)
    t.same(await prunedEntries(app), [])
    await app.db('shoutbox_shouts').delete()
  })

  t.test('with keepDays, older shouts leave the list, the archive and the streams; pinned ones and newer ones stay; one PRUNED_SHOUTS entry', async t => {
    await storeOld(app, 40, 3, 'old')
    await storeOld(app, 29, 1, 'recent')
    await app.inject({ method: 'POST', url: '/panel/api/shoutbox', headers: { cookie: admin }, payload: { message: 'new' } })
    const before = await stored(app)
    const oldOnes = before.filter(s => s.message.startsWith('old'))
    const keptPinned = oldOnes[0]!
    t.equal((await app.inject({ method: 'PUT', url: `/panel/api/shoutbox/${keptPinned.id}/pin`, headers: { cookie: admin }, payload: { pinned: true } })).statusCode, 200)
    t.equal((await configure(app, admin, { keepDays: 30 })).statusCode, 200)
    await listed(app)
    const stream = connectSse(`${address}/api/shoutbox/stream`)
    t.teardown(() => stream.close())
    await stream.next(e => e.event === 'ready')

    t.same(await retention(app).run(), { ran: true, pruned: 2 })

    const after = await stored(app)
    t.same(after, before.filter(s => !oldOnes.slice(1).some(o => o.id === s.id)), 'the two unpinned old shouts are gone')
    t.equal(await listed(app), await rebuilt(app), 'the list shows what the database holds')
    t.same((await app.inject({ url: '/api/shoutbox/archive' })).json(), { result: 'ok', shouts: after, next: null })
    t.same((await app.inject({ url: '/api/shoutbox/pinned' })).json(), { result: 'ok', shouts: [keptPinned] }, 'the pinned one stays')
    for (const gone of oldOnes.slice(1)) {
      t.equal((await app.inject({ url: `/api/shoutbox/shouts/${gone.id}` })).statusCode, 404)
    }
    // Recorded in id order: the older of the two first.
    await stream.next(e => e.event === 'shout-deleted' && JSON.parse(e.data).id === oldOnes[1]!.id)
    t.same(stream.events.filter(e => e.event === 'shout-deleted').map(e => e.data), [`{"id":${oldOnes[2]!.id},"room":"general"}`, `{"id":${oldOnes[1]!.id},"room":"general"}`],
      'each pruned shout is a shout-deleted event on the live stream, by its id and room alone')

    const entries = await prunedEntries(app)
    t.same(entries.map(e => [e.user_id, e.username, e.addon_id, e.details]), [[null, null, 'shoutbox', { count: 2 }]])
    const en = await app.inject({ url: '/api/panel/logs/activity?locale=en', headers: { cookie: admin } })
    t.match(en.json().logs[0], { type: 'PRUNED_SHOUTS', userId: null, username: null, addonId: 'shoutbox', details: { count: 2 }, text: 'Shouts older than the retention period deleted: 2' })
    const tr = await app.inject({ url: '/api/panel/logs/activity?locale=tr', headers: { cookie: admin } })
    t.equal(tr.json().logs[0].text, 'Saklama süresini aşan duyurular silindi: 2')
  })

  t.test('a pruned shout\'s text leaves the stream\'s history, as a deleted one\'s does', async t => {
    const secret = 'pruned, and never to be replayed'
    await app.inject({ method: 'POST', url: '/panel/api/shoutbox', headers: { cookie: admin }, payload: { message: secret } })
    const [{ id }] = await app.db('shoutbox_shouts').where({ message: secret }).select('id')
    await app.db('shoutbox_shouts').where({ id }).update({ date: Date.now() - 31 * DAY })
    t.same(await retention(app).run(), { ran: true, pruned: 1 })
    const rows: Array<{ kind: string, shout: Record<string, unknown> }> = await app.db('shoutbox_events').orderBy('id').select('kind', 'shout')
    t.notOk(JSON.stringify(rows).includes(secret), 'no event holds its text')
    t.same(rows.filter(row => Number(row.shout.id) === Number(id)).map(row => [row.kind, row.shout]), [['shout-deleted', { id: Number(id), room: 'general' }]])
    const replayed = connectSse(`${address}/api/shoutbox/stream`, { 'last-event-id': '0' })
    t.teardown(() => replayed.close())
    const deleted = await replayed.next(e => e.event === 'shout-deleted' && JSON.parse(e.data).id === Number(id))
    t.equal(deleted.data, `{"id":${Number(id)},"room":"general"}`)
    t.notOk(JSON.stringify(replayed.events).includes(secret), 'a replay from the start never sends it')
  })

  t.test('a run with nothing to prune writes no entry', async t => {
    t.same(await retention(app).run(), { ran: true, pruned: 0 })
    t.equal((await prunedEntries(app)).length, 2)
  })

  t.test(`a run prunes at most ${MAX_PRUNED_PER_RUN} shouts, oldest first; each run that deleted something writes exactly one entry`, async t => {
    await storeOld(app, 400, MAX_PRUNED_PER_RUN, 'older')
    await storeOld(app, 300, 5, 'less old')
    await listed(app)
    t.same(await retention(app).run(), { ran: true, pruned: MAX_PRUNED_PER_RUN })
    t.same((await stored(app)).filter(s => s.message.startsWith('older') || s.message.startsWith('less old')).map(s => s.message.split(' ')[0]), Array(5).fill('less'))
    t.same(await retention(app).run(), { ran: true, pruned: 5 })
    t.same(await retention(app).run(), { ran: true, pruned: 0 })
    t.same((await prunedEntries(app)).map(e => e.details), [{ count: 2 }, { count: 1 }, { count: MAX_PRUNED_PER_RUN }, { count: 5 }])
    t.equal(await listed(app), await rebuilt(app), 'the list follows')
  })
})

t.test('a process prunes when it starts (and then every hour)', async t => {
  const db = await testDatabase({ persistent: true })
  t.teardown(() => db.drop())
  const first = await build(t, { db })
  const admin = await setUp(first)
  await configure(first, admin, { keepDays: 7 })
  await storeOld(first, 8, 4)
  await first.close()
  const second = await build(t, { db })
  await eventually(async () => (await stored(second)).length, n => n === 0) // the run at start is not awaited by build()
  t.same(await stored(second), [], 'pruned by the run at start')
  t.same((await prunedEntries(second)).map(e => e.details), [{ count: 4 }])
})

t.test('two processes on one PostgreSQL: one prunes at a time, one entry per run', { skip: DB_KIND !== 'postgres' && 'the embedded database belongs to one process: this runs on PostgreSQL' }, async t => {
  const db = await testDatabase()
  t.teardown(() => db.drop())
  const a = await build(t, { db })
  const admin = await setUp(a)
  const b = await build(t, { db })
  await configure(a, admin, { keepDays: 30 })
  // b follows the change notice, not the database: wait until it has heard.
  const settingsOf = (app: App) => ShoutboxSettings.of(app.addons.runtimes.get('shoutbox')!.ctx)
  if ((await eventually(() => settingsOf(b).current(), settings => settings.keepDays === 30)).ms === Infinity) throw new Error('b never heard of keepDays 30')

  t.test('while another process holds the lock, a run does nothing', async t => {
    await storeOld(a, 31, 20)
    const other = new pg.Client({ connectionString: TEST_DATABASE_URL })
    await other.connect()
    t.teardown(() => other.end())
    await other.query('begin')
    await other.query('select pg_advisory_xact_lock($1, hashtext($2))', [RETENTION_LOCK, db.schema])
    t.same(await Promise.all([retention(a).run(), retention(b).run()]), [{ ran: false, pruned: 0 }, { ran: false, pruned: 0 }])
    t.equal((await stored(a)).length, 20)
    await other.query('rollback')
    t.same(await retention(b).run(), { ran: true, pruned: 20 })
  })

  t.test('runs started together in both: exactly one prunes, one entry', async t => {
    for (let round = 1; round <= 5; round++) {
      await storeOld(a, 31, 30)
      const runs = await Promise.all([retention(a).run(), retention(b).run()])
      t.equal(runs.reduce((sum, run) => sum + run.pruned, 0), 30, `round ${round}: every old shout pruned once`)
      t.equal(runs.filter(run => run.pruned > 0).length, 1, `round ${round}: by one process (${JSON.stringify(runs)})`)
      t.equal((await stored(a)).length, 0)
    }
    t.same((await prunedEntries(a)).map(e => e.details), [{ count: 20 }, ...Array(5).fill({ count: 30 })])
  })
})
