import t from 'tap'
import { build, setUp, type App } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { account, roleWith } from '../helpers/identity.js'
import { registeredRoutes } from '../helpers/openapi.js'
import { as } from '../helpers/requests.js'
import { connectSse, type SseClient } from '../helpers/sse.js'
import { Mentions } from '../../src/shoutbox/mentions.js'
import { REPLAYS_PER_MINUTE } from '../../src/shoutbox/replay-limit.js'

/**
 * CONTRACT §22, one access policy: every path that hands out data asks what the caller may
 * see, and a token acts with what it was given — the attacks of issue 47, sent as an
 * attacker sends them: an administrator's token made for posting only (`addon.shoutbox.post`)
 * reads nothing of a staff room, on no path.
 */

const MOD_NODE = 'addon.shoutbox.manage.shoutbox'
/** Words only the staff room holds: found in an answer, they leaked. */
const STAFF_SLUG = 'qxvault'
const STAFF_NAME = 'Qxvault Room'
const STAFF_WORD = 'zanzibarsecret'

const mentionsSettled = (app: App): Promise<void> => Mentions.of(app.addons.runtimes.get('shoutbox')!.ctx).settled()

/** A board with a staff room (panel access), a clerk who reads it, members mira and omar, and the administrator's post-only token. */
async function board (app: App) {
  const admin = await setUp(app)
  await as(app, admin).put('/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 })
  const made = await as(app, admin).post('/api/panel/shoutbox/rooms', { slug: STAFF_SLUG, name: STAFF_NAME, read: 'panel.access', post: 'panel.access' })
  if (made.statusCode !== 200) throw new Error(made.body)
  const clerk = await account(app, admin, 'clerk', await roleWith(app, admin, 'clerks', ['panel.access', MOD_NODE]))
  const mira = await account(app, admin, 'mira')
  const omar = await account(app, admin, 'omar')
  const token = await as(app, admin).post('/api/users/me/tokens', { name: 'poster', permissions: ['addon.shoutbox.post'] })
  if (token.statusCode !== 200) throw new Error(token.body)
  const secret = token.json().secret as string
  const say = async (cookie: string, message: string, room = 'general'): Promise<number> => {
    const posted = await as(app, cookie).post(`/api/shoutbox/rooms/${room}/shouts`, { message })
    if (posted.statusCode !== 200) throw new Error(posted.body)
    return posted.json().shout.id as number
  }
  const bearer = (url: string) => app.inject({ url, headers: { authorization: `Bearer ${secret}` } })
  return { admin, clerk, mira, omar, secret, say, bearer }
}

const leaks = (text: string): boolean => text.toLowerCase().includes(STAFF_WORD) || text.toLowerCase().includes(STAFF_SLUG)
const seen = (client: SseClient): string => client.events.map(event => `${event.event} ${event.data}`).join('\n')

t.test('a post-only token', async t => {
  const app = await build(t)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const { admin, clerk, mira, omar, secret, say, bearer } = await board(app)
  const staffShout = await say(clerk, `@admin ${STAFF_WORD}: the ban list is in the drawer`, STAFF_SLUG)
  await say(mira, 'a public hello')
  await mentionsSettled(app)

  t.test('its stream carries no staff-room event, live or replayed (the session\'s does)', async t => {
    const byToken = connectSse(`${base}/api/shoutbox/stream`, { authorization: `Bearer ${secret}` })
    const asking = connectSse(`${base}/api/shoutbox/stream?rooms=${STAFF_SLUG},general`, { authorization: `Bearer ${secret}` })
    const bySession = connectSse(`${base}/api/shoutbox/stream`, { cookie: admin })
    t.teardown(() => { byToken.close(); asking.close(); bySession.close() })
    for (const client of [byToken, asking, bySession]) await client.next(event => event.event === 'ready')
    await say(clerk, `live ${STAFF_WORD}`, STAFF_SLUG)
    await say(mira, 'live and public')
    for (const client of [byToken, asking, bySession]) await client.next(event => event.data.includes('live and public'))
    t.ok(bySession.events.some(event => event.data.includes(`live ${STAFF_WORD}`)), 'the administrator\'s session hears the staff room')
    t.notOk(leaks(seen(byToken)), 'the token hears nothing of it')
    t.notOk(leaks(seen(asking)), 'nor when it names the room')

    const replay = connectSse(`${base}/api/shoutbox/stream?rooms=${STAFF_SLUG},general`, { authorization: `Bearer ${secret}`, 'last-event-id': '0' })
    t.teardown(() => replay.close())
    await replay.next(event => event.data.includes('live and public'))
    t.ok(replay.events.some(event => event.data.includes('a public hello')), 'the replay holds the public room\'s history')
    t.notOk(leaks(seen(replay)), 'and nothing of the staff room\'s')
  })

  t.test('its notifications leave out a staff-room mention, in the list, the count and the stream', async t => {
    const bySession = (await as(app, admin).get('/api/notifications')).json()
    t.same(bySession.notifications.map((n: { data: { shoutId: number } }) => n.data.shoutId), [staffShout], 'the session lists it')
    t.equal(bySession.unread, 1)
    const byToken = await bearer('/api/notifications')
    t.same(byToken.json(), { result: 'ok', notifications: [], unread: 0 }, 'the token neither lists nor counts it')

    const stream = connectSse(`${base}/api/notifications/stream`, { authorization: `Bearer ${secret}` })
    t.teardown(() => stream.close())
    t.same(JSON.parse((await stream.next(event => event.event === 'ready')).data), { unread: 0 })
    await say(clerk, `@admin ${STAFF_WORD} again`, STAFF_SLUG)
    await say(omar, '@admin a public question')
    await mentionsSettled(app)
    const told = await stream.next(event => event.event === 'notification')
    t.equal(JSON.parse(told.data).notification.data.excerpt, '@admin a public question')
    t.equal(JSON.parse(told.data).unread, 1, 'its unread count is the token\'s')
    t.notOk(leaks(seen(stream)))
    const read = await app.inject({ method: 'POST', url: '/api/notifications/read', headers: { authorization: `Bearer ${secret}` }, payload: { all: true } })
    t.same(read.json(), { result: 'ok', unread: 0 })
  })

  t.test('no GET route and no stream the host registers answers it anything of the staff room', async t => {
    const ids = { id: String(staffShout), slug: STAFF_SLUG, userId: '1', emoji: '👍', deliveryId: '1' }
    const routes = registeredRoutes(app).filter(route => route.method === 'GET' && !route.url.endsWith('/stream'))
    t.ok(routes.length > 30, `${routes.length} routes`)
    for (const { url } of routes) {
      const path = url.replace(/:([A-Za-z]+)/g, (_, name: keyof typeof ids) => encodeURIComponent(ids[name] ?? '1')).replace(/\*$/, '')
      for (const query of ['', `?room=${STAFF_SLUG}&rooms=${STAFF_SLUG}&q=${STAFF_WORD}&ignored=show`]) {
        const answered = await bearer(path + query)
        if (leaks(answered.body)) t.fail(`GET ${path}${query} answered ${answered.statusCode} with staff-room text`)
      }
    }
    const streams = ['/api/shoutbox/stream?lastEventId=0', `/api/shoutbox/stream?rooms=${STAFF_SLUG},general&lastEventId=0`, '/api/notifications/stream']
    for (const [index, stream] of streams.entries()) {
      const client = connectSse(base + stream, { authorization: `Bearer ${secret}` })
      t.teardown(() => client.close())
      t.equal(await client.status, 200, stream)
      await say(mira, `marker ${index}`)
      if (stream.startsWith('/api/shoutbox')) await client.next(event => event.data.includes(`marker ${index}`))
      else await client.next(event => event.event === 'ready')
      t.notOk(leaks(seen(client)), `${stream} carries nothing of the staff room`)
    }
  })
})

t.test('a room whose read is tightened takes its old mentions out of the list and the count', async t => {
  const app = await build(t)
  const { admin, mira, omar, say } = await board(app)
  const made = await as(app, admin).post('/api/panel/shoutbox/rooms', { slug: 'lounge', name: 'Lounge', read: 'signed-in' })
  const lounge = made.json().room.id as number
  await say(mira, '@omar see you in the lounge', 'lounge')
  await say(mira, '@omar and in general')
  await mentionsSettled(app)
  const before = (await as(app, omar).get('/api/notifications')).json()
  t.same(before.notifications.map((n: { data: { room: string } }) => n.data.room), ['general', 'lounge'])
  t.equal(before.unread, 2)
  t.equal((await as(app, admin).put(`/api/panel/shoutbox/rooms/${lounge}`, { read: 'panel.access' })).statusCode, 200)
  const { value: after } = await eventually(async () => (await as(app, omar).get('/api/notifications')).json(), body => body.unread === 1)
  t.same(after.notifications.map((n: { data: { room: string, excerpt: string, by: string } }) => n.data), [{ shoutId: after.notifications[0].data.shoutId, room: 'general', by: 'mira', excerpt: '@omar and in general' }],
    'its name, author and excerpt are no longer shown')
  t.notOk(JSON.stringify(after).includes('lounge'))
})

t.test(`past ${REPLAYS_PER_MINUTE} replays a minute, a client is told to reset`, async t => {
  const app = await build(t)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const { mira, say } = await board(app)
  await say(mira, 'one')
  const last = await say(mira, 'two')
  const firstEvents: string[] = []
  for (let i = 0; i <= REPLAYS_PER_MINUTE; i++) {
    const client = connectSse(`${base}/api/shoutbox/stream`, { 'last-event-id': '1' })
    const first = await client.next(() => true)
    firstEvents.push(first.event)
    client.close()
  }
  t.same(firstEvents, [...Array<string>(REPLAYS_PER_MINUTE).fill('shout-created'), 'reset'], `shout ${last} replayed ${REPLAYS_PER_MINUTE} times, then a reset`)
  const fresh = connectSse(`${base}/api/shoutbox/stream`)
  t.teardown(() => fresh.close())
  t.equal((await fresh.next(() => true)).event, 'ready', 'a stream that replays nothing is not counted, nor refused')
})

t.test('a token, even an administrator\'s with every permission, reaches no room, watched-word, role, user, setting or webhook management', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const made = await as(app, admin).post('/api/users/me/tokens', { name: 'everything', permissions: ['*'] })
  const secret = made.json().secret as string
  const refused = { result: 'error', error: 'NO_PERMISSION' }
  const attempts: Array<[string, string, Record<string, unknown>?]> = [
    ['GET', '/api/panel/shoutbox/rooms'], ['POST', '/api/panel/shoutbox/rooms', { slug: 'sneaky', name: 'Sneaky' }],
    ['PUT', '/api/panel/shoutbox/rooms/1', { name: 'Renamed' }], ['DELETE', '/api/panel/shoutbox/rooms/1'],
    ['GET', '/api/panel/shoutbox/words'], ['POST', '/api/panel/shoutbox/words', { pattern: 'sneaky', action: 'block' }], ['DELETE', '/api/panel/shoutbox/words/1'],
    ['GET', '/api/panel/shoutbox/config'], ['PUT', '/api/panel/shoutbox/config', { maxShouts: 5 }],
    ['GET', '/api/panel/roles'], ['POST', '/api/panel/roles', { name: 'Sneaky', permissions: [] }],
    ['GET', '/api/panel/users'], ['PUT', '/api/panel/users/1', { disabled: true }],
    ['GET', '/api/panel/settings'], ['PUT', '/api/panel/settings', { signUp: true }],
    ['GET', '/api/panel/webhooks'], ['POST', '/api/panel/webhooks', { url: 'https://example.org/hook', events: ['shout.created'] }]
  ]
  for (const [method, url, payload] of attempts) {
    const answered = await app.inject({ method: method as 'GET', url, headers: { authorization: `Bearer ${secret}` }, ...(payload === undefined ? {} : { payload }) })
    t.same([answered.statusCode, answered.json()], [403, refused], `${method} ${url}`)
  }
  t.same((await as(app, admin).get('/api/panel/shoutbox/rooms')).json().rooms.map((room: { slug: string }) => room.slug), ['general'], 'nothing changed')
})
