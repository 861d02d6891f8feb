import t from 'tap'
import { answer, as, error } from '../helpers/requests.js'
import { build, login, setUp, ADMIN } from '../helpers/app.js'
import { account, ACCOUNT_PASSWORD, roleWith } from '../helpers/identity.js'
import { connectSse, type SseClient } from '../helpers/sse.js'
import { eventually } from '../helpers/eventually.js'
import { DB_KIND, testDatabase } from '../helpers/database.js'
import { FRAME_EVERY_MS } from '../../src/shoutbox/presence/presence.js'

/** Who is here: presence per room, across processes, coalesced on the stream, only for rooms the caller may read. */

const MOD_NODE = 'addon.shoutbox.manage.shoutbox'

interface Here { members: Array<{ username: string, since: number }>, guests: number }

const app = await build(t, { config: { streamOpensPerMinute: 10_000, streamsPerClient: 1000 } })
const admin = await setUp(app)
const mod = await account(app, admin, 'mod', await roleWith(app, admin, 'moderators', ['panel.access', MOD_NODE]))
const mira = await account(app, admin, 'mira')
const omar = await account(app, admin, 'omar')
await as(app, admin).post('/api/panel/shoutbox/rooms', { slug: 'staff', name: 'Staff', read: 'panel.access' })
const base = await app.listen({ port: 0, host: '127.0.0.1' })

const open = (rooms: string, cookie?: string): SseClient => connectSse(`${base}/api/shoutbox/stream?rooms=${rooms}`, cookie === undefined ? {} : { cookie }, { presence: true })
const here = async (room: string, cookie?: string): Promise<Here> => {
  const { result: _, ...presence } = (await as(app, cookie).get(`/api/shoutbox/rooms/${room}/presence`)).json()
  return presence as Here
}
const names = (presence: Here): string[] => presence.members.map(member => member.username)

t.test('who has a room open: members by name (once each), visitors counted', async t => {
  t.same(answer(await as(app, undefined).get('/api/shoutbox/rooms/general/presence')), [200, { result: 'ok', members: [], guests: 0 }])
  const streams = [open('general', mira), open('general', mira), open('general', omar), open('general'), open('general')]
  t.teardown(() => { for (const stream of streams) stream.close() })
  await Promise.all(streams.map(stream => stream.next(e => e.event === 'ready', 20_000)))
  const { value } = await eventually(() => here('general'), presence => presence.members.length === 2 && presence.guests === 2)
  t.same(names(value).sort(), ['mira', 'omar'], 'two tabs of one member count once')
  t.ok(value.members.every(member => typeof member.since === 'number' && member.since <= Date.now()))
  const frame = await streams[3]!.next(e => e.event === 'presence' && JSON.parse(e.data).members.length === 2, 20_000)
  t.notOk('id' in frame && frame.id !== undefined, 'not in the history: no id')
  t.match(JSON.parse(frame.data), { room: 'general', guests: 2 })
  for (const stream of streams) stream.close()
  await eventually(() => here('general'), presence => presence.members.length === 0 && presence.guests === 0)
})

t.test('showPresence off: counted among guests, not named', async t => {
  t.same(answer(await as(app, mira).get('/api/shoutbox/me/presence')), [200, { result: 'ok', showPresence: true }])
  t.same(answer(await as(app, mira).put('/api/shoutbox/me/presence', { showPresence: false })), [200, { result: 'ok', showPresence: false }])
  t.teardown(async () => { await as(app, mira).put('/api/shoutbox/me/presence', { showPresence: true }) })
  t.equal((await as(app, undefined).get('/api/shoutbox/me/presence')).statusCode, 401)
  t.equal((await as(app, mira).put('/api/shoutbox/me/presence', { showPresence: 'no' })).statusCode, 400)
  const streams = [open('general', mira), open('general', omar)]
  t.teardown(() => { for (const stream of streams) stream.close() })
  const { value } = await eventually(() => here('general'), presence => presence.members.length + presence.guests === 2)
  t.same(value, { members: [{ username: 'omar', since: value.members[0]!.since }], guests: 1 })
  await as(app, mira).put('/api/shoutbox/me/presence', { showPresence: true })
  await eventually(() => here('general'), presence => presence.members.length === 2)
})

