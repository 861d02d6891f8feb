import t, { type Test } from 'tap'
import { answer, as, error } from '../helpers/requests.js'
import { build, setUp, type App } from '../helpers/app.js'
import { DB_KIND, testDatabase } from '../helpers/database.js'
import { eventually } from '../helpers/eventually.js'
import { account, roleWith } from '../helpers/identity.js'
import { connectSse, type SseClient } from '../helpers/sse.js'
import { REACTIONS_PER_MINUTE } from '../../src/shoutbox/reactions-repository.js'

/** CONTRACT §16: conversation — replies that quote, reactions that stay calm on the stream. */

const MOD_NODE = 'addon.shoutbox.manage.shoutbox'


const reactionUrl = (id: number, emoji: string) => `/api/shoutbox/shouts/${id}/reactions/${encodeURIComponent(emoji)}`

/** A board with `general`, `staff` (panel access) and `news` (moderators write); a member, a second member, a moderator. */
async function board (t: Test, app?: App) {
  app ??= await build(t)
  const admin = await setUp(app)
  await as(app, admin).put('/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 })
  for (const [slug, read, post] of [['staff', 'panel.access', 'panel.access'], ['news', 'everyone', MOD_NODE]] as const) {
    const made = await as(app, admin).post('/api/panel/shoutbox/rooms', { slug, name: slug, read, post })
    if (made.statusCode !== 200) throw new Error(made.body)
  }
  const member = await account(app, admin, 'mira')
  const other = await account(app, admin, 'omar')
  const mod = await account(app, admin, 'mod', await roleWith(app, admin, 'moderators', ['panel.access', MOD_NODE]))
  const say = async (cookie: string, message: string, room = 'general', replyTo?: number | null) => {
    const posted = await as(app, cookie).post(`/api/shoutbox/rooms/${room}/shouts`, { message, ...(replyTo === undefined ? {} : { replyTo }) })
    if (posted.statusCode !== 200) throw new Error(posted.body)
    return posted.json().shout as { id: number, replyTo: unknown, reactions: unknown[] }
  }
  return { app, admin, member, other, mod, say }
}

const shoutOf = async (app: App, id: number, cookie?: string) => (await as(app, cookie).get(`/api/shoutbox/shouts/${id}`)).json().shout

t.test('replies: a post answers a shout of its room, quoting its author and first 80 code points', async t => {
  const { app, member, other, mod, say } = await board(t)
  // 90 code points, astral ones among them: the quote is cut by code points, never inside one.
  const long = '🎉'.repeat(5) + 'x'.repeat(85)
  const original = await say(member, long)
  t.same(original.replyTo, null, 'a shout that answers none says so')
  t.same(original.reactions, [], 'and has no reactions yet')
  const posted = await as(app, other).post('/api/shoutbox', { message: 'I agree', replyTo: original.id })
  t.equal(posted.statusCode, 200)
  const reply = posted.json().shout
  t.same(reply.replyTo, { id: original.id, username: 'mira', excerpt: '🎉'.repeat(5) + 'x'.repeat(75) }, 'quoted: the author and 80 code points')
  t.same(await shoutOf(app, reply.id), reply, 'the permalink shows the same')
  const latest = (await as(app, undefined).get('/api/shoutbox/latest')).json().shouts
  t.same(latest[0], reply, 'and the latest')
  t.same(Object.keys(latest[0]), ['id', 'message', 'username', 'date', 'room', 'replyTo', 'reactions'])
  t.same(Object.keys((await as(app, undefined).get('/api/shoutbox/list')).json().shouts[0]), ['id', 'message', 'username', 'date'], 'the seed\'s list keeps its four fields')

  // Edited: the quote follows the original's current text; deleted: the reply says so, and quotes nothing.
  await as(app, mod).put(`/api/panel/shoutbox/${original.id}`, { message: 'Edited by a moderator' })
  t.same((await shoutOf(app, reply.id)).replyTo, { id: original.id, username: 'mira', excerpt: 'Edited by a moderator' })
  t.equal((await as(app, member).delete(`/api/shoutbox/${original.id}`)).statusCode, 200)
  t.same((await shoutOf(app, reply.id)).replyTo, { id: original.id, deleted: true }, 'the original deleted: its id alone')
  const archived = (await as(app, undefined).get('/api/shoutbox/archive')).json().shouts
  t.same(archived.find((s: { id: number }) => s.id === reply.id).replyTo, { id: original.id, deleted: true }, 'in the archive too')

  // A reply to a reply quotes the reply.
  const again = await say(member, 'Replying to the reply', 'general', reply.id)
  t.same(again.replyTo, { id: reply.id, username: 'omar', excerpt: 'I agree' })
})

t.test('replies: refused for a shout of no room, another room, or not an id; nothing is stored', async t => {
  const { app, member, mod, say } = await board(t)
  const staffShout = await say(mod, 'Staff only: the keys', 'staff')
  const general = await say(member, 'In general')
  const count = async () => Number((await app.db('shoutbox_shouts').count<Array<{ count: string }>>({ count: '*' }))[0]!.count)
  const before = await count()
  for (const [url, replyTo, what] of [
    ['/api/shoutbox', 999_999, 'no such shout'],
    ['/api/shoutbox', staffShout.id, 'a shout of a room the member cannot read'],
    ['/api/shoutbox/rooms/staff/shouts', general.id, 'a shout of another room, by staff who can read both']
  ] as const) {
    const cookie = url.includes('staff') ? mod : member
    const refused = await as(app, cookie).post(url, { message: 'a reply', replyTo })
    t.same(answer(refused), [400, error('BAD_REQUEST', { reason: 'replyTo is not a shout of this room' })], what)
    t.notMatch(refused.body, /keys/, 'nothing of the other room in the answer')
  }
  for (const replyTo of ['1', -1, 0, 1.5, 2 ** 60, { id: 1 }]) {
    const refused = await as(app, member).post('/api/shoutbox', { message: 'a reply', replyTo })
    t.same([refused.statusCode, refused.json().error], [400, 'BAD_REQUEST'], `replyTo ${JSON.stringify(replyTo)}`)
  }
  t.equal(await count(), before, 'no refused reply was stored')
  t.equal((await as(app, member).post('/api/shoutbox', { message: 'replyTo null is no reply', replyTo: null })).json().shout.replyTo, null)
})

/** The next event of `kind` on `stream` after those already seen, parsed. */
async function nextOf (stream: SseClient, kind: string, seen: number, accept: (data: Record<string, unknown>) => boolean = () => true): Promise<Record<string, unknown>> {
  const event = await stream.next(e => e.event === kind && stream.events.indexOf(e) >= seen && accept(JSON.parse(e.data)))
  return JSON.parse(event.data)
}

t.test('the stream: a reply carries its quote; the history forgets the words of a deleted original', async t => {
  const { app, member, other, say } = await board(t)
  const url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api/shoutbox/stream`
  const reader = connectSse(url)
  t.teardown(() => reader.close())
  await reader.next(e => e.event === 'ready')
  const original = await say(member, 'A secret soon taken back')
  const reply = await say(other, 'What secret?', 'general', original.id)
  const heard = await nextOf(reader, 'shout-created', 0, data => data.id === reply.id)
  t.same(heard, { id: reply.id, message: 'What secret?', username: 'omar', date: heard.date, room: 'general', replyTo: { id: original.id, username: 'mira', excerpt: 'A secret soon taken back' } })
  const plain = await nextOf(reader, 'shout-created', 0, data => data.id === original.id)
  t.same(plain.replyTo, null, 'a shout that answers none: null')
  await as(app, member).delete(`/api/shoutbox/${original.id}`)
  await reader.next(e => e.event === 'shout-deleted')
  // A reader replaying the history from its start reads no word of the original, not even in the quote.
  const replay = connectSse(url, { 'last-event-id': '0' })
  t.teardown(() => replay.close())
  await replay.next(e => e.event === 'shout-deleted')
  t.notOk(replay.events.some(e => e.data.includes('secret soon')), 'the original\'s words are not in the history')
  const replayed = JSON.parse(replay.events.find(e => e.event === 'shout-created')!.data)
  t.same(replayed.replyTo, { id: original.id, deleted: true })
})

t.test('reactions: a member reacts with the site\'s set; counts, `mine`, order, and taking one back', async t => {
  const { app, admin, member, other, mod, say } = await board(t)
  const shout = await say(mod, 'Pizza on Friday?')
  t.same(answer(await as(app, member).put(reactionUrl(shout.id, '🎉'))), [200, { result: 'ok', reactions: [{ emoji: '🎉', count: 1, mine: true }] }])
  t.same(answer(await as(app, other).put(reactionUrl(shout.id, '👍'))), [200, {
    result: 'ok', reactions: [{ emoji: '👍', count: 1, mine: true }, { emoji: '🎉', count: 1, mine: false }]
  }], 'in the set\'s order, not the order they came')
  t.same(answer(await as(app, other).put(reactionUrl(shout.id, '🎉'))), [200, {
    result: 'ok', reactions: [{ emoji: '👍', count: 1, mine: true }, { emoji: '🎉', count: 2, mine: true }]
  }])
  t.same((await as(app, other).put(reactionUrl(shout.id, '🎉'))).json().reactions[1], { emoji: '🎉', count: 2, mine: true }, 'twice is one reaction')
  t.same((await as(app, undefined).get(`/api/shoutbox/shouts/${shout.id}`)).json().shout.reactions,
    [{ emoji: '👍', count: 1 }, { emoji: '🎉', count: 2 }], 'a visitor sees the counts, no `mine`')
  t.same((await as(app, member).get('/api/shoutbox/latest')).json().shouts[0].reactions,
    [{ emoji: '👍', count: 1, mine: false }, { emoji: '🎉', count: 2, mine: true }], 'a member sees which are theirs')
  t.same((await as(app, member).get('/api/shoutbox/rooms/general/shouts')).json().shouts[0].reactions,
    [{ emoji: '👍', count: 1, mine: false }, { emoji: '🎉', count: 2, mine: true }], 'in a room\'s page too')
  t.same(answer(await as(app, other).delete(reactionUrl(shout.id, '👍'))), [200, { result: 'ok', reactions: [{ emoji: '🎉', count: 2, mine: true }] }], 'taken back: a zero count is left out')
  t.same((await as(app, other).delete(reactionUrl(shout.id, '👍'))).statusCode, 200, 'taking back what is not there changes nothing')
  // A pinned shout shows its reactions in the kept pinned answer, recounted as they change.
  await as(app, admin).put(`/api/panel/shoutbox/${shout.id}/pin`, { pinned: true })
  t.same((await as(app, undefined).get('/api/shoutbox/pinned')).json().shouts[0].reactions, [{ emoji: '🎉', count: 2 }])
  await as(app, member).delete(reactionUrl(shout.id, '🎉'))
  const recounted = await eventually(async () => (await as(app, undefined).get('/api/shoutbox/pinned')).json().shouts[0].reactions, reactions => reactions[0]?.count === 1)
  t.ok(recounted.ms < Infinity, 'the kept pinned answer follows the counts')
  // Deleting the shout takes its reactions with it.
  await as(app, admin).delete(`/api/panel/shoutbox/${shout.id}`)
  t.equal(Number((await app.db('shoutbox_reactions').count<Array<{ count: string }>>({ count: '*' }))[0]!.count), 0)
})

t.test('reactions: the site chooses its set; anything else is refused', async t => {
  const { app, admin, member, say } = await board(t)
  const shout = await say(member, 'Hello')
  t.same((await as(app, undefined).get('/api/shoutbox/rules')).json().reactions, ['👍', '❤️', '😂', '😮', '😢', '🎉'], 'the default set, for the widget')
  for (const [reactions, what] of [
    [[], 'none'], [['👍', '👍'], 'twice the same'], [Array.from({ length: 13 }, (_, i) => String.fromCodePoint(0x1F600 + i)), '13 of them'],
    [['a'], 'a letter'], [['👍👍'], 'two emoji in one'], [['1'], 'a digit'], [['<b>'], 'markup'], [[' 👍'], 'a space before'], [[''], 'an empty one']
  ] as const) {
    const refused = await as(app, admin).put('/api/panel/shoutbox/config', { reactions })
    t.same([refused.statusCode, refused.json().error], [400, 'BAD_REQUEST'], `refused: ${what}`)
  }
  const family = '👨‍👩‍👧'
  const flag = '🇹🇷'
  const changed = await as(app, admin).put('/api/panel/shoutbox/config', { reactions: ['🔥', family, flag, '1️⃣'] })
  t.same(changed.json().reactions, ['🔥', family, flag, '1️⃣'], 'one grapheme each: a family, a flag, a keycap')
  t.same((await as(app, admin).put('/api/panel/shoutbox/config', { reactions: ['🔥', family, flag, '1️⃣'] })).statusCode, 200, 'the same set again: nothing to change')
  t.match((await as(app, admin).get('/api/panel/logs/activity')).json().logs.filter((l: { type: string }) => l.type === 'UPDATED_SHOUTBOX_SETTINGS').length, 2, 'the change is logged once')
  t.same((await as(app, undefined).get('/api/shoutbox/rules')).json().reactions, ['🔥', family, flag, '1️⃣'])
  t.same((await as(app, member).put(reactionUrl(shout.id, flag))).json().reactions, [{ emoji: flag, count: 1, mine: true }])
  for (const emoji of ['👍', 'x', '🔥🔥', 'a'.repeat(33), '%F0%9F']) {
    const refused = await as(app, member).put(`/api/shoutbox/shouts/${shout.id}/reactions/${emoji === '%F0%9F' ? emoji : encodeURIComponent(emoji)}`)
    t.same([refused.statusCode, refused.json().error], [400, 'BAD_REQUEST'], `an emoji outside the set: ${emoji.slice(0, 8)}`)
  }
})

t.test('attack: reactions from those who may not react, to shouts they may not see', async t => {
  const { app, admin, member, mod, say } = await board(t)
  const staffShout = await say(mod, 'Staff only', 'staff')
  const news = await say(mod, 'News', 'news')
  const general = await say(mod, 'General')
  const reactionRows = async () => app.db('shoutbox_reactions').orderBy(['shout_id', 'user_id']).select()
  t.same(answer(await as(app, undefined).put(reactionUrl(general.id, '👍'))), [401, error('NOT_LOGGED_IN')], 'a visitor')
  const hidden = await as(app, member).put(reactionUrl(staffShout.id, '👍'))
  const none = await as(app, member).put(reactionUrl(9_999_999, '👍'))
  t.same(answer(hidden), [404, error('NOT_FOUND')], 'a shout of a room the member cannot read')
  t.equal(hidden.body, none.body, 'answered exactly as a shout that does not exist')
  t.same(answer(await as(app, member).put(reactionUrl(news.id, '👍'))), [403, error('NO_PERMISSION')], 'a room the member reads but may not post in')
  // Another site's page cannot make a member react (the cookie alone is not enough).
  const forged = await app.inject({ method: 'PUT', url: reactionUrl(general.id, '👍'), headers: { cookie: member, origin: 'https://evil.example' } })
  t.equal(forged.statusCode, 403, 'a cross-site request is refused')
  const users = (await as(app, admin).get('/api/panel/users')).json().users as Array<{ id: number, username: string }>
  await as(app, admin).post('/api/panel/shoutbox/mutes', { userId: users.find(u => u.username === 'mira')!.id, minutes: 10 })
  const muted = (await as(app, member).put(reactionUrl(general.id, '👍'))).json()
  t.same(muted.error, 'MUTED', 'a muted member')
  t.ok(muted.until > Date.now() + 9 * 60_000, 'told until when')
  t.same(await reactionRows(), [], 'none of them stored')
  // A mute whose time has passed holds nobody.
  const mira = users.find(u => u.username === 'mira')!.id
  await app.db('shoutbox_mutes').where({ user_id: mira }).update({ until: Date.now() - 1000 })
  t.equal((await as(app, member).put(reactionUrl(general.id, '👍'))).statusCode, 200, 'once the mute has passed')
  t.equal((await as(app, member).delete(reactionUrl(general.id, '👍'))).statusCode, 200)
  const archived = await as(app, admin).get('/api/panel/shoutbox/rooms')
  const newsRoom = archived.json().rooms.find((r: { slug: string }) => r.slug === 'news')
  await as(app, admin).delete(`/api/panel/shoutbox/rooms/${newsRoom.id as number}`)
  t.same(answer(await as(app, mod).put(reactionUrl(news.id, '👍'))), [409, error('ROOM_ARCHIVED')], 'an archived room is read-only')
})

t.test(`attack: one member sends 1,000 reaction requests: ${REACTIONS_PER_MINUTE} changes a minute pass, the rest are refused`, async t => {
  const { app, member, mod, say } = await board(t)
  const shouts = [await say(mod, 'one'), await say(mod, 'two')]
  const statuses = new Map<number, number>()
  let retryAfter = 0
  const burst = Array.from({ length: 1000 }, (_, i) => i)
  // Ten at a time, as a script would: on and off, on two shouts, with every emoji.
  const emoji = ['👍', '❤️', '😂', '😮', '😢', '🎉']
  for (let i = 0; i < burst.length; i += 10) {
    const answers = await Promise.all(burst.slice(i, i + 10).map(n => {
      const url = reactionUrl(shouts[n % 2]!.id, emoji[n % 6]!)
      return n % 3 === 2 ? as(app, member).delete(url) : as(app, member).put(url)
    }))
    for (const response of answers) {
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1)
      if (response.statusCode === 429) retryAfter = Math.max(retryAfter, Number(response.headers['retry-after']))
    }
  }
  t.equal(statuses.get(200), REACTIONS_PER_MINUTE, `${REACTIONS_PER_MINUTE} passed`)
  t.equal(statuses.get(429), 1000 - REACTIONS_PER_MINUTE, 'the rest: 429')
  t.ok(retryAfter >= 1 && retryAfter <= 60, `with Retry-After (${retryAfter} s)`)
  const events = Number((await app.db('shoutbox_events').where({ kind: 'shout-reactions' }).count<Array<{ count: string }>>({ count: '*' }))[0]!.count)
  t.ok(events <= 4, `the stream's history holds ${events} reaction events for the burst (at most one a second a shout)`)
  t.equal((await as(app, mod).put(reactionUrl(shouts[0]!.id, '👍'))).statusCode, 200, 'another member reacts meanwhile')
})

t.test('the stream: reactions are coalesced, at most one event a second per shout, with the final counts', async t => {
  const app = await build(t)
  const { admin, mod, say } = await board(t, app)
  const shout = await say(mod, 'React to me')
  const members = await Promise.all(Array.from({ length: 12 }, (_, i) => account(app, admin, `fan${i}`)))
  const url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api/shoutbox/stream`
  const reader = connectSse(url)
  t.teardown(() => reader.close())
  await reader.next(e => e.event === 'ready')
  const started = Date.now()
  // Twelve members react at once; then six take theirs back.
  await Promise.all(members.map(cookie => as(app, cookie).put(reactionUrl(shout.id, '❤️'))))
  await Promise.all(members.slice(0, 6).map(cookie => as(app, cookie).put(reactionUrl(shout.id, '😂'))))
  await Promise.all(members.slice(6).map(cookie => as(app, cookie).delete(reactionUrl(shout.id, '❤️'))))
  const final = [{ emoji: '❤️', count: 6 }, { emoji: '😂', count: 6 }]
  await reader.next(e => e.event === 'shout-reactions' && JSON.stringify(JSON.parse(e.data).reactions) === JSON.stringify(final), 10_000)
  const heard = reader.events.filter(e => e.event === 'shout-reactions').map(e => JSON.parse(e.data))
  const seconds = Math.ceil((Date.now() - started) / 1000)
  t.ok(heard.length >= 1 && heard.length <= seconds + 1, `${heard.length} events for 30 changes in ${seconds} s`)
  t.same(heard.at(-1), { id: shout.id, room: 'general', reactions: final }, 'the last carries the counts as they are: id, room, counts, no `mine`')
  const times = (await app.db('shoutbox_events').where({ kind: 'shout-reactions' }).orderBy('id').select('created_at')).map(row => Number(row.created_at))
  t.ok(times.every((at, i) => i === 0 || at - times[i - 1]! >= 1000), `a second or more between them (${times.map((at, i) => i === 0 ? 0 : at - times[i - 1]!).join(', ')} ms)`)
  t.equal(reader.events.filter(e => e.event === 'shout-reactions' && e.id === undefined).length, 0, 'each in the history, with an id to resume from')
  // One reaction taken back, alone: within the second of the last event it waits, and is
  // heard when that second is up (a lone take-back once went unheard: no event at all).
  const seen = reader.events.length
  await as(app, members[0]!).delete(reactionUrl(shout.id, '😂'))
  t.same(await nextOf(reader, 'shout-reactions', seen), { id: shout.id, room: 'general', reactions: [{ emoji: '❤️', count: 6 }, { emoji: '😂', count: 5 }] }, 'a reaction taken back alone is heard')
})

t.test('the stream: counts pending on several shouts go out together', async t => {
  const app = await build(t)
  const { admin, mod, say } = await board(t, app)
  const shouts = [await say(mod, 'One'), await say(mod, 'Two'), await say(mod, 'Three')]
  const [first, second] = await Promise.all([account(app, admin, 'ann'), account(app, admin, 'ben')])
  const url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api/shoutbox/stream`
  const reader = connectSse(url)
  t.teardown(() => reader.close())
  await reader.next(e => e.event === 'ready')
  // The first reaction to each goes at once; the second, within that second, waits.
  for (const shout of shouts) await as(app, first!).put(reactionUrl(shout.id, '👍'))
  for (const shout of shouts) await as(app, second!).put(reactionUrl(shout.id, '👍'))
  await reader.next(e => e.event === 'shout-reactions' && JSON.parse(e.data).id === shouts[2]!.id && JSON.parse(e.data).reactions[0].count === 2, 10_000)
  const rows = (await app.db('shoutbox_events').where({ kind: 'shout-reactions' }).orderBy('id').select('id', 'created_at', 'shout'))
    .map(row => ({ id: Number(row.id), at: Number(row.created_at), count: (typeof row.shout === 'string' ? JSON.parse(row.shout) : row.shout).reactions[0].count as number }))
  const later = rows.filter(row => row.count === 2)
  t.equal(later.length, 3, 'one later event a shout')
  t.same(later.map(row => row.id - later[0]!.id), [0, 1, 2], 'written together, in one transaction')
  const earlier = rows.filter(row => row.count === 1)
  t.ok(later.every((row, i) => row.at - earlier[i]!.at >= 1000), 'each a second or more after its shout\'s last')
  const heard = reader.events.filter(e => e.event === 'shout-reactions').map(e => JSON.parse(e.data).reactions[0].count as number)
  t.same(heard, [1, 1, 1, 2, 2, 2], 'each heard once, in order')
})

t.test('every process: reactions on two processes are coalesced together, and heard on both', { skip: DB_KIND !== 'postgres' && 'the embedded database belongs to one process: this runs on PostgreSQL' }, async t => {
  const db = await testDatabase()
  t.teardown(() => db.drop())
  const a = await build(t, { db })
  const { admin, mod, say } = await board(t, a)
  const b = await build(t, { db })
  const shout = await say(mod, 'Two processes')
  const fans = await Promise.all(Array.from({ length: 10 }, (_, i) => account(a, admin, `fan${i}`)))
  const readerOnB = connectSse(`${await b.listen({ port: 0, host: '127.0.0.1' })}/api/shoutbox/stream`)
  const readerOnA = connectSse(`${await a.listen({ port: 0, host: '127.0.0.1' })}/api/shoutbox/stream`)
  t.teardown(() => { readerOnA.close(); readerOnB.close() })
  await Promise.all([readerOnA.next(e => e.event === 'ready'), readerOnB.next(e => e.event === 'ready')])
  const started = Date.now()
  await Promise.all(fans.map((cookie, i) => as(i % 2 === 0 ? a : b, cookie).put(reactionUrl(shout.id, '🎉'))))
  const final = (reader: SseClient) => reader.next(e => e.event === 'shout-reactions' && JSON.parse(e.data).reactions[0]?.count === 10, 10_000)
  const [onA, onB] = await Promise.all([final(readerOnA), final(readerOnB)])
  t.equal(onA.id, onB.id, 'the same event on both')
  const events = readerOnB.events.filter(e => e.event === 'shout-reactions').length
  t.ok(events <= Math.ceil((Date.now() - started) / 1000) + 1, `${events} events for 10 reactions on two processes`)
  t.same((await as(b, fans[0]).get(`/api/shoutbox/shouts/${shout.id}`)).json().shout.reactions, [{ emoji: '🎉', count: 10, mine: true }])
})

t.test('migration: a board from before conversation keeps every shout; each answers none', async t => {
  const db = await testDatabase({ persistent: true })
  t.teardown(() => db.drop())
  const before = await build(t, { db })
  const admin = await setUp(before)
  for (const message of ['one', 'two']) await as(before, admin).post('/api/panel/shoutbox', { message })
  await before.db.raw('drop index shoutbox_events_reply_to')
  await before.db.raw('drop table shoutbox_reactions')
  await before.db.raw('alter table shoutbox_shouts drop column reply_to_id, drop column reactions_announced_at, drop column reactions_pending')
  await before.db.raw('alter table shoutbox_flood_control drop column reactions_recent')
  await before.db.raw("update shoutbox_events set shout = shout - 'replyTo'")
  await before.db('schema_migrations').where({ owner: 'shoutbox', name: '012-conversation' }).delete()
  await before.close()
  const after = await build(t, { db })
  t.ok(await after.db('schema_migrations').where({ owner: 'shoutbox', name: '012-conversation' }).first(), 'the migration ran at start')
  t.same((await as(after, undefined).get('/api/shoutbox/latest')).json().shouts.map((s: { message: string, replyTo: unknown, reactions: unknown }) => [s.message, s.replyTo, s.reactions]),
    [['two', null, []], ['one', null, []]])
  const url = `${await after.listen({ port: 0, host: '127.0.0.1' })}/api/shoutbox/stream`
  const replay = connectSse(url, { 'last-event-id': '0' })
  t.teardown(() => replay.close())
  await replay.next(e => e.event === 'shout-created' && JSON.parse(e.data).message === 'two')
  t.ok(replay.events.filter(e => e.event === 'shout-created').every(e => JSON.parse(e.data).replyTo === null), 'the history\'s shouts answer none')
})
