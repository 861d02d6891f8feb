import t, { type Test } from 'tap'
import { answer, as, error, type Inject } from '../helpers/requests.js'
import { build, setUp, type App } from '../helpers/app.js'
import { account, roleWith } from '../helpers/identity.js'
import { connectSse } from '../helpers/sse.js'
import { REPORTS_PER_HOUR } from '../../src/shoutbox/review.js'

/** CONTRACT §17: held shouts, reports that hide, the review queue, and the board silencing members by itself. */

const MOD_NODE = 'addon.shoutbox.manage.shoutbox'

async function board (t: Test, settings: Record<string, unknown> = {}) {
  const app = await build(t)
  const admin = await setUp(app)
  await as(app, admin).put('/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600, ...settings })
  const mod = await account(app, admin, 'mod', await roleWith(app, admin, 'moderators', ['panel.access', MOD_NODE]))
  const names = ['mira', 'omar', 'ayse', 'bora', 'cem', 'deniz']
  const members = Object.fromEntries(await Promise.all(names.map(async name => [name, await account(app, admin, name)] as const))) as Record<string, string>
  const say = async (cookie: string, message: string) => {
    const posted = await as(app, cookie).post('/api/shoutbox', { message })
    if (posted.statusCode !== 200) throw new Error(posted.body)
    return posted.json().shout as { id: number, message: string, held?: true }
  }
  const watch = async (pattern: string, action: string) => t.equal((await as(app, mod).post('/api/panel/shoutbox/words', { pattern, action })).statusCode, 200)
  const queue = async () => (await as(app, mod).get('/api/panel/shoutbox/review')).json() as { items: Array<{ shout: { id: number, message: string }, state: string, why: string, reports: Array<{ reporter: string, reason: string }> }>, total: number }
  const decide = (id: number, body: Record<string, unknown>, cookie = mod) => as(app, cookie).post(`/api/panel/shoutbox/review/${id}`, body)
  const report = (cookie: string, id: number, reason = 'spam', note?: string) => as(app, cookie).post(`/api/shoutbox/shouts/${id}/report`, { reason, ...(note === undefined ? {} : { note }) })
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
  const created = await stream.next(e => e.event === 'shout-created')
  t.equal(JSON.parse(created.data).message, 'cheap FOLLOWERS here', 'on the stream once approved')
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
  t.same(messagesOf(await as(app, undefined).get('/api/shoutbox/archive')), ['now trusted', 'my first words', 'staff speak at once'])
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
  // Dismissed: it comes back (as new), and each reporter is told.
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
