import t, { type Test } from 'tap'
import { answer, as, error, type Inject } from '../helpers/requests.js'
import { build, setUp, type App } from '../helpers/app.js'
import { account, roleWith } from '../helpers/identity.js'
import { connectSse } from '../helpers/sse.js'
import { REPORTS_PER_HOUR } from '../../src/shoutbox/review.js'
import { up } from '../../src/shoutbox/migrations/018-review-in-place.js'

/**
 * CONTRACT §17: held shouts, reports that hide, the review queue, and the board silencing
 * members by itself; §23: brigading, review without loss, approved then edited.
 */

const MOD_NODE = 'addon.shoutbox.manage.shoutbox'
const DAY_MS = 86_400_000

/** The accounts of `names`, made a month ago: old enough for their reports to count. */
async function age (app: App, names: readonly string[]): Promise<void> {
  await app.db('users').whereIn('username', [...names]).update({ created_at: Date.now() - 30 * DAY_MS })
}

/** Each member reports from an address of their own unless told otherwise. */
const addressOf = (cookie: string, members: Record<string, string>): string => `198.51.100.${Object.values(members).indexOf(cookie) + 10}`

async function board (t: Test, settings: Record<string, unknown> = {}) {
  const app = await build(t)
  const admin = await setUp(app)
  await as(app, admin).put('/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600, ...settings })
  const mod = await account(app, admin, 'mod', await roleWith(app, admin, 'moderators', ['panel.access', MOD_NODE]))
  const names = ['mira', 'omar', 'ayse', 'bora', 'cem', 'deniz']
  const members = Object.fromEntries(await Promise.all(names.map(async name => [name, await account(app, admin, name)] as const))) as Record<string, string>
  await age(app, names)
  const say = async (cookie: string, message: string) => {
    const posted = await as(app, cookie).post('/api/shoutbox', { message })
    if (posted.statusCode !== 200) throw new Error(posted.body)
    return posted.json().shout as { id: number, message: string, date: number, held?: true }
  }
  const watch = async (pattern: string, action: string) => t.equal((await as(app, mod).post('/api/panel/shoutbox/words', { pattern, action })).statusCode, 200)
  const queue = async () => (await as(app, mod).get('/api/panel/shoutbox/review')).json() as { items: Array<{ shout: { id: number, message: string }, state: string, why: string, reports: Array<{ reporter: string, reason: string }> }>, total: number }
  const decide = (id: number, body: Record<string, unknown>, cookie = mod) => as(app, cookie).post(`/api/panel/shoutbox/review/${id}`, body)
  const report = (cookie: string, id: number, reason = 'spam', note?: string, from = addressOf(cookie, members)) => app.inject({
    method: 'POST', url: `/api/shoutbox/shouts/${id}/report`, headers: { cookie }, remoteAddress: from, payload: { reason, ...(note === undefined ? {} : { note }) }
  })
  return { app, admin, mod, members, say, watch, queue, decide, report }
}

const messagesOf = (response: Inject): string[] => (response.json().shouts as Array<{ message: string }>).map(shout => shout.message)
/** Every place a visitor could find a shout's text. */
async function everywhere (app: App, cookie: string | undefined, id: number) {
  const reader = as(app, cookie)
  return {
    latest: messagesOf(await reader.get('/api/shoutbox/latest')),
    archive: messagesOf(await reader.get('/api/shoutbox/archive')),
    list: messagesOf(await reader.get('/api/shoutbox/list')),
    search: messagesOf(await reader.get('/api/shoutbox/rooms/general/shouts?q=followers')),
    byId: (await reader.get(`/api/shoutbox/shouts/${id}`)).statusCode
  }
}

t.test('a held word: the author sees the shout waiting, nobody else sees anything, until a moderator approves it', async t => {
  const { app, mod, members, say, watch, queue, decide } = await board(t)
  await watch('followers', 'hold')
  const stream = connectSse(`${await app.listen({ port: 0, host: '127.0.0.1' })}/api/shoutbox/stream`)
  t.teardown(() => stream.close())
  await stream.next(e => e.event === 'ready')
  const held = await say(members.mira!, 'cheap FOLLOWERS here')
  t.equal(held.held, true, 'answered as held')
  t.match(await everywhere(app, members.omar, held.id), { latest: [], archive: [], list: [], search: [], byId: 404 }, 'another member sees nothing, not even by its id')
  t.match(await everywhere(app, undefined, held.id), { latest: [], archive: [], list: [], byId: 404 }, 'nor does a visitor')
  const own = (await as(app, members.mira!).get('/api/shoutbox/latest')).json().shouts
  t.match(own, [{ id: held.id, message: 'cheap FOLLOWERS here', held: true }], 'its author sees it, waiting')
  t.match((await queue()).items, [{ shout: { id: held.id, message: 'cheap FOLLOWERS here' }, state: 'held', why: 'word', reports: [] }])
  t.equal((await queue()).total, 1)
  t.same(answer(await decide(held.id, { action: 'dismiss' })), [400, error('BAD_REQUEST', { reason: 'a held shout has no reports: approve or delete it' })])
  t.same(answer(await decide(held.id, { action: 'approve' })), [200, { result: 'ok' }])
  const restored = await stream.next(e => e.event === 'shout-restored')
  t.same(JSON.parse(restored.data), { id: held.id, message: 'cheap FOLLOWERS here', username: 'mira', date: held.date, room: 'general', replyTo: null }, 'on the stream once approved, with the id it was held under')
  t.same(messagesOf(await as(app, members.omar).get('/api/shoutbox/archive')), ['cheap FOLLOWERS here'], 'on the board')
  t.equal((await as(app, members.mira!).get('/api/shoutbox/latest')).json().shouts.length, 1, 'once: the waiting one is gone')
  t.same((await queue()).items, [])
  t.same(answer(await decide(held.id, { action: 'approve' })), [404, error('NOT_FOUND')], 'decided once')
  // Deleted instead: gone for good.
  const second = await say(members.mira!, 'more followers')
  t.same(answer(await decide(second.id, { action: 'delete' })), [200, { result: 'ok' }])
  t.same(messagesOf(await as(app, members.mira!).get('/api/shoutbox/latest')), ['cheap FOLLOWERS here'])
  const feed = JSON.stringify((await as(app, mod).get('/api/panel/logs/activity')).json())
  t.match(feed, /mod approved a shout by mira: cheap FOLLOWERS here/)
  t.match(feed, /mod deleted a shout by mira: more followers/)
})

t.test('an edit to a held word takes the shout off the board until it is approved', async t => {
  const { app, members, say, watch, queue, decide } = await board(t)
  await watch('casino', 'hold')
  const shout = await say(members.mira!, 'hello all')
  const edited = await as(app, members.mira!).put(`/api/shoutbox/${shout.id}`, { message: 'hello all, casino tonight' })
  t.match(edited.json().shout, { id: shout.id, message: 'hello all, casino tonight', held: true })
  t.same(messagesOf(await as(app, members.omar).get('/api/shoutbox/archive')), [], 'off the board')
  t.match((await queue()).items, [{ shout: { id: shout.id }, state: 'held', why: 'word' }])
  await decide(shout.id, { action: 'approve' })
  t.same(messagesOf(await as(app, members.omar).get('/api/shoutbox/archive')), ['hello all, casino tonight'])
})

t.test('a new member\'s first shouts wait; staff never do', async t => {
  const { app, mod, members, say, decide } = await board(t, { holdFirstShouts: 1 })
  const first = await say(members.mira!, 'my first words')
  t.equal(first.held, true)
  t.equal((await say(mod, 'staff speak at once')).held, undefined)
  t.equal((await say(members.mira!, 'still new')).held, true, 'still no shout on the board')
  await decide(first.id, { action: 'approve' })
  t.equal((await say(members.mira!, 'now trusted')).held, undefined, 'one on the board: no longer new')
  t.same(messagesOf(await as(app, undefined).get('/api/shoutbox/archive')), ['now trusted', 'staff speak at once', 'my first words'], 'approved, it keeps its place (the id it was held with)')
})

t.test('reports: enough members hide a shout from every list, page, search and stream until reviewed', async t => {
  const { app, members, say, queue, decide, report } = await board(t)
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const stream = connectSse(`${url}/api/shoutbox/stream`)
  t.teardown(() => stream.close())
  await stream.next(e => e.event === 'ready')
  const spam = await say(members.deniz!, 'BUY followers now')
  await stream.next(e => e.event === 'shout-created')
  t.same(answer(await report(members.mira!, spam.id, 'spam', 'same link all day')), [200, { result: 'ok' }])
  t.same(answer(await report(members.mira!, spam.id, 'abuse')), [409, error('ALREADY_REPORTED')], 'once per member')
  t.same(answer(await report(members.omar!, spam.id, 'off-topic')), [200, { result: 'ok' }])
  t.match(await everywhere(app, undefined, spam.id), { archive: ['BUY followers now'], byId: 200 }, 'two reports: still there')
  t.match((await queue()).items, [{ shout: { id: spam.id }, state: 'reported', why: 'reports', reports: [{ reporter: 'mira', reason: 'spam' }, { reporter: 'omar', reason: 'off-topic' }] }])
  await report(members.ayse!, spam.id, 'spam')
  t.same(await everywhere(app, undefined, spam.id), { latest: [], archive: [], list: [], search: [], byId: 404 }, 'the third hides it everywhere')
  t.same(JSON.parse((await stream.next(e => e.event === 'shout-deleted')).data), { id: spam.id, room: 'general' }, 'and the stream says it is gone, as for a delete')
  const replay = connectSse(`${url}/api/shoutbox/stream`, { 'last-event-id': '0' })
  t.teardown(() => replay.close())
  await replay.next(e => e.event === 'shout-deleted')
  t.notMatch(JSON.stringify(replay.events), /BUY followers/, 'a replay of the history does not hold its words')
  t.match((await queue()).items, [{ shout: { id: spam.id, message: 'BUY followers now' }, state: 'hidden', why: 'reports' }], 'staff still see it, in the queue')
  // Dismissed: it comes back (as it was), and each reporter is told.
  t.same(answer(await decide(spam.id, { action: 'dismiss' })), [200, { result: 'ok' }])
  t.same(messagesOf(await as(app, undefined).get('/api/shoutbox/archive')), ['BUY followers now'])
  for (const name of ['mira', 'omar', 'ayse']) {
    const notified = (await as(app, members[name]).get('/api/notifications')).json().notifications
    t.match(notified, [{ kind: 'report-resolved', addonId: 'shoutbox', data: { shoutId: spam.id, room: 'general', outcome: 'dismissed', excerpt: 'BUY followers now' } }], name)
  }
  t.same((await as(app, members.deniz!).get('/api/notifications')).json().notifications, [], 'the author is not told who reported')
})

t.test('review: delete and mute; three shouts deleted by review in a day silence the author by themselves', async t => {
  const { app, mod, members, say, queue, decide, report } = await board(t)
  const ids: number[] = []
  for (let i = 0; i < 3; i++) ids.push((await say(members.deniz!, `bad shout ${i}`)).id)
  for (const id of ids) await report(members.mira!, id, 'abuse')
  t.equal((await queue()).total, 3)
  await decide(ids[0]!, { action: 'delete' })
  await decide(ids[1]!, { action: 'delete' })
  t.equal((await as(app, members.deniz!).post('/api/shoutbox', { message: 'still here' })).statusCode, 200, 'two: not yet')
  await decide(ids[2]!, { action: 'delete' })
  t.match(answer(await as(app, members.deniz!).post('/api/shoutbox', { message: 'and now?' })), [403, { error: 'MUTED', until: Number }], 'the third silences them')
  const mutes = (await as(app, mod).get('/api/panel/shoutbox/mutes')).json().mutes
  t.match(mutes, [{ username: 'deniz', by: null, reason: null }], 'a mute by nobody: the board')
  t.match(JSON.stringify((await as(app, mod).get('/api/panel/logs/activity')).json()), /The board muted deniz in the shoutbox for 30 minutes/)
  const notified = (await as(app, members.mira!).get('/api/notifications')).json().notifications
  t.equal(notified.filter((n: { data: { outcome: string } }) => n.data.outcome === 'removed').length, 3, 'the reporter heard each outcome')
  // A review's own mute.
  const other = await say(members.omar!, 'rude words')
  await report(members.mira!, other.id, 'abuse')
  t.same(answer(await decide(other.id, { action: 'approve', muteMinutes: 60 })), [200, { result: 'ok' }])
  t.match((await as(app, members.omar!).post('/api/shoutbox', { message: 'hm' })).json(), { error: 'MUTED' })
})

t.test('automatic silence: autoMuteAfter flood refusals within ten minutes', async t => {
  const { app, mod, members } = await board(t, { minSecondsBetweenShouts: 60, autoMuteAfter: 3, autoMuteMinutes: 15 })
  t.equal((await as(app, members.mira!).post('/api/shoutbox', { message: 'one' })).statusCode, 200)
  for (let i = 0; i < 3; i++) t.equal((await as(app, members.mira!).post('/api/shoutbox', { message: `again ${i}` })).statusCode, 429)
  t.match((await as(app, members.mira!).post('/api/shoutbox', { message: 'again' })).json(), { error: 'MUTED' }, 'the third refusal silenced them')
  t.match((await as(app, mod).get('/api/panel/shoutbox/mutes')).json().mutes, [{ username: 'mira', by: null }])
  t.match(JSON.stringify((await as(app, mod).get('/api/panel/logs/activity')).json()), /The board muted mira in the shoutbox for 15 minutes/)
})

t.test('attack: reports cannot hide staff, cannot flood, cannot reach what the reporter cannot read', async t => {
  const { app, admin, mod, members, say, queue, report } = await board(t)
  const notice = await say(mod, 'Maintenance tonight at ten')
  for (const name of Object.keys(members)) t.equal((await report(members[name]!, notice.id, 'abuse')).statusCode, 200)
  t.same(messagesOf(await as(app, undefined).get('/api/shoutbox/archive')), ['Maintenance tonight at ten'], 'six reports: a staff shout stays')
  t.match((await queue()).items, [{ shout: { id: notice.id }, state: 'reported' }], 'in the queue, for the staff to see')
  // One member, a burst.
  const targets = await Promise.all(Array.from({ length: 15 }, (_, i) => say(members.omar!, `shout ${i}`)))
  const answers = await Promise.all(targets.map(shout => report(members.bora!, shout.id, 'spam')))
  const statuses = answers.map(response => response.statusCode).sort()
  t.same(statuses, [...Array(REPORTS_PER_HOUR - 1).fill(200), ...Array(15 - REPORTS_PER_HOUR + 1).fill(429)], `${REPORTS_PER_HOUR} an hour (one was the staff shout's), the rest 429`)
  t.ok(answers.filter(response => response.statusCode === 429).every(response => Number(response.headers['retry-after']) > 0), 'with Retry-After')
  // Bad reports.
  t.same(answer(await report(members.omar!, targets[0]!.id, 'spam')), [403, error('NO_PERMISSION')], 'one\'s own shout')
  t.equal((await report(members.mira!, targets[0]!.id, 'boring')).statusCode, 400, 'a reason outside the list')
  t.equal((await as(app, members.mira!).post(`/api/shoutbox/shouts/${targets[0]!.id}/report`, { reason: 'spam', note: 'x'.repeat(501) })).statusCode, 400, 'a note too long')
  t.same(answer(await report(members.mira!, 999_999, 'spam')), [404, error('NOT_FOUND')], 'no such shout')
  t.equal((await as(app, undefined).post(`/api/shoutbox/shouts/${targets[0]!.id}/report`, { reason: 'spam' })).statusCode, 401, 'a visitor')
  const staffRoom = await as(app, admin).post('/api/panel/shoutbox/rooms', { slug: 'staff', name: 'Staff', read: 'panel.access', post: 'panel.access' })
  t.equal(staffRoom.statusCode, 200)
  const secret = (await as(app, mod).post('/api/shoutbox/rooms/staff/shouts', { message: 'staff only' })).json().shout
  t.same(answer(await report(members.mira!, secret.id, 'spam')), [404, error('NOT_FOUND')], 'a shout of a room they cannot read is no shout')
})

t.test('attack: the queue and its decisions are the staff\'s alone; a held shout cannot be probed', async t => {
  const { app, members, say, watch, decide, report } = await board(t)
  await watch('casino', 'hold')
  const held = await say(members.mira!, 'casino!')
  for (const cookie of [members.omar!, members.mira!]) {
    t.same(answer(await as(app, cookie).get('/api/panel/shoutbox/review')), [403, error('NO_PERMISSION')])
    t.same(answer(await decide(held.id, { action: 'approve' }, cookie)), [403, error('NO_PERMISSION')], 'not even its author approves it')
  }
  t.equal((await as(app, undefined).get('/api/panel/shoutbox/review')).statusCode, 401)
  for (const body of [{ action: 'publish' }, { action: 'approve', muteMinutes: 0 }, { action: 'approve', extra: 1 }, {}]) {
    t.equal((await decide(held.id, body)).statusCode, 400, JSON.stringify(body))
  }
  t.same(answer(await decide(9_999_999, { action: 'delete' })), [404, error('NOT_FOUND')])
  // Probing: a held shout is no shout to anyone but its author's list.
  t.equal((await as(app, members.omar!).get(`/api/shoutbox/shouts/${held.id}`)).statusCode, 404)
  t.equal((await as(app, members.omar!).put(`/api/shoutbox/shouts/${held.id}/reactions/${encodeURIComponent('👍')}`)).statusCode, 404, 'nor reacted to')
  t.equal((await report(members.omar!, held.id)).statusCode, 404, 'nor reported')
  t.equal((await as(app, members.omar!).post('/api/shoutbox', { message: 'replying', replyTo: held.id })).statusCode, 400, 'nor answered')
})

type QueueItem = { shout: Record<string, unknown>, state: string, why: string, reports: Array<Record<string, unknown>> }
/** The queue's items with each report's id and time left out (the rest whole). */
async function queueOf (app: App, mod: string): Promise<QueueItem[]> {
  const items = (await as(app, mod).get('/api/panel/shoutbox/review')).json().items as QueueItem[]
  return items.map(item => ({ ...item, reports: item.reports.map(({ id: _, createdAt: __, ...report }) => report) }))
}

t.test('attack (brigading): accounts made seconds before, or one address, queue their reports but hide nothing', async t => {
  const { app, admin, mod, members, say, report } = await board(t)
  const shout = await say(members.mira!, 'the meetup moved to Friday')
  const shown = answer(await as(app, undefined).get(`/api/shoutbox/shouts/${shout.id}`))
  t.same(shown, [200, { result: 'ok', shout: { id: shout.id, message: 'the meetup moved to Friday', username: 'mira', date: shout.date, room: 'general', replyTo: null, reactions: [] } }])
  // Three accounts made one after the other, each from an address of its own.
  const socks = await Promise.all(['sock1', 'sock2', 'sock3'].map(name => account(app, admin, name)))
  for (const [i, cookie] of socks.entries()) t.same(answer(await report(cookie, shout.id, 'abuse', undefined, `203.0.113.${i + 1}`)), [200, { result: 'ok' }])
  t.same(answer(await as(app, undefined).get(`/api/shoutbox/shouts/${shout.id}`)), shown, 'three young accounts: it stays')
  t.same(await queueOf(app, mod), [{
    shout: { id: shout.id, message: 'the meetup moved to Friday', username: 'mira', date: shout.date, room: 'general' },
    state: 'reported', why: 'reports',
    reports: ['sock1', 'sock2', 'sock3'].map(reporter => ({ reporter, reason: 'abuse', note: null }))
  }], 'their reports wait for the staff')
  // Old accounts, all from one address.
  const other = await say(members.mira!, 'bring a friend')
  for (const name of ['omar', 'ayse', 'bora']) t.same(answer(await report(members[name]!, other.id, 'spam', undefined, '203.0.113.50')), [200, { result: 'ok' }])
  t.same(messagesOf(await as(app, undefined).get('/api/shoutbox/archive')), ['bring a friend', 'the meetup moved to Friday'], 'one address counts once: it stays')
  t.same(answer(await report(members.cem!, other.id, 'spam', undefined, '203.0.113.51')), [200, { result: 'ok' }])
  t.same(messagesOf(await as(app, undefined).get('/api/shoutbox/archive')), ['bring a friend', 'the meetup moved to Friday'], 'two addresses: still there')
  t.same(answer(await report(members.deniz!, other.id, 'spam', undefined, '203.0.113.52')), [200, { result: 'ok' }])
  t.same(messagesOf(await as(app, undefined).get('/api/shoutbox/archive')), ['the meetup moved to Friday'], 'three old accounts from three addresses hide it')
  // The age is a setting: at 0, young accounts count as the old do.
  t.equal((await as(app, admin).put('/api/panel/shoutbox/config', { reportMinAccountAgeHours: 0 })).statusCode, 200)
  const third = await say(members.mira!, 'doors open at six')
  for (const [i, cookie] of socks.entries()) await report(cookie, third.id, 'abuse', undefined, `203.0.113.${i + 1}`)
  t.same(answer(await as(app, undefined).get(`/api/shoutbox/shouts/${third.id}`)), [404, error('NOT_FOUND')])
  for (const [bad, why] of [[-1, 'must be >= 0'], [8761, 'must be <= 8760'], [1.5, 'must be integer'], [null, 'must be integer']] as const) {
    t.same(answer(await as(app, admin).put('/api/panel/shoutbox/config', { reportMinAccountAgeHours: bad })),
      [400, { result: 'error', error: 'BAD_REQUEST', bodyValidationError: `body/reportMinAccountAgeHours ${why}` }], `refused: ${JSON.stringify(bad)}`)
  }
  t.equal((await as(app, admin).get('/api/panel/shoutbox/config')).json().reportMinAccountAgeHours, 0, 'a refusal changed nothing')
})

t.test('attack (brigading): a shout staff kept comes back as it was, and the same reporters cannot hide it again', async t => {
  const { app, mod, members, say, decide, report } = await board(t)
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const stream = connectSse(`${url}/api/shoutbox/stream`)
  t.teardown(() => stream.close())
  await stream.next(e => e.event === 'ready')
  const older = await say(members.omar!, 'good morning')
  const shout = await say(members.mira!, 'the meetup moved to Friday')
  for (const [name, emoji] of [['omar', '👍'], ['ayse', '👍'], ['bora', '🎉']] as const) {
    t.equal((await as(app, members[name]).put(`/api/shoutbox/shouts/${shout.id}/reactions/${encodeURIComponent(emoji)}`)).statusCode, 200)
  }
  const reply = (await as(app, members.bora!).post('/api/shoutbox', { message: 'see you there', replyTo: shout.id })).json().shout as { id: number }
  const newer = await say(members.omar!, 'who brings snacks?')
  const read = async () => ({
    shout: answer(await as(app, members.omar).get(`/api/shoutbox/shouts/${shout.id}`)),
    reply: answer(await as(app, undefined).get(`/api/shoutbox/shouts/${reply.id}`)),
    latest: answer(await as(app, undefined).get('/api/shoutbox/latest')),
    list: answer(await as(app, undefined).get('/api/shoutbox/list'))
  })
  const before = await read()
  t.same(before.shout, [200, {
    result: 'ok',
    shout: {
      id: shout.id, message: 'the meetup moved to Friday', username: 'mira', date: shout.date, room: 'general', replyTo: null,
      reactions: [{ emoji: '👍', count: 2, mine: true }, { emoji: '🎉', count: 1, mine: false }]
    }
  }])
  t.match(before.reply, [200, { shout: { replyTo: { id: shout.id, username: 'mira', excerpt: 'the meetup moved to Friday' } } }])
  t.same((before.list[1] as { shouts: Array<{ id: number }> }).shouts.map(each => each.id), [newer.id, reply.id, shout.id, older.id])
  const brigade = ['cem', 'deniz', 'ayse']
  for (const name of brigade) t.same(answer(await report(members[name]!, shout.id, 'abuse')), [200, { result: 'ok' }])
  t.same(JSON.parse((await stream.next(e => e.event === 'shout-deleted')).data), { id: shout.id, room: 'general' }, 'hidden: readers hear it go')
  t.same(answer(await as(app, members.omar).get(`/api/shoutbox/shouts/${shout.id}`)), [404, error('NOT_FOUND')])
  t.same((await as(app, undefined).get(`/api/shoutbox/shouts/${reply.id}`)).json().shout.replyTo, { id: shout.id, deleted: true }, 'the reply quotes nothing of it meanwhile')
  t.same(answer(await as(app, members.ayse!).put(`/api/shoutbox/shouts/${shout.id}/reactions/${encodeURIComponent('😂')}`)), [404, error('NOT_FOUND')], 'nor is it reacted to')
  t.same(answer(await decide(shout.id, { action: 'dismiss' })), [200, { result: 'ok' }])
  const restored = await stream.next(e => e.event === 'shout-restored')
  t.same(JSON.parse(restored.data),
    { id: shout.id, message: 'the meetup moved to Friday', username: 'mira', date: shout.date, room: 'general', replyTo: null }, 'the stream puts it back, under its id')
  t.same(JSON.parse((await stream.next(e => e.event === 'shout-reactions' && Number(e.id) > Number(restored.id))).data),
    { id: shout.id, room: 'general', reactions: [{ emoji: '👍', count: 2 }, { emoji: '🎉', count: 1 }] }, 'with its reactions')
  t.same(await read(), before, 'its id, date, reactions, place and the reply quoting it: as before')
  const replay = connectSse(`${url}/api/shoutbox/stream`, { 'last-event-id': '0' })
  t.teardown(() => replay.close())
  const replayedReply = await replay.next(e => e.event === 'shout-created' && JSON.parse(e.data).id === reply.id)
  t.same(JSON.parse(replayedReply.data).replyTo, { id: shout.id, username: 'mira', excerpt: 'the meetup moved to Friday' }, 'a replay quotes it again')
  // Rounds two and three: the same three report again; it stays, their reports queue.
  for (const round of [2, 3]) {
    for (const name of brigade) t.same(answer(await report(members[name]!, shout.id, 'abuse')), [200, { result: 'ok' }], `round ${round}: ${name}`)
    t.same(await read(), before, `round ${round}: still on the board, as it was`)
    t.same(await queueOf(app, mod), [{
      shout: { id: shout.id, message: 'the meetup moved to Friday', username: 'mira', date: shout.date, room: 'general' },
      state: 'reported', why: 'reports', reports: brigade.map(reporter => ({ reporter, reason: 'abuse', note: null }))
    }], `round ${round}: queued for the staff`)
    t.same(answer(await decide(shout.id, { action: round === 2 ? 'dismiss' : 'approve' })), [200, { result: 'ok' }])
  }
  t.same(await queueOf(app, mod), [])
})

t.test('attack (approved, then edited): a held shout approved keeps its id; edited into spam, it goes back to review', async t => {
  const { app, mod, members, say, decide } = await board(t, { holdFirstShouts: 1 })
  const url = await app.listen({ port: 0, host: '127.0.0.1' })
  const stream = connectSse(`${url}/api/shoutbox/stream`)
  t.teardown(() => stream.close())
  await stream.next(e => e.event === 'ready')
  const first = await say(members.deniz!, 'hello everyone, glad to be here')
  t.equal(first.held, true)
  t.same(answer(await decide(first.id, { action: 'approve' })), [200, { result: 'ok' }])
  const onBoard = { id: first.id, message: 'hello everyone, glad to be here', username: 'deniz', date: first.date, room: 'general', replyTo: null }
  t.same(JSON.parse((await stream.next(e => e.event === 'shout-restored')).data), onBoard)
  t.same(answer(await as(app, undefined).get(`/api/shoutbox/shouts/${first.id}`)), [200, { result: 'ok', shout: { ...onBoard, reactions: [] } }], 'approved under the id it was held with')
  const spam = 'CHEAP PILLS -> http://pills.example/buy'
  t.same(answer(await as(app, members.deniz!).put(`/api/shoutbox/${first.id}`, { message: spam })),
    [200, { result: 'ok', shout: { ...onBoard, message: spam, reactions: [], held: true } }], 'the edit is held')
  t.same(JSON.parse((await stream.next(e => e.event === 'shout-deleted')).data), { id: first.id, room: 'general' }, 'readers hear it leave')
  t.notMatch(JSON.stringify(stream.events), /PILLS/, 'the stream never carried the new text')
  t.same(answer(await as(app, members.omar).get(`/api/shoutbox/shouts/${first.id}`)), [404, error('NOT_FOUND')])
  t.same(messagesOf(await as(app, undefined).get('/api/shoutbox/archive')), [])
  t.same(messagesOf(await as(app, undefined).get('/api/shoutbox/list')), [])
  t.same(messagesOf(await as(app, members.omar).get('/api/shoutbox/rooms/general/shouts?q=pills')), [])
  t.match((await as(app, members.deniz!).get('/api/shoutbox/latest')).json().shouts, [{ id: first.id, message: spam, held: true }], 'its author sees it waiting')
  t.same(await queueOf(app, mod), [{ shout: { id: first.id, message: spam, username: 'deniz', date: first.date, room: 'general' }, state: 'held', why: 'edited', reports: [] }])
  t.same(answer(await decide(first.id, { action: 'delete' })), [200, { result: 'ok' }])
  t.same(answer(await as(app, mod).get(`/api/shoutbox/shouts/${first.id}`)), [404, error('NOT_FOUND')])
})

t.test('an edit by a member whose shouts would be held now is held; staff edits are not', async t => {
  const { app, admin, mod, members, say, decide } = await board(t)
  const said = await say(members.omar!, 'first words')
  const staff = await say(mod, 'welcome')
  t.equal((await as(app, admin).put('/api/panel/shoutbox/config', { holdFirstShouts: 3 })).statusCode, 200)
  t.same(answer(await as(app, members.omar!).put(`/api/shoutbox/${said.id}`, { message: 'first words, edited' })),
    [200, { result: 'ok', shout: { id: said.id, message: 'first words, edited', username: 'omar', date: said.date, room: 'general', replyTo: null, reactions: [], held: true } }])
  t.same(await queueOf(app, mod), [{ shout: { id: said.id, message: 'first words, edited', username: 'omar', date: said.date, room: 'general' }, state: 'held', why: 'new-member', reports: [] }])
  const staffEdit = await as(app, mod).put(`/api/shoutbox/${staff.id}`, { message: 'welcome all' })
  t.same(answer(staffEdit),
    [200, { result: 'ok', shout: { id: staff.id, message: 'welcome all', username: 'mod', date: staff.date, room: 'general', replyTo: null, reactions: [], edited: staffEdit.json().shout.edited as number } }], 'staff are never held')
  t.type(staffEdit.json().shout.edited, 'number')
  await decide(said.id, { action: 'approve' })
  t.same(messagesOf(await as(app, undefined).get('/api/shoutbox/archive')), ['welcome all', 'first words, edited'])
})

t.test('migration 017: the shouts waiting in the old review table move into the shouts table, under their ids', async t => {
  const { app, mod, members, say, decide } = await board(t)
  const kept = await say(members.omar!, 'already on the board')
  // The tables as 016 left them, with one held shout and one hidden shout waiting.
  await app.db.raw('alter table shoutbox_shouts drop column state, drop column why, drop column since, drop column vouched, drop column approved')
  await app.db.raw('alter table shoutbox_reports drop column weighs, drop column address_key')
  await app.db.raw(`create table shoutbox_review (id bigint primary key, room_id integer not null, author_id integer, username text not null, message text not null,
    date bigint not null, reply_to_id bigint, state text not null, why text not null, since bigint not null)`)
  // Their ids came from the shouts' own sequence.
  const next = async () => Number((await app.db.raw<{ rows: Array<{ id: string }> }>("select nextval(pg_get_serial_sequence('shoutbox_shouts', 'id')) as id")).rows[0]!.id)
  const [heldId, hiddenId] = [await next(), await next()]
  await app.db.raw(`insert into shoutbox_review (id, room_id, author_id, username, message, date, reply_to_id, state, why, since) values
    (?, 1, (select id from users where username = 'mira'), 'mira', 'held words', 1795000000000, null, 'held', 'word', 1795000000001),
    (?, 1, (select id from users where username = 'deniz'), 'deniz', 'hidden words', 1795000000002, ?, 'hidden', 'reports', 1795000000003)`, [heldId, hiddenId, kept.id])
  await up(app.db)
  t.same(await queueOf(app, mod), [
    { shout: { id: heldId, message: 'held words', username: 'mira', date: 1795000000000, room: 'general' }, state: 'held', why: 'word', reports: [] },
    { shout: { id: hiddenId, message: 'hidden words', username: 'deniz', date: 1795000000002, room: 'general' }, state: 'hidden', why: 'reports', reports: [] }
  ])
  t.same(messagesOf(await as(app, undefined).get('/api/shoutbox/archive')), ['already on the board'], 'still off the board')
  t.same(answer(await decide(hiddenId, { action: 'approve' })), [200, { result: 'ok' }])
  t.same(answer(await as(app, undefined).get(`/api/shoutbox/shouts/${hiddenId}`)), [200, {
    result: 'ok', shout: { id: hiddenId, message: 'hidden words', username: 'deniz', date: 1795000000002, room: 'general', replyTo: { id: kept.id, username: 'omar', excerpt: 'already on the board' }, reactions: [] }
  }], 'approved under its id, answering what it answered')
  t.ok((await say(members.bora!, 'a new shout takes a new id')).id > hiddenId, 'the sequence is past them')
})

t.test('a hidden shout leaves the pins, the unread counts and its author\'s shouts in their export, and comes back to each', async t => {
  const { app, mod, members, say, decide, report } = await board(t)
  const shout = await say(members.mira!, 'rules: be kind')
  t.equal((await as(app, mod).put(`/api/panel/shoutbox/${shout.id}/pin`, { pinned: true })).statusCode, 200)
  const pinnedShout = { id: shout.id, message: 'rules: be kind', username: 'mira', date: shout.date, room: 'general', replyTo: null, reactions: [] }
  const read = async () => ({
    pinned: answer(await as(app, undefined).get('/api/shoutbox/pinned')),
    unread: (await as(app, members.omar).get('/api/shoutbox/rooms')).json().rooms.find((room: { slug: string }) => room.slug === 'general').unread,
    exported: (({ shouts, waitingForReview }) => ({ shouts, waitingForReview }))((await as(app, members.mira).get('/api/users/me/export')).json().export.addons.shoutbox)
  })
  t.same(await read(), {
    pinned: [200, { result: 'ok', shouts: [pinnedShout] }],
    unread: 1,
    exported: { shouts: [{ id: shout.id, room: 'general', message: 'rules: be kind', date: shout.date, replyTo: null }], waitingForReview: [] }
  })
  for (const name of ['omar', 'ayse', 'bora']) await report(members[name]!, shout.id)
  t.same(await read(), {
    pinned: [200, { result: 'ok', shouts: [] }],
    unread: 0,
    exported: { shouts: [], waitingForReview: [{ room: 'general', message: 'rules: be kind', date: shout.date, state: 'hidden' }] }
  }, 'hidden: off the pins and the counts; its author still has it, waiting')
  await decide(shout.id, { action: 'dismiss' })
  t.same(await read(), {
    pinned: [200, { result: 'ok', shouts: [pinnedShout] }],
    unread: 1,
    exported: { shouts: [{ id: shout.id, room: 'general', message: 'rules: be kind', date: shout.date, replyTo: null }], waitingForReview: [] }
  }, 'back, pinned as before')
})
