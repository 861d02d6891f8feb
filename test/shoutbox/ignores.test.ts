import t, { type Test } from 'tap'
import { answer, as, error, type Inject } from '../helpers/requests.js'
import { build, setUp, type App } from '../helpers/app.js'
import { DB_KIND, testDatabase } from '../helpers/database.js'
import { account, memberRoleId, roleWith } from '../helpers/identity.js'
import { IGNORE_CHANGES_PER_MINUTE, MAX_IGNORED } from '../../src/shoutbox/ignores.js'
import { Mentions } from '../../src/shoutbox/mentions.js'

/** CONTRACT §16: ignore lists, kept by the shoutbox and applied on the server to the ignorer's answers; §23: no account named that the caller could not see. */

const MOD_NODE = 'addon.shoutbox.manage.shoutbox'

async function board (t: Test, app?: App) {
  app ??= await build(t)
  const admin = await setUp(app)
  await as(app, admin).put('/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 })
  const modRole = await roleWith(app, admin, 'moderators', ['panel.access', MOD_NODE])
  const mira = await account(app, admin, 'mira')
  const spammy = await account(app, admin, 'spammy')
  const mod = await account(app, admin, 'mod', modRole)
  const users = (await as(app, admin).get('/api/panel/users')).json().users as Array<{ id: number, username: string }>
  const idOf = (name: string) => users.find(user => user.username === name)!.id
  const say = async (cookie: string, message: string, replyTo?: number) => {
    const posted = await as(app, cookie).post('/api/shoutbox', { message, ...(replyTo === undefined ? {} : { replyTo }) })
    if (posted.statusCode !== 200) throw new Error(posted.body)
    return posted.json().shout as { id: number }
  }
  return { app, admin, mira, spammy, mod, idOf, say }
}

const messages = (response: Inject): string[] => (response.json().shouts as Array<{ message: string }>).map(shout => shout.message)

t.test('an ignored member\'s shouts leave the ignorer\'s answers; ?ignored=show keeps them; others see everything', async t => {
  const { app, mira, spammy, idOf, say } = await board(t)
  await say(mira, 'Hello from mira')
  await say(spammy, 'BUY CHEAP followers')
  await say(spammy, 'cheap cheap cheap')
  t.same(answer(await as(app, mira).get('/api/users/me/ignored')), [200, { result: 'ok', ignored: [] }])
  t.same(answer(await as(app, mira).put(`/api/users/me/ignored/${idOf('spammy')}`)), [200, { result: 'ok', ignored: [{ userId: idOf('spammy'), username: 'spammy' }] }])
  t.same((await as(app, mira).put(`/api/users/me/ignored/${idOf('spammy')}`)).json().ignored.length, 1, 'ignoring twice is once')
  t.same(messages(await as(app, mira).get('/api/shoutbox/latest')), ['Hello from mira'], 'the latest')
  t.same(messages(await as(app, mira).get('/api/shoutbox/archive')), ['Hello from mira'], 'the archive')
  t.same(messages(await as(app, mira).get('/api/shoutbox/rooms/general/shouts?q=cheap')), [], 'a search')
  t.same(messages(await as(app, mira).get('/api/shoutbox/archive?ignored=show')), ['cheap cheap cheap', 'BUY CHEAP followers', 'Hello from mira'], '?ignored=show keeps them')
  t.same(messages(await as(app, mira).get('/api/shoutbox/latest?ignored=show')).length, 3)
  t.same(messages(await as(app, undefined).get('/api/shoutbox/archive')).length, 3, 'a visitor sees every shout')
  t.same(messages(await as(app, spammy).get('/api/shoutbox/archive')).length, 3, 'and so does the one ignored, who is not told')
  t.equal((await as(app, undefined).get('/api/shoutbox/list')).json().shouts.length, 3, 'the seed\'s list is everyone\'s')
  const refused = await as(app, mira).get('/api/shoutbox/archive?ignored=maybe')
  t.same([refused.statusCode, refused.json().error], [400, 'BAD_REQUEST'])
  t.same(answer(await as(app, mira).delete(`/api/users/me/ignored/${idOf('spammy')}`)), [200, { result: 'ok', ignored: [] }])
  t.same(messages(await as(app, mira).get('/api/shoutbox/latest')).length, 3, 'no longer ignored: back')
})

t.test('ignore cannot hide staff, nor oneself, nor nobody; the list is bounded', async t => {
  const { app, admin, mira, spammy, mod, idOf, say } = await board(t)
  // Each has a shout on the board: the member has seen them.
  for (const who of [mod, admin, spammy]) await say(who, 'hello')
  t.same(answer(await as(app, mira).put(`/api/users/me/ignored/${idOf('mod')}`)), [403, error('NO_PERMISSION')], 'a moderator')
  t.same(answer(await as(app, mira).put(`/api/users/me/ignored/${idOf('admin')}`)), [403, error('NO_PERMISSION')], 'an administrator')
  t.same((await as(app, mira).put(`/api/users/me/ignored/${idOf('mira')}`)).statusCode, 400, 'oneself')
  t.same(answer(await as(app, mira).put('/api/users/me/ignored/999999')), [404, error('NOT_FOUND')], 'nobody')
  for (const bad of ['abc', '-1', '1'.repeat(10)]) t.equal((await as(app, mira).put(`/api/users/me/ignored/${bad}`)).statusCode, 400, `not an id: ${bad}`)
  t.same(answer(await as(app, undefined).get('/api/users/me/ignored')), [401, error('NOT_LOGGED_IN')], 'a visitor has no list')
  const forged = await app.inject({ method: 'PUT', url: `/api/users/me/ignored/${idOf('spammy')}`, headers: { cookie: mira, origin: 'https://evil.example' } })
  t.equal(forged.statusCode, 403, 'another site cannot make a member ignore someone')
  t.same((await as(app, mira).get('/api/users/me/ignored')).json().ignored, [], 'nothing was added')
  // The list is bounded: rows written straight, to the limit.
  const miraId = idOf('mira')
  await app.db('shoutbox_ignores').insert(Array.from({ length: MAX_IGNORED }, (_, i) => ({ user_id: miraId, ignored_id: 100_000 + i, created_at: i })))
  t.same(answer(await as(app, mira).put(`/api/users/me/ignored/${idOf('spammy')}`)), [409, error('IGNORE_LIST_FULL', { max: MAX_IGNORED })], `past ${MAX_IGNORED}`)
  t.same((await as(app, mira).get('/api/users/me/ignored')).json().ignored, [], 'accounts that do not exist are not listed')
})

t.test('a mention from someone ignored notifies nobody; the author lookup is for readers of the room', async t => {
  const { app, admin, mira, spammy, mod, idOf, say } = await board(t)
  await say(spammy, 'hello')
  t.equal((await as(app, mira).put(`/api/users/me/ignored/${idOf('spammy')}`)).statusCode, 200)
  await say(spammy, '@mira look at my offer')
  await say(spammy, '@mod look at my offer')
  await Mentions.of(app.addons.runtimes.get('shoutbox')!.ctx).settled()
  t.same((await as(app, mira).get('/api/notifications')).json().unread, 0, 'ignored: no notification')
  t.same((await as(app, mod).get('/api/notifications')).json().unread, 1, 'one who does not ignore them is told')
  const shout = await say(spammy, 'whose is this?')
  t.same(answer(await as(app, mira).get(`/api/shoutbox/shouts/${shout.id}/author`)), [200, { result: 'ok', author: { userId: idOf('spammy'), username: 'spammy', moderator: false } }])
  t.same(answer(await as(app, undefined).get(`/api/shoutbox/shouts/${shout.id}/author`)), [401, error('NOT_LOGGED_IN')])
  t.same(answer(await as(app, mira).get('/api/shoutbox/shouts/999999/author')), [404, error('NOT_FOUND')])
  // A shout of a room the member may not read: as none.
  await as(app, admin).post('/api/panel/shoutbox/rooms', { slug: 'staff', name: 'Staff', read: 'panel.access', post: 'panel.access' })
  const hidden = (await as(app, admin).post('/api/shoutbox/rooms/staff/shouts', { message: 'staff only' })).json().shout as { id: number }
  const asked = await as(app, mira).get(`/api/shoutbox/shouts/${hidden.id}/author`)
  t.same(answer(asked), [404, error('NOT_FOUND')], 'a staff room\'s shout: 404, as for none')
})

t.test('attack: ids tried one after another name only accounts the member has seen on the board; unknown, disabled, bots and quiet staff answer alike', async t => {
  const { app, admin, mira, spammy, mod, say } = await board(t)
  const gone = await account(app, admin, 'gone')
  await account(app, admin, 'quiet')
  const bot = await as(app, admin).post('/api/panel/users', { username: 'deploybot', email: 'deploybot@example.org', roleId: await memberRoleId(app, admin), bot: true })
  t.equal(bot.statusCode, 200)
  for (const who of [spammy, mod, gone]) await say(who, 'hello')
  // The administrator writes only in a staff room the member cannot read.
  await as(app, admin).post('/api/panel/shoutbox/rooms', { slug: 'staff', name: 'Staff', read: 'panel.access', post: 'panel.access' })
  t.equal((await as(app, admin).post('/api/shoutbox/rooms/staff/shouts', { message: 'staff only' })).statusCode, 200)
  const goneShout = await say(gone, 'my last words')
  const users = (await as(app, admin).get('/api/panel/users')).json().users as Array<{ id: number, username: string }>
  const idOf = (name: string) => users.find(user => user.username === name)!.id
  t.equal((await as(app, admin).put(`/api/panel/users/${idOf('gone')}`, { disabled: true })).statusCode, 200)

  const tried: Record<string, unknown> = {}
  const top = Math.max(...users.map(user => user.id))
  for (const id of [...users.map(user => user.id), top + 1, top + 1000]) {
    const name = users.find(user => user.id === id)?.username ?? `unknown ${id}`
    tried[name] = answer(await as(app, mira).put(`/api/users/me/ignored/${id}`))
  }
  const none = [404, error('NOT_FOUND')]
  t.same(tried, {
    admin: none, // staff who never wrote where the member reads
    mira: [400, error('BAD_REQUEST', { reason: 'one cannot ignore oneself' })],
    spammy: [200, { result: 'ok', ignored: [{ userId: idOf('spammy'), username: 'spammy' }] }],
    mod: [403, error('NO_PERMISSION')], // seen on the board, and its author lookup says `moderator: true`
    gone: none, // seen, then disabled
    quiet: none, // never wrote
    deploybot: none,
    [`unknown ${top + 1}`]: none,
    [`unknown ${top + 1000}`]: none
  }, 'only spammy is named; every other account is answered as none')

  t.same(answer(await as(app, mira).get(`/api/shoutbox/shouts/${goneShout.id}/author`)), [404, error('NOT_FOUND')], 'a disabled author\'s shout: its author is none to a member, as a deleted account\'s')
  t.match(answer(await as(app, mod).get(`/api/panel/shoutbox/${goneShout.id}/author`)), [200, { author: { userId: idOf('gone'), username: 'gone' } }], 'staff still see the disabled account')
  for (const id of [idOf('gone'), idOf('quiet'), top + 1]) {
    t.same(answer(await as(app, mira).delete(`/api/users/me/ignored/${id}`)), [200, { result: 'ok', ignored: [{ userId: idOf('spammy'), username: 'spammy' }] }], 'DELETE answers the list as it is, whoever the id is')
  }
  // An ignored account disabled later leaves the list as a deleted one would, and comes back with the account.
  await as(app, admin).put(`/api/panel/users/${idOf('spammy')}`, { disabled: true })
  t.same(answer(await as(app, mira).get('/api/users/me/ignored')), [200, { result: 'ok', ignored: [] }])
  t.same(answer(await as(app, mira).put(`/api/users/me/ignored/${idOf('spammy')}`)), none, 'and is none to ignore')
  await as(app, admin).put(`/api/panel/users/${idOf('spammy')}`, { disabled: false })
  t.same((await as(app, mira).get('/api/users/me/ignored')).json().ignored, [{ userId: idOf('spammy'), username: 'spammy' }])
})

t.test(`attack: a member changes their ignore list more than ${IGNORE_CHANGES_PER_MINUTE} times a minute, through every process`, async t => {
  // On PostgreSQL, two processes of one database take turns; the embedded database belongs to one process.
  const db = DB_KIND === 'postgres' ? await testDatabase() : undefined
  if (db !== undefined) t.teardown(() => db.drop())
  const a = await build(t, db === undefined ? {} : { db })
  const { admin, mira, spammy, idOf, say } = await board(t, a)
  const b = db === undefined ? a : await build(t, { db })
  await say(spammy, 'hello')
  const answers: Array<[number, unknown]> = []
  let retryAfter = 0
  for (let i = 0; i < IGNORE_CHANGES_PER_MINUTE + 10; i++) {
    const app = i % 2 === 0 ? a : b
    const url = `/api/users/me/ignored/${i % 3 === 0 ? idOf('spammy') : 900_000 + i}`
    const response = i % 4 < 2 ? await as(app, mira).put(url) : await as(app, mira).delete(url)
    if (response.statusCode === 429) retryAfter = Math.max(retryAfter, Number(response.headers['retry-after']))
    answers.push(answer(response))
  }
  t.notOk(answers.slice(0, IGNORE_CHANGES_PER_MINUTE).some(([status]) => status === 429), `the first ${IGNORE_CHANGES_PER_MINUTE} are answered (200 or 404)`)
  t.same(answers.slice(IGNORE_CHANGES_PER_MINUTE), Array.from({ length: 10 }, () => [429, error('TOO_MANY_REQUESTS')]), 'the rest: 429, on either process')
  t.ok(retryAfter >= 1 && retryAfter <= 60, `with Retry-After (${retryAfter} s)`)
  const before = (await as(a, mira).get('/api/users/me/ignored')).json()
  t.same(answer(await as(b, mira).delete(`/api/users/me/ignored/${idOf('spammy')}`)), [429, error('TOO_MANY_REQUESTS')])
  t.same((await as(a, mira).get('/api/users/me/ignored')).json(), before, 'a refused change changes nothing')
  const omar = await account(a, admin, 'omar')
  t.equal((await as(b, omar).put(`/api/users/me/ignored/${idOf('spammy')}`)).statusCode, 200, 'another member has their own allowance')
})