t.test('attack: presence of a hidden room — 404 as for none, no frame to those who may not read it', async t => {
  const staffStream = open('staff', mod)
  const visitor = open('general,staff')
  const member = open('general,staff', mira)
  t.teardown(() => { staffStream.close(); visitor.close(); member.close() })
  await Promise.all([staffStream, visitor, member].map(stream => stream.next(e => e.event === 'ready', 20_000)))
  t.same(answer(await as(app, undefined).get('/api/shoutbox/rooms/staff/presence')), [404, error('NOT_FOUND')])
  t.same(answer(await as(app, mira).get('/api/shoutbox/rooms/staff/presence')), [404, error('NOT_FOUND')])
  t.same(answer(await as(app, undefined).get('/api/shoutbox/rooms/nowhere/presence')), [404, error('NOT_FOUND')])
  const { value } = await eventually(() => here('staff', mod), presence => presence.members.length === 1)
  t.same(names(value), ['mod'])
  await staffStream.next(e => e.event === 'presence' && JSON.parse(e.data).room === 'staff', 20_000)
  await visitor.next(e => e.event === 'presence' && JSON.parse(e.data).room === 'general', 20_000)
  await member.next(e => e.event === 'presence' && JSON.parse(e.data).room === 'general', 20_000)
  for (const stream of [visitor, member]) {
    t.notOk(stream.events.some(e => e.event === 'presence' && JSON.parse(e.data).room === 'staff'), 'a reader who may not read the room hears nothing of it')
    t.notOk(stream.events.some(e => e.data.includes('"mod"')), 'nor who is in it')
  }
})

t.test('a page that says which room it shows is here in that room alone, and hears of that room alone', async t => {
  await as(app, admin).post('/api/panel/shoutbox/rooms', { slug: 'games', name: 'Games' })
  const showing = (room: string, cookie?: string): SseClient => connectSse(`${base}/api/shoutbox/stream?showing=${room}`, cookie === undefined ? {} : { cookie }, { presence: true })
  // The widget's stream hears every room (for its unread counts) and shows one.
  const onGeneral = showing('general', omar)
  const onGames = showing('games')
  const everywhere = connectSse(`${base}/api/shoutbox/stream`, {}, { presence: true })
  t.teardown(() => { onGeneral.close(); onGames.close(); everywhere.close() })
  await Promise.all([onGeneral, onGames, everywhere].map(stream => stream.next(e => e.event === 'ready', 20_000)))
  await eventually(async () => [await here('general'), await here('games')], ([general, games]) =>
    names(general!).join() === 'omar' && general!.guests === 1 && games!.members.length === 0 && games!.guests === 2)
  await onGeneral.next(e => e.event === 'presence' && JSON.parse(e.data).room === 'general' && JSON.parse(e.data).guests === 1, 20_000)
  await onGames.next(e => e.event === 'presence' && JSON.parse(e.data).room === 'games' && JSON.parse(e.data).guests === 2, 20_000)
  await everywhere.next(e => e.event === 'presence' && JSON.parse(e.data).room === 'games', 20_000)
  t.same([...new Set(onGeneral.events.filter(e => e.event === 'presence').map(e => JSON.parse(e.data).room))], ['general'], 'the page on general is told of general alone')
  t.same([...new Set(onGames.events.filter(e => e.event === 'presence').map(e => JSON.parse(e.data).room))], ['games'], 'the page on games, of games alone')
  // Shouts still reach the page of every room it hears: only presence follows the room shown.
  await as(app, admin).post('/api/shoutbox/rooms/games/shouts', { message: 'heard on general\'s page too' })
  await onGeneral.next(e => e.event === 'shout-created' && JSON.parse(e.data).room === 'games', 20_000)
  // Attack: a page that says it shows a room it may not read is here nowhere, and hears nothing of it.
  const sneaking = showing('staff', mira)
  t.teardown(() => sneaking.close())
  await sneaking.next(e => e.event === 'ready', 20_000)
  const staffWatch = open('staff', mod)
  t.teardown(() => staffWatch.close())
  await staffWatch.next(e => e.event === 'ready', 20_000)
  const { value } = await eventually(() => here('staff', mod), presence => presence.members.length === 1)
  t.same(value, { members: [{ username: 'mod', since: value.members[0]!.since }], guests: 0 }, 'mira is not counted in staff')
  t.equal((await eventually(() => here('general'), presence => !names(presence).includes('mira'))).value.members.some(m => m.username === 'mira'), false, 'nor anywhere else')
  t.notOk(sneaking.events.some(e => e.event === 'presence'), 'and hears no presence at all')
  t.equal((await as(app, undefined).get('/api/shoutbox/stream?showing=Not%20a%20room')).statusCode, 400, 'a name that cannot be a room: 400')
})

