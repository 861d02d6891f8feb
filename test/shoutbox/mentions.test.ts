import t, { type Test } from 'tap'
import { answer, as, error } from '../helpers/requests.js'
import { build, setUp, type App } from '../helpers/app.js'
import { DB_KIND, testDatabase } from '../helpers/database.js'
import { eventually } from '../helpers/eventually.js'
import { account, roleWith } from '../helpers/identity.js'
import { connectSse, type SseClient } from '../helpers/sse.js'
import { Mentions, MENTIONS_PER_SHOUT } from '../../src/shoutbox/mentions.js'

/** CONTRACT §16: mentions that notify, through the host's notifications (any addon may notify): a list, an unread count, a stream per user. */

const MOD_NODE = 'addon.shoutbox.manage.shoutbox'


interface Notification { id: number, kind: string, addonId: string, data: Record<string, unknown>, createdAt: number, read: boolean }
/** Every mention of the shouts published so far has been notified (or passed over). */
const mentionsSettled = (app: App): Promise<void> => Mentions.of(app.addons.runtimes.get('shoutbox')!.ctx).settled()

const notificationsOf = async (app: App, cookie: string): Promise<{ notifications: Notification[], unread: number }> => (await as(app, cookie).get('/api/notifications')).json()

/** A board with a staff room; members mira and omar, a clerk (panel access), a moderator. */
async function board (t: Test, app?: App) {
  app ??= await build(t)
  const admin = await setUp(app)
  await as(app, admin).put('/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 })
  const made = await as(app, admin).post('/api/panel/shoutbox/rooms', { slug: 'staff', name: 'Staff', read: 'panel.access', post: 'panel.access' })
  if (made.statusCode !== 200) throw new Error(made.body)
  const mira = await account(app, admin, 'mira')
  const omar = await account(app, admin, 'omar')
  const clerk = await account(app, admin, 'clerk', await roleWith(app, admin, 'clerks', ['panel.access']))
  const mod = await account(app, admin, 'mod', await roleWith(app, admin, 'moderators', ['panel.access', MOD_NODE]))
  const say = async (cookie: string, message: string, room = 'general') => {
    const posted = await as(app, cookie).post(`/api/shoutbox/rooms/${room}/shouts`, { message })
    if (posted.statusCode !== 200) throw new Error(posted.body)
    return posted.json().shout as { id: number }
  }
  return { app, admin, mira, omar, clerk, mod, say }
}

t.test('a mention notifies the one named: the list, the unread count, marking read', async t => {
  const { app, mira, omar, say } = await board(t)
  t.same(await notificationsOf(app, omar), { result: 'ok', notifications: [], unread: 0 })
  const shout = await say(mira, 'Hey @omar, are you coming? And @OMAR again, and @nobody-here.')
  const { value } = await eventually(() => notificationsOf(app, omar), answer => answer.unread === 1)
  t.same(value.notifications.map(({ id: _, createdAt: __, ...rest }) => rest), [{
    kind: 'mention', addonId: 'shoutbox', read: false,
    data: { shoutId: shout.id, room: 'general', by: 'mira', excerpt: 'Hey @omar, are you coming? And @OMAR again, and @nobody-here.' }
  }], 'one notification, however often the name is written, in any case')
  t.ok(Math.abs(value.notifications[0]!.createdAt - Date.now()) < 60_000)
  t.same((await notificationsOf(app, mira)).notifications, [], 'the author hears nothing')
  await say(mira, 'Talking to myself, @mira')
  await say(omar, 'Thanks @mira!')
  const mine = await eventually(() => notificationsOf(app, mira), answer => answer.unread === 1)
  t.same(mine.value.notifications.map(n => n.data.excerpt), ['Thanks @mira!'], 'none for oneself')

  const id = value.notifications[0]!.id
  t.same(answer(await as(app, mira).post('/api/notifications/read', { ids: [id] })), [200, { result: 'ok', unread: 1 }], 'another user\'s id is passed over')
  t.equal((await notificationsOf(app, omar)).unread, 1)
  t.same(answer(await as(app, omar).post('/api/notifications/read', { ids: [id] })), [200, { result: 'ok', unread: 0 }])
  t.equal((await notificationsOf(app, omar)).notifications[0]!.read, true)
  await say(mira, '@omar one more')
  await eventually(() => notificationsOf(app, omar), answer => answer.unread === 1)
  t.same(answer(await as(app, omar).post('/api/notifications/read', { all: true })), [200, { result: 'ok', unread: 0 }])
  for (const body of [{}, { ids: [] }, { ids: ['1'] }, { all: false }, { ids: [1], all: true }]) {
    const refused = await as(app, omar).post('/api/notifications/read', body)
    t.same([refused.statusCode, refused.json().error], [400, 'BAD_REQUEST'], `refused: ${JSON.stringify(body)}`)
  }
  t.same(answer(await as(app, undefined).get('/api/notifications')), [401, error('NOT_LOGGED_IN')], 'a visitor has none')
})

t.test(`at most ${MENTIONS_PER_SHOUT} names count; none for who may not read the room; a deleted shout takes its notifications`, async t => {
  const { app, admin, mira, omar, clerk, mod, say } = await board(t)
  const names = ['omar', 'clerk', 'mod', 'admin']
  const others = await Promise.all(['ana', 'bo1', 'cem', 'dia'].map(name => account(app, admin, name)))
  const crowd = await say(mira, `${['@ana', '@bo1', '@cem', '@dia', '@omar', '@clerk'].join(' ')}`)
  await mentionsSettled(app)
  t.equal((await notificationsOf(app, omar)).unread, 1)
  for (const cookie of others) t.equal((await notificationsOf(app, cookie)).unread, 1)
  t.equal((await notificationsOf(app, clerk)).unread, 0, `the sixth name does not count (${MENTIONS_PER_SHOUT} at most)`)

  // In the staff room: staff hear it; a member named there hears nothing of a room they cannot read.
  const staff = await say(mod, `@${names.join(' @')} and @mira: the keys are in the drawer`, 'staff')
  await mentionsSettled(app)
  t.equal((await notificationsOf(app, clerk)).unread, 1)
  t.equal((await notificationsOf(app, admin)).unread, 1)
  t.notOk((await notificationsOf(app, mira)).notifications.some(n => n.data.shoutId === staff.id), 'a member named in the staff room is not told')
  t.notMatch((await as(app, mira).get('/api/notifications')).body, /drawer/, 'nothing of it reaches her')

  // Deleted: its notifications go.
  t.equal((await as(app, mira).delete(`/api/shoutbox/${crowd.id}`)).statusCode, 200)
  t.same(await notificationsOf(app, omar), { result: 'ok', notifications: [], unread: 0 }, 'the shout deleted, its mention is gone')
  await as(app, admin).delete(`/api/panel/shoutbox/${staff.id}`)
  t.equal((await notificationsOf(app, clerk)).unread, 0)
})

/** The next event of `kind` on `stream` after the first `seen`, parsed. */
async function nextOf (stream: SseClient, kind: string, seen: number): Promise<Record<string, unknown>> {
  const event = await stream.next(e => e.event === kind && stream.events.indexOf(e) >= seen)
  return JSON.parse(event.data)
}

t.test('attack: the notification stream of one user never carries another\'s', async t => {
  const { app, mira, omar, say } = await board(t)
  const url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api/notifications/stream`
  const visitor = connectSse(url)
  t.equal(await visitor.status, 401, 'a visitor cannot open one')
  visitor.close()
  const hers = connectSse(url, { cookie: mira })
  const his = connectSse(url, { cookie: omar })
  t.teardown(() => { hers.close(); his.close() })
  t.same(await nextOf(his, 'ready', 0), { unread: 0 })
  await nextOf(hers, 'ready', 0)
  const shout = await say(mira, 'Psst @omar, a secret for you')
  const heard = await nextOf(his, 'notification', 0)
  t.match(heard, { unread: 1, notification: { kind: 'mention', data: { shoutId: shout.id, by: 'mira' }, read: false } })
  await as(app, omar).post('/api/notifications/read', { all: true })
  t.same(await nextOf(his, 'notifications-read', 0), { unread: 0 })
  await as(app, mira).delete(`/api/shoutbox/${shout.id}`)
  t.same(await nextOf(his, 'notifications-removed', 0), { ids: [(heard.notification as { id: number }).id], unread: 0 })
  // Mira's stream heard none of it.
  await say(omar, 'and a reply to @mira')
  await nextOf(hers, 'notification', 0)
  t.same(hers.events.map(e => e.event), ['ready', 'notification'], 'her stream: her own notification alone')
  t.notOk(hers.events.some(e => e.data.includes('secret')), 'nothing of his')
  // Signing out ends the stream.
  await app.inject({ method: 'POST', url: '/api/auth/logout', headers: { cookie: omar } })
  await his.ended
  t.pass('his stream ended with his session')
})

t.test('every process: a mention posted on one is heard on the stream opened on another', { skip: DB_KIND !== 'postgres' && 'the embedded database belongs to one process: this runs on PostgreSQL' }, async t => {
  const db = await testDatabase()
  t.teardown(() => db.drop())
  const a = await build(t, { db })
  const { mira, omar, say } = await board(t, a)
  const b = await build(t, { db })
  const onB = connectSse(`${await b.listen({ port: 0, host: '127.0.0.1' })}/api/notifications/stream`, { cookie: omar })
  t.teardown(() => onB.close())
  await nextOf(onB, 'ready', 0)
  const shout = await say(mira, 'From process A, @omar')
  t.match(await nextOf(onB, 'notification', 0), { unread: 1, notification: { data: { shoutId: shout.id } } })
  await as(a, omar).post('/api/notifications/read', { all: true })
  t.same(await nextOf(onB, 'notifications-read', 0), { unread: 0 }, 'a read on A is heard on B')
})
