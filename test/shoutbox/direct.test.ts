import t from 'tap'
import { ACCOUNT_PASSWORD, account, roleWith } from '../helpers/identity.js'
import { build, setUp } from '../helpers/app.js'
import { answer, as, error, type Inject } from '../helpers/requests.js'
import { connectSse, type SseClient } from '../helpers/sse.js'
import { Retention } from '../../src/shoutbox/retention.js'
import { NEW_CONVERSATIONS_PER_HOUR } from '../../src/shoutbox/direct/conversations.js'

/**
 * CONTRACT §27, direct messages: a conversation of two members, read by those two alone —
 * staff with every permission, a third member and API tokens reach nothing of it on any
 * path; one refusal for every reason one may not write; the board's rules inside it.
 * One app for the file: each test uses members of its own.
 */

const MOD_NODE = 'addon.shoutbox.manage.shoutbox'
const REFUSED = error('NO_PERMISSION')

const app = await build(t)
const base = await app.listen({ port: 0, host: '127.0.0.1' })
const admin = await setUp(app)
await as(app, admin).put('/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 })
const modRole = await roleWith(app, admin, 'moderators', ['panel.access', MOD_NODE])

const cookies = new Map<string, string>()
/** The session of member `name` (made on first use). */
async function member (name: string, roleId?: number): Promise<string> {
  let cookie = cookies.get(name)
  if (cookie === undefined) {
    cookie = await account(app, admin, name, roleId)
    cookies.set(name, cookie)
  }
  return cookie
}
async function idOf (name: string): Promise<number> {
  const users = (await as(app, admin).get('/api/panel/users')).json().users as Array<{ id: number, username: string }>
  return users.find(user => user.username === name)!.id
}
/** `from` writes to `to` (both made on first use); throws unless it is written. */
async function write (from: string, to: string, message: string, replyTo?: number): Promise<{ conversation: number, shout: { id: number, room: string } }> {
  await member(to)
  const written = await as(app, await member(from)).post(`/api/shoutbox/direct/${to}`, { message, ...(replyTo === undefined ? {} : { replyTo }) })
  if (written.statusCode !== 200) throw new Error(written.body)
  return written.json()
}
const page = async (cookie: string, conversation: number, query = ''): Promise<Inject> => await as(app, cookie).get(`/api/shoutbox/direct/${conversation}/shouts${query}`)
const messages = (response: Inject): string[] => (response.json().shouts as Array<{ message: string }>).map(shout => shout.message)
async function tokenOf (cookie: string, permissions: string[]): Promise<string> {
  const made = await as(app, cookie).post('/api/users/me/tokens', { name: `t${Math.random()}`, permissions })
  if (made.statusCode !== 200) throw new Error(made.body)
  return made.json().secret as string
}
const bearer = (secret: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
  app.inject({ method, url, headers: { authorization: `Bearer ${secret}` }, ...(payload === undefined ? {} : { payload }) })

t.test('a conversation is started, continued, listed with unread counts, paged and marked read', async t => {
  const first = await write('ayse', 'bora', 'Hi Bora')
  t.match(first, { conversation: Number, shout: { message: 'Hi Bora', username: 'ayse', room: `~${first.conversation}`, replyTo: null, reactions: [] } })
  const bora = await member('bora')
  const listed = (await as(app, bora).get('/api/shoutbox/direct')).json()
  t.same(listed, {
    result: 'ok',
    conversations: [{ id: first.conversation, with: { username: 'ayse' }, last: { id: first.shout.id, username: 'ayse', message: 'Hi Bora', date: listed.conversations[0].last.date }, unread: 1 }]
  }, 'the other member sees it, unread')
  const second = await write('bora', 'ayse', 'Hi Ayse')
  t.equal(second.conversation, first.conversation, 'writing back continues the same conversation')
  const ayse = await member('ayse')
  t.same((await as(app, ayse).get('/api/shoutbox/direct')).json().conversations.map((c: { with: { username: string }, unread: number }) => [c.with.username, c.unread]), [['bora', 1]])
  t.same(messages(await page(ayse, first.conversation)), ['Hi Ayse', 'Hi Bora'], 'newest first')
  const one = (await page(ayse, first.conversation, '?limit=1')).json()
  t.same([one.shouts.length, one.next], [1, second.shout.id], 'a page at a time')
  t.same(messages(await page(ayse, first.conversation, `?before=${one.next as number}`)), ['Hi Bora'])
  t.same(answer(await as(app, ayse).put(`/api/shoutbox/direct/${first.conversation}/read`, { lastReadId: second.shout.id })), [200, { result: 'ok', lastReadId: second.shout.id }])
  t.equal((await as(app, ayse).get('/api/shoutbox/direct')).json().conversations[0].unread, 0, 'read')
  t.same(answer(await page(ayse, 999_999)), [404, error('NOT_FOUND')], 'no such conversation')
  t.same(answer(await as(app, ayse).post('/api/shoutbox/direct/bora', {})), [400, { ...error('BAD_REQUEST'), bodyValidationError: "body must have required property 'message'" }])
})

t.test('replies, reactions, edits within the window and deletes work as in a room — for its members only', async t => {
  const asked = await write('ceren', 'deniz', 'Lunch?')
  const answered = await write('deniz', 'ceren', 'Yes!', asked.shout.id)
  t.match(answered.shout, { replyTo: { id: asked.shout.id, username: 'ceren', excerpt: 'Lunch?' } }, 'a reply quotes the original')
  const general = (await as(app, await member('deniz')).post('/api/shoutbox', { message: 'on the board' })).json().shout.id as number
  t.same(answer(await as(app, await member('deniz')).post('/api/shoutbox/direct/ceren', { message: 'x', replyTo: general })), [400, error('BAD_REQUEST', { reason: 'replyTo is not a message of this conversation' })], 'a reply to a shout of a room')
  const deniz = await member('deniz')
  const ceren = await member('ceren')
  t.same(answer(await as(app, deniz).put(`/api/shoutbox/shouts/${asked.shout.id}/reactions/${encodeURIComponent('👍')}`)), [200, { result: 'ok', reactions: [{ emoji: '👍', count: 1, mine: true }] }], 'a reaction')
  const edited = await as(app, ceren).put(`/api/shoutbox/${asked.shout.id}`, { message: 'Lunch at one?' })
  t.equal(edited.statusCode, 200, 'an edit within the window')
  t.same(messages(await page(ceren, asked.conversation)), ['Yes!', 'Lunch at one?'])
  t.match((await page(ceren, asked.conversation)).json().shouts[0].replyTo, { excerpt: 'Lunch at one?' }, 'the quote follows the edit')
  const cem = await member('cem')
  for (const [label, response] of [
    ['react', await as(app, cem).put(`/api/shoutbox/shouts/${asked.shout.id}/reactions/${encodeURIComponent('👍')}`)],
    ['edit', await as(app, cem).put(`/api/shoutbox/${asked.shout.id}`, { message: 'mine now' })],
    ['delete', await as(app, cem).delete(`/api/shoutbox/${asked.shout.id}`)],
    ['report', await as(app, cem).post(`/api/shoutbox/shouts/${asked.shout.id}/report`, { reason: 'spam' })],
    ['edit as staff', await as(app, admin).put(`/api/shoutbox/${asked.shout.id}`, { message: 'mine now' })],
    ['react as staff', await as(app, admin).put(`/api/shoutbox/shouts/${asked.shout.id}/reactions/${encodeURIComponent('👍')}`)]
  ] as const) t.same(answer(response), [404, error('NOT_FOUND')], `a third member or staff may not ${label}`)
  t.same(answer(await as(app, ceren).delete(`/api/shoutbox/${asked.shout.id}`)), [200, { result: 'ok' }], 'its author deletes it')
  const after = (await page(ceren, asked.conversation)).json().shouts
  t.same([after.length, after[0].replyTo], [1, { id: asked.shout.id, deleted: true }], 'gone; the reply says so')
})

t.test('one refusal for every reason one may not write: the same status, body and headers', async t => {
  const writer = await member('ece')
  const eceId = await idOf('ece')
  // Each has a shout on the board: seen there, they may be ignored.
  for (const name of ['ece', 'fikri', 'gul']) await as(app, await member(name)).post('/api/shoutbox', { message: `hello from ${name}` })
  await as(app, await member('fikri')).put(`/api/users/me/ignored/${eceId}`)
  await as(app, writer).put(`/api/users/me/ignored/${await idOf('gul')}`)
  await as(app, await member('hale')).put('/api/shoutbox/direct/preferences', { acceptDirectMessages: 'nobody' })
  await write('ilke', 'ece', 'before the mute')
  await as(app, admin).post('/api/panel/shoutbox/mutes', { userId: await idOf('ilke'), minutes: 60 })
  const attempts: Array<[string, () => Promise<Inject>]> = [
    ['no such member', () => as(app, writer).post('/api/shoutbox/direct/nobody-here', { message: 'hi' })],
    ['oneself', () => as(app, writer).post('/api/shoutbox/direct/ece', { message: 'hi' })],
    ['one who ignores the writer', () => as(app, writer).post('/api/shoutbox/direct/fikri', { message: 'hi' })],
    ['one the writer ignores', () => as(app, writer).post('/api/shoutbox/direct/gul', { message: 'hi' })],
    ['one who accepts none', () => as(app, writer).post('/api/shoutbox/direct/hale', { message: 'hi' })],
    ['a muted writer, in a conversation already there', () => as(app, cookies.get('ilke')!).post('/api/shoutbox/direct/ece', { message: 'hi again' })]
  ]
  const seen: string[] = []
  for (const [label, attempt] of attempts) {
    const response = await attempt()
    t.same(answer(response), [403, REFUSED], label)
    seen.push(JSON.stringify([response.statusCode, response.headers['content-type'], response.headers['content-length'], response.body]))
  }
  t.equal(new Set(seen).size, 1, 'nothing tells one reason from another')
  await as(app, admin).put('/api/panel/shoutbox/config', { directMessages: false })
  const off = await as(app, writer).post('/api/shoutbox/direct/ilke', { message: 'while off' })
  await as(app, admin).put('/api/panel/shoutbox/config', { directMessages: true })
  t.same(JSON.stringify([off.statusCode, off.headers['content-type'], off.headers['content-length'], off.body]), seen[0], 'direct messages turned off: the same answer')
  t.same((await as(app, writer).get('/api/shoutbox/direct')).json().conversations.map((c: { with: { username: string } }) => c.with.username), ['ilke'], 'no conversation was started by a refusal')
  t.same(answer(await as(app, await member('hale')).get('/api/shoutbox/direct/preferences')), [200, { result: 'ok', acceptDirectMessages: 'nobody' }])
  t.same(answer(await as(app, writer).get('/api/shoutbox/direct/preferences')), [200, { result: 'ok', acceptDirectMessages: 'everyone' }], 'everyone by default')
  t.equal((await as(app, writer).put('/api/shoutbox/direct/preferences', { acceptDirectMessages: 'friends' })).statusCode, 400)
  // A preference holds in a conversation already there too.
  await as(app, cookies.get('ece')!).put('/api/shoutbox/direct/preferences', { acceptDirectMessages: 'nobody' })
  await as(app, admin).delete(`/api/panel/shoutbox/mutes/${await idOf('ilke')}`)
  t.same(answer(await as(app, cookies.get('ilke')!).post('/api/shoutbox/direct/ece', { message: 'unmuted now' })), [403, REFUSED], 'one who now accepts none, in an old conversation')
})

t.test(`new conversations: ${NEW_CONVERSATIONS_PER_HOUR} an hour per member, then 429; flood control and watched words apply`, async t => {
  for (let i = 0; i < NEW_CONVERSATIONS_PER_HOUR; i++) await write('jale', `target${i}`, `hello ${i}`)
  await member(`target${NEW_CONVERSATIONS_PER_HOUR}`)
  const refused = await as(app, await member('jale')).post(`/api/shoutbox/direct/target${NEW_CONVERSATIONS_PER_HOUR}`, { message: 'one too many' })
  t.same(answer(refused), [429, error('TOO_MANY_REQUESTS')], 'the next new one is refused')
  t.ok(Number(refused.headers['retry-after']) > 0, 'with Retry-After')
  t.equal((await write('jale', 'target0', 'an old one goes on')).conversation > 0, true, 'continuing one is not a new one')
  t.same(answer(await as(app, await member('jale')).post('/api/shoutbox/direct/target0', { message: 'an old one goes on' })), [409, error('DUPLICATE_SHOUT')], 'flood control: the same text again')
  await as(app, admin).post('/api/panel/shoutbox/words', { pattern: 'casino', action: 'block' })
  await as(app, admin).post('/api/panel/shoutbox/words', { pattern: 'lottery', action: 'hold' })
  t.same(answer(await as(app, await member('jale')).post('/api/shoutbox/direct/target1', { message: 'cheap casino' })), [400, error('WATCHED_WORD')], 'a word that blocks')
  t.same(answer(await as(app, await member('jale')).post('/api/shoutbox/direct/target1', { message: 'win the lottery' })), [400, error('WATCHED_WORD')], 'a word that would hold refuses: no one else reads a conversation')
  t.notOk(JSON.stringify((await as(app, admin).get('/api/panel/shoutbox/review')).json()).includes('lottery'), 'nothing went to the queue')
})

t.test('notifications: kind direct, at most one unread a conversation, its members\' alone', async t => {
  await write('kaan', 'lale', 'one')
  await write('kaan', 'lale', 'two')
  const last = await write('kaan', 'lale', 'three')
  const lale = await member('lale')
  const listed = (await as(app, lale).get('/api/notifications')).json()
  const direct = listed.notifications.filter((n: { kind: string }) => n.kind === 'direct')
  t.same(direct.map((n: { data: unknown, read: boolean }) => [n.data, n.read]), [[{ conversation: last.conversation, room: `~${last.conversation}`, shoutId: last.shout.id, by: 'kaan', excerpt: 'three' }, false]], 'one, of the newest message')
  const token = await tokenOf(lale, ['addon.shoutbox.post'])
  const byToken = (await bearer(token, 'GET', '/api/notifications')).json()
  t.notOk(JSON.stringify(byToken).includes('three'), 'a token of hers lists none of it')
})

t.test('every read path, as a third member, as staff with every permission and with tokens: nothing of a conversation', async t => {
  const SECRET = 'qxzanzibar'
  const hook = await as(app, admin).post('/api/panel/webhooks', { url: 'https://chat.example.org/hooks/dm', events: ['shout.created', 'shout.edited', 'shout.deleted', 'report.created'] })
  t.equal(hook.statusCode, 200)
  const ops = await member('ops', modRole)
  const nazli = await member('nazli')
  const cem = await member('cem')
  const streams: Record<string, SseClient> = {
    nazli: connectSse(`${base}/api/shoutbox/stream`, { cookie: nazli }),
    admin: connectSse(`${base}/api/shoutbox/stream`, { cookie: admin }),
    cem: connectSse(`${base}/api/shoutbox/stream`, { cookie: cem })
  }
  t.teardown(() => { for (const stream of Object.values(streams)) stream.close() })
  for (const stream of Object.values(streams)) await stream.next(event => event.event === 'ready')
  const started = await write('mert', 'nazli', `first ${SECRET}`)
  const id = started.conversation
  const asked = { stream: connectSse(`${base}/api/shoutbox/stream?rooms=general,~${id}`, { cookie: admin }) }
  t.teardown(() => asked.stream.close())
  await asked.stream.next(event => event.event === 'ready')
  // The conversation is known on every stream now (a start is a change of rooms): its next message is live.
  await streams.nazli!.next(event => event.event === 'rooms-changed')
  const dm = await write('mert', 'nazli', `second ${SECRET}`)
  await as(app, await member('mert')).put(`/api/shoutbox/${dm.shout.id}`, { message: `second, edited ${SECRET}` })
  await as(app, cem).post('/api/shoutbox', { message: 'a public hello' })
  await streams.nazli!.next(event => event.data.includes(`second, edited ${SECRET}`))
  for (const name of ['admin', 'cem'] as const) await streams[name]!.next(event => event.data.includes('a public hello'))
  await asked.stream.next(event => event.data.includes('a public hello'))
  for (const name of ['admin', 'cem'] as const) t.notOk(streams[name]!.events.some(event => event.data.includes(SECRET) || event.data.includes(`"~${id}"`)), `${name}'s stream carries none of it`)
  t.notOk(asked.stream.events.some(event => event.data.includes(SECRET)), 'nor when it names the conversation')
  const replay = connectSse(`${base}/api/shoutbox/stream?rooms=general,~${id}`, { cookie: admin, 'last-event-id': '0' })
  t.teardown(() => replay.close())
  await replay.next(event => event.data.includes('a public hello'))
  t.notOk(replay.events.some(event => event.data.includes(SECRET)), 'nor a replay')

  const adminToken = await tokenOf(admin, ['*'])
  const ownToken = await tokenOf(nazli, ['addon.shoutbox.post'])
  const nazliId = await idOf('nazli')
  const mertId = await idOf('mert')
  const reads = (who: string, call: (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: Record<string, unknown>) => Promise<Inject>) => [
    call('GET', '/api/shoutbox/direct'), call('GET', `/api/shoutbox/direct/${id}/shouts`), call('PUT', `/api/shoutbox/direct/${id}/read`, { lastReadId: 1 }),
    call('GET', `/api/shoutbox/shouts/${dm.shout.id}`), call('GET', `/api/shoutbox/archive?room=~${id}`), call('GET', `/api/shoutbox/archive?q=${SECRET}`),
    call('GET', `/api/shoutbox/rooms/~${id}/shouts`), call('GET', `/api/shoutbox/rooms/general/shouts?q=${SECRET}`), call('GET', `/api/shoutbox/latest?room=~${id}`),
    call('GET', '/api/shoutbox/latest'), call('GET', '/api/shoutbox/list'), call('GET', '/api/shoutbox/rooms'), call('GET', `/api/shoutbox/rooms/~${id}/pinned`),
    call('GET', `/api/shoutbox/shouts/${dm.shout.id}/author`), call('PUT', `/api/shoutbox/shouts/${dm.shout.id}/reactions/${encodeURIComponent('👍')}`),
    call('POST', `/api/shoutbox/shouts/${dm.shout.id}/report`, { reason: 'spam' }), call('GET', '/api/notifications'),
    call('GET', '/api/panel/shoutbox/rooms'), call('PUT', `/api/panel/shoutbox/rooms/${id}`, { name: 'Mine' }), call('DELETE', `/api/panel/shoutbox/rooms/${id}`),
    call('PUT', `/api/panel/shoutbox/${dm.shout.id}`, { message: 'read it' }), call('DELETE', `/api/panel/shoutbox/${dm.shout.id}`),
    call('PUT', `/api/panel/shoutbox/${dm.shout.id}/pin`, { pinned: true }), call('GET', `/api/panel/shoutbox/${dm.shout.id}/author`),
    call('GET', '/api/panel/shoutbox/review'), call('GET', '/api/panel/logs/activity'), call('GET', '/api/panel/permissions'),
    call('GET', `/api/panel/users/${nazliId}/export`), call('GET', `/api/panel/users/${mertId}/export`), call('GET', '/api/users/me/export')
  ].map(async (pending, index) => {
    const response = await pending
    t.notOk(response.body.includes(SECRET) || response.body.includes(`"~${id}"`) || (response.statusCode === 200 && index === 1), `${who}: read path ${index} (${response.statusCode}) shows nothing of it`)
  })
  for (const [who, cookie] of [['a third member', cem], ['an administrator (every permission)', admin], ['a moderator', ops]] as const) {
    await Promise.all(reads(who, (method, url, payload) => app.inject({ method, url, headers: { cookie }, ...(payload === undefined ? {} : { payload }) })))
  }
  for (const [who, secret] of [['the administrator\'s token with every permission', adminToken], ['a member\'s own token', ownToken]] as const) {
    await Promise.all(reads(who, (method, url, payload) => bearer(secret, method, url, payload)))
  }
  t.same(messages(await page(nazli, id)).length, 2, 'its member\'s session reads it, and nothing above changed it')
  const deliveries = await app.db('webhook_deliveries').select('data')
  t.ok(deliveries.some(row => JSON.stringify(row.data).includes('a public hello')), 'the hook hears the board')
  t.notOk(deliveries.some(row => JSON.stringify(row.data).includes(SECRET) || JSON.stringify(row.data).includes(`"~${id}"`)), 'and no direct message')
  const logged = await app.db('activity_logs').select('details')
  t.notOk(logged.some(row => JSON.stringify(row.details).includes(SECRET)), 'the activity log holds none of it')
})

t.test('a reported message shows in the review queue with the five messages before it, and nothing else', async t => {
  const sent: Array<{ id: number, conversation: number }> = []
  for (let i = 1; i <= 7; i++) {
    const written = await write(i % 2 === 0 ? 'pelin' : 'oguz', i % 2 === 0 ? 'oguz' : 'pelin', `message ${i}`)
    sent.push({ id: written.shout.id, conversation: written.conversation })
  }
  const reported = sent[6]!
  t.same(answer(await as(app, await member('pelin')).post(`/api/shoutbox/shouts/${reported.id}/report`, { reason: 'abuse' })), [200, { result: 'ok' }], 'the other member reports it')
  const queue = (await as(app, admin).get('/api/panel/shoutbox/review')).json()
  const item = queue.items.find((each: { shout: { id: number } }) => each.shout.id === reported.id)
  t.same(item.context.map((each: { message: string }) => each.message), ['message 2', 'message 3', 'message 4', 'message 5', 'message 6'], 'the five before it, oldest first')
  t.notOk(JSON.stringify(queue).includes('message 1'), 'nothing more of the conversation')
  t.same(answer(await as(app, admin).post(`/panel/api/shoutbox/review/${reported.id}`, { action: 'delete' })), [200, { result: 'ok' }], 'staff decide on it')
  t.same(messages(await page(await member('oguz'), reported.conversation)).length, 6, 'it is gone from the conversation')
  const logged = await app.db('activity_logs').where({ type: 'DELETED_SHOUT' }).select('details')
  t.notOk(logged.some(row => JSON.stringify(row.details).includes('message 7')), 'the record names the decision, not the words')
})

t.test('export holds one\'s conversations; erasure deletes one\'s messages and the other sees `deleted user`', async t => {
  const { conversation } = await write('rana', 'sinan', 'from rana')
  await write('sinan', 'rana', 'from sinan')
  const exported = (await as(app, await member('rana')).get('/api/users/me/export')).json().export.addons.shoutbox
  t.same(exported.conversations.map((m: { conversation: number, with: string, username: string, message: string }) => [m.conversation, m.with, m.username, m.message]),
    [[conversation, 'sinan', 'rana', 'from rana'], [conversation, 'sinan', 'sinan', 'from sinan']], 'both sides of her conversation')
  const byStaff = (await as(app, admin).get(`/api/panel/users/${await idOf('rana')}/export`)).json().export
  t.notOk(JSON.stringify(byStaff).includes('from '), 'an administrator\'s export of her holds none of it')
  t.same(answer(await app.inject({ method: 'DELETE', url: '/api/users/me', headers: { cookie: await member('rana') }, payload: { password: ACCOUNT_PASSWORD } })), [200, { result: 'ok' }])
  const sinan = await member('sinan')
  t.same((await as(app, sinan).get('/api/shoutbox/direct')).json().conversations.map((c: { id: number, with: { username: string } }) => [c.id, c.with.username]), [[conversation, 'deleted user']])
  t.same(messages(await page(sinan, conversation)), ['from sinan'], 'her messages went')
  t.equal((await app.db('shoutbox_shouts').where({ message: 'from rana' })).length, 0, 'from the database too')
  t.notOk(JSON.stringify((await as(app, sinan).get('/api/notifications')).json()).includes('from rana'), 'and from his notifications')
  t.same(answer(await as(app, sinan).post('/api/shoutbox/direct/rana', { message: 'still there?' })), [403, REFUSED], 'no one to write to')
})

t.test('retention applies to conversations', async t => {
  const { conversation, shout } = await write('tuna', 'umut', 'an old message')
  await write('umut', 'tuna', 'a new one')
  await app.db('shoutbox_shouts').where({ id: shout.id }).update({ date: Date.now() - 3 * 86_400_000 })
  await as(app, admin).put('/api/panel/shoutbox/config', { keepDays: 1 })
  await Retention.of(app.addons.runtimes.get('shoutbox')!.ctx).run()
  await as(app, admin).put('/api/panel/shoutbox/config', { keepDays: null })
  t.same(messages(await page(await member('umut'), conversation)), ['a new one'])
})

// The app listens for the streams: it is closed once every test above has run, so the process may end.
t.test('closing', async () => { await app.close() })