t.test('readers joining and leaving: at most one frame per room every five seconds, only when it changed', async t => {
  const watcher = open('general')
  t.teardown(() => watcher.close())
  await watcher.next(e => e.event === 'ready', 20_000)
  const started = Date.now()
  for (let round = 0; round < 8; round++) {
    const burst = Array.from({ length: 10 }, () => open('general'))
    await Promise.all(burst.map(stream => stream.next(e => e.event === 'ready', 20_000)))
    await new Promise(resolve => setTimeout(resolve, 300))
    for (const stream of burst) stream.close()
  }
  await eventually(() => here('general'), presence => presence.guests === 1)
  // Let the last change go out, then count: frames are spaced by at least FRAME_EVERY_MS.
  await watcher.next(e => e.event === 'presence' && JSON.parse(e.data).guests === 1, 20_000)
  const elapsed = Date.now() - started
  const frames = watcher.events.filter(e => e.event === 'presence')
  t.ok(frames.length >= 1)
  t.ok(frames.length <= Math.floor(elapsed / FRAME_EVERY_MS) + 1, `${frames.length} frames in ${elapsed} ms`)
  const bodies = frames.map(frame => frame.data)
  t.ok(bodies.every((body, i) => i === 0 || body !== bodies[i - 1]), 'never the same twice in a row')
})

t.test('presence across two processes', { skip: DB_KIND !== 'postgres' && 'the embedded database belongs to one process: this runs on PostgreSQL' }, async t => {
  const db = await testDatabase()
  t.teardown(() => db.drop())
  const a = await build(t, { db })
  const adminA = await setUp(a)
  await account(a, adminA, 'ada')
  const b = await build(t, { db })
  const adaB = await login(b, 'ada', ACCOUNT_PASSWORD)
  const baseA = await a.listen({ port: 0, host: '127.0.0.1' })
  const baseB = await b.listen({ port: 0, host: '127.0.0.1' })
  const hereOn = async (app: typeof a): Promise<Here> => {
    const { result: _, ...presence } = (await as(app, undefined).get('/api/shoutbox/rooms/general/presence')).json()
    return presence as Here
  }
  const onA = connectSse(`${baseA}/api/shoutbox/stream`, { cookie: adminA }, { presence: true })
  const onB = connectSse(`${baseB}/api/shoutbox/stream`, { cookie: adaB }, { presence: true })
  const visitorB = connectSse(`${baseB}/api/shoutbox/stream`, {}, { presence: true })
  t.teardown(() => { onA.close(); onB.close(); visitorB.close() })
  await Promise.all([onA, onB, visitorB].map(stream => stream.next(e => e.event === 'ready', 20_000)))
  for (const app of [a, b]) {
    const { value } = await eventually(() => hereOn(app), presence => presence.members.length === 2 && presence.guests === 1)
    t.same(names(value).sort(), ['ada', ADMIN.username], 'both processes see the readers of both')
  }
  const frame = await onA.next(e => e.event === 'presence' && JSON.parse(e.data).members.length === 2 && JSON.parse(e.data).room === 'general', 15_000)
  t.match(JSON.parse(frame.data), { room: 'general', guests: 1 }, 'a reader on A hears of readers on B')
  onB.close()
  visitorB.close()
  const { value } = await eventually(() => hereOn(a), presence => presence.members.length === 1 && presence.guests === 0)
  t.same(names(value), [ADMIN.username], 'readers who left B are gone from A too')
  // A process that stops is gone for the others.
  await b.close()
  t.same(names(await hereOn(a)), [ADMIN.username])
})
