import t, { type Test } from 'tap'
import { answer, as, error } from '../helpers/requests.js'
import { build, login, setUp, type App } from '../helpers/app.js'
import { DB_KIND, testDatabase } from '../helpers/database.js'
import { eventually } from '../helpers/eventually.js'
import { ACCOUNT_PASSWORD, account, roleWith } from '../helpers/identity.js'
import type { AddonContext } from '../../src/sdk/index.js'
import { MarkLimits } from '../../src/shoutbox/read-markers.js'
import { Retention } from '../../src/shoutbox/retention.js'
import { ANSWERED_KEYS, DEFAULT_REACTIONS, MODERATION_DEFAULTS, answered } from '../helpers/shouts.js'
import { connectSse, type SseClient } from '../helpers/sse.js'

/** CONTRACT §15: rooms — several conversations on one board, each read and written by whom it says. */

const PASSWORD = ACCOUNT_PASSWORD
const NOT_FOUND = JSON.stringify(error('NOT_FOUND'))
const MOD_NODE = 'addon.shoutbox.manage.shoutbox'





/**
 * A board with the rooms a community site keeps: `general` (everyone), `members` (signed
 * in), `staff` (panel access), `news` (everyone reads, moderators write). Accounts: a
 * member, a clerk (panel access, no shoutbox rights) and a moderator.
 */
async function board (t: Test, app?: App) {
  app ??= await build(t)
  const admin = await setUp(app)
  await as(app, admin).put('/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 })
  const rooms: Record<string, { id: number }> = {}
  for (const [slug, read, post] of [['members', 'signed-in', undefined], ['staff', 'panel.access', 'panel.access'], ['news', 'everyone', MOD_NODE]] as const) {
    const made = await as(app, admin).post('/api/panel/shoutbox/rooms', { slug, name: slug[0]!.toUpperCase() + slug.slice(1), read, ...(post === undefined ? {} : { post }) })
    if (made.statusCode !== 200) throw new Error(made.body)
    rooms[slug] = made.json().room
  }
  const member = await account(app, admin, 'mira')
  const clerk = await account(app, admin, 'clerk', await roleWith(app, admin, 'clerks', ['panel.access']))
  const mod = await account(app, admin, 'mod', await roleWith(app, admin, 'moderators', ['panel.access', MOD_NODE]))
  return { app, admin, member, clerk, mod, rooms }
}

t.test('the default room: every board has it, the seed\'s endpoints act on it, answers unchanged', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  t.same(answer(await as(app, undefined).get('/api/shoutbox/rooms')), [200, {
    result: 'ok', rooms: [{ id: 1, slug: 'general', name: 'General', description: '', canPost: false }]
  }], 'a visitor reads it and may not post')
  const member = await account(app, admin, 'mira')
  t.same((await as(app, member).get('/api/shoutbox/rooms')).json().rooms.map((r: { canPost: boolean }) => r.canPost), [true], 'a member may post')
  t.same(answer(await as(app, admin).post('/api/panel/shoutbox', { message: 'from the panel' })), [200, { result: 'ok' }])
  const list = (await as(app, undefined).get('/api/shoutbox/list')).json().shouts
  t.same(Object.keys(list[0]), ['id', 'message', 'username', 'date'], 'the list keeps its four fields')
  const permalink = (await as(app, undefined).get(`/api/shoutbox/shouts/${list[0].id as number}`)).json().shout
  t.same(permalink, answered(list[0]), 'every other answer names the room (then replyTo and reactions, CONTRACT §16)')
  const feed = (await as(app, admin).get('/api/panel/logs/activity')).json().logs
  t.match(feed[0], { type: 'CREATED_SHOUT', details: { message: 'from the panel', room: 'general' } }, 'a staff publish logs its room')
  t.same(answer(await as(app, admin).delete('/api/panel/shoutbox/rooms/1')), [409, error('DEFAULT_ROOM')], 'it cannot be archived')
  t.same(answer(await as(app, admin).put('/api/panel/shoutbox/rooms/1', { read: 'signed-in' })), [409, error('DEFAULT_ROOM')], 'nor hidden: the seed\'s list is public')
  t.same((await as(app, admin).put('/api/panel/shoutbox/rooms/1', { name: 'Lobby', description: 'Say hello' })).json().room,
    { id: 1, slug: 'general', name: 'Lobby', description: 'Say hello', read: 'everyone', post: 'addon.shoutbox.post', position: 0, archived: false, slowModeSeconds: 0, guestsPost: false },
    'it may be renamed')
})

t.test('the panel manages rooms: made, changed, reordered and archived, each in the feed in English and Turkish', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const panel = as(app, admin)
  const made = await panel.post('/api/panel/shoutbox/rooms', { slug: 'staff', name: '  Staff  ', description: 'For the team', read: 'panel.access', post: 'panel.access' })
  t.same(answer(made), [200, {
    result: 'ok', room: { id: 2, slug: 'staff', name: 'Staff', description: 'For the team', read: 'panel.access', post: 'panel.access', position: 1, archived: false, slowModeSeconds: 0, guestsPost: false }
  }], 'placed after the default room, its name trimmed')
  t.same(answer(await panel.post('/api/panel/shoutbox/rooms', { slug: 'staff', name: 'Again' })), [409, error('ROOM_SLUG_TAKEN')])
  const made2 = await panel.post('/api/panel/shoutbox/rooms', { slug: 'off-topic', name: 'Off topic' })
  t.match(made2.json().room, { id: 3, read: 'everyone', post: 'addon.shoutbox.post', position: 2 }, 'readable by everyone and posted in with POST_SHOUTS unless it says')
  for (const [body, what] of [
    [{ slug: 'Staff', name: 'x' }, 'upper case'], [{ slug: '-x', name: 'x' }, 'a leading dash'], [{ slug: 'a'.repeat(33), name: 'x' }, 'too long'],
    [{ slug: 'x y', name: 'x' }, 'a space'], [{ slug: 'ok', name: '   ' }, 'a blank name'], [{ slug: 'ok', name: 'x', read: 'nobody at all' }, 'a read that is no node'],
    [{ slug: 'ok', name: 'x', slowModeSeconds: 3601 }, 'slow mode past an hour'], [{ slug: 'ok', name: 'x', post: '' }, 'an empty post node']
  ] as const) {
    const refused = await panel.post('/api/panel/shoutbox/rooms', body)
    t.same([refused.statusCode, refused.json().error], [400, 'BAD_REQUEST'], `refused: ${what}`)
  }
  t.equal((await panel.get('/api/panel/shoutbox/rooms')).json().rooms.length, 3, 'nothing made by a refused request')

  const moved = await panel.put('/api/panel/shoutbox/rooms/3', { position: 0, slowModeSeconds: 30 })
  t.match(moved.json().room, { slug: 'off-topic', position: 0, slowModeSeconds: 30 })
  t.same((await as(app, undefined).get('/api/shoutbox/rooms')).json().rooms.map((r: { slug: string }) => r.slug), ['general', 'off-topic'],
    'by position (then age); the staff room is not named to a visitor')
  t.same(answer(await panel.put('/api/panel/shoutbox/rooms/99', { name: 'x' })), [404, error('NOT_FOUND')])
  t.same(answer(await panel.delete('/api/panel/shoutbox/rooms/3')), [200, { result: 'ok' }])
  t.same((await as(app, undefined).get('/api/shoutbox/rooms')).json().rooms.map((r: { slug: string }) => r.slug), ['general'], 'an archived room leaves the list')
  t.match((await panel.get('/api/panel/shoutbox/rooms')).json().rooms.find((r: { id: number }) => r.id === 3), { archived: true }, 'the panel still shows it')
  t.same(answer(await panel.put('/api/panel/shoutbox/rooms/3', { name: 'Off topic' })), [200, { result: 'ok', room: (await panel.get('/api/panel/shoutbox/rooms')).json().rooms.find((r: { id: number }) => r.id === 3) }],
    'a change to nothing is answered, and logged as nothing')

  const texts = async (locale: string) => ((await panel.get(`/api/panel/logs/activity?locale=${locale}`)).json().logs as Array<{ text: string }>).slice(0, 4).map(log => log.text)
  t.same(await texts('en'), [
    'admin archived the room Off topic (off-topic)',
    'admin changed the room Off topic (off-topic): position, slowModeSeconds',
    'admin created the room Off topic (off-topic)',
    'admin created the room Staff (staff)'
  ])
  t.same(await texts('tr'), [
    'admin, Off topic (off-topic) odasını arşivledi',
    'admin, Off topic (off-topic) odasını değiştirdi: position, slowModeSeconds',
    'admin, Off topic (off-topic) odasını oluşturdu',
    'admin, Staff (staff) odasını oluşturdu'
  ])
})

t.test('attack: the panel\'s room endpoints as a visitor, a member and staff without MANAGE_SHOUTBOX', async t => {
  const { app, member, clerk } = await board(t)
  const before = await app.db('shoutbox_rooms').orderBy('id').select()
  const attempts = [
    ['GET', '/api/panel/shoutbox/rooms', undefined], ['POST', '/api/panel/shoutbox/rooms', { slug: 'mine', name: 'Mine' }],
    ['PUT', '/api/panel/shoutbox/rooms/3', { read: 'everyone' }], ['DELETE', '/api/panel/shoutbox/rooms/2', undefined]
  ] as const
  for (const [method, url, payload] of attempts) {
    const visitor = await app.inject({ method, url, ...(payload === undefined ? {} : { payload }) })
    t.same(answer(visitor), [401, error('NOT_LOGGED_IN')], `${method} ${url} as a visitor`)
    const asMember = await app.inject({ method, url, headers: { cookie: member }, ...(payload === undefined ? {} : { payload }) })
    t.same(answer(asMember), [403, error('NO_PERMISSION')], `${method} ${url} as a member`)
    const asClerk = await app.inject({ method, url, headers: { cookie: clerk }, ...(payload === undefined ? {} : { payload }) })
    t.same(answer(asClerk), [403, error('NO_PERMISSION')], `${method} ${url} as staff without MANAGE_SHOUTBOX`)
  }
  const crossSite = await app.inject({ method: 'POST', url: '/api/panel/shoutbox/rooms', headers: { cookie: member, origin: 'https://evil.example' }, payload: { slug: 'x', name: 'x' } })
  t.same(answer(crossSite), [403, error('INVALID_ORIGIN')], 'from another site')
  t.same(await app.db('shoutbox_rooms').orderBy('id').select(), before, 'no room changed')
})

t.test('attack: bursts — one slug asked for twenty times at once, a member posting fifty times at once in a room', async t => {
  const { app, admin, member } = await board(t)
  const creates = await Promise.all(Array.from({ length: 20 }, (_, i) => as(app, admin).post('/api/panel/shoutbox/rooms', { slug: 'race', name: `Race ${i}` })))
  t.same(creates.map(r => r.statusCode).sort(), [200, ...Array(19).fill(409)], 'exactly one room made')
  t.ok(creates.filter(r => r.statusCode === 409).every(r => r.body === JSON.stringify(error('ROOM_SLUG_TAKEN'))), 'the others: ROOM_SLUG_TAKEN')
  t.equal(Number((await app.db('activity_logs').where({ type: 'CREATED_ROOM', }).count<Array<{ count: string }>>({ count: '*' }))[0]!.count), 4, 'logged once (with the board\'s three)')
  await as(app, admin).put('/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 10 })
  const posts = await Promise.all(Array.from({ length: 50 }, (_, i) => as(app, member).post('/api/shoutbox/rooms/members/shouts', { message: `burst ${i}` })))
  t.equal(posts.filter(r => r.statusCode === 200).length, 10, 'the flood rules hold in a room: maxShoutsPerMinute stored')
  const refused = posts.filter(r => r.statusCode !== 200)
  t.ok(refused.filter(r => r.statusCode === 429).length >= 10 && refused.every(r => (r.statusCode === 429 && r.headers['retry-after'] !== undefined) || r.json().error === 'MUTED'),
    'the rest: 429 with Retry-After, until the tenth refusal has the board mute the member (403 MUTED)')
  t.equal((await app.db('shoutbox_mutes').whereNull('by_id')).length, 1, 'muted once, by the board')
  const hidden = await Promise.all(Array.from({ length: 50 }, () => as(app, member).post('/api/shoutbox/rooms/staff/shouts', { message: 'in?' })))
  t.ok(hidden.every(r => r.statusCode === 404 && r.body === JSON.stringify(error('NOT_FOUND'))), 'fifty posts into a room one may not read: all 404, nothing stored')
  t.equal(Number((await app.db('shoutbox_shouts').where({ room_id: 3 }).count<Array<{ count: string }>>({ count: '*' }))[0]!.count), 0)
})

t.test('who reads and posts where: a room one may not read does not exist for them', async t => {
  const { app, admin, member, clerk, mod } = await board(t)
  const slugs = async (cookie?: string) => ((await as(app, cookie).get('/api/shoutbox/rooms')).json().rooms as Array<{ slug: string, canPost: boolean }>)
    .map(room => `${room.slug}${room.canPost ? '+' : ''}`)
  t.same(await slugs(), ['general', 'news'], 'a visitor: the public rooms, posting in none')
  t.same(await slugs(member), ['general+', 'members+', 'news'], 'a member: the signed-in room too; news is the moderators\' to write')
  t.same(await slugs(clerk), ['general', 'members', 'staff+', 'news'], 'staff without the members\' node: reads, posts in the staff room')
  t.same(await slugs(mod), ['general+', 'members+', 'staff+', 'news+'], 'a moderator: every room')
  t.same(await slugs(admin), ['general+', 'members+', 'staff+', 'news+'], 'an administrator: every room')

  const posted = await as(app, clerk).post('/api/shoutbox/rooms/staff/shouts', { message: 'staff only: the server moves on Friday' })
  t.match(answer(posted), [200, { result: 'ok', shout: { message: 'staff only: the server moves on Friday', username: 'clerk', room: 'staff' } }])
  const staffShout = posted.json().shout.id as number
  t.same(Object.keys(posted.json().shout), ANSWERED_KEYS)

  // Existence probing: a room one may not read answers exactly as a room that does not exist.
  for (const [who, cookie] of [['a visitor', undefined], ['a member', member]] as const) {
    for (const path of ['/shouts', '/shouts?limit=5&q=server', '/pinned']) {
      const hidden = await as(app, cookie).get(`/api/shoutbox/rooms/staff${path}`)
      const unknown = await as(app, cookie).get(`/api/shoutbox/rooms/no-such-room${path}`)
      t.same([hidden.statusCode, hidden.body, hidden.headers['content-type']], [404, NOT_FOUND, 'application/json; charset=utf-8'], `${who}: GET staff${path}`)
      t.same([unknown.statusCode, unknown.body], [hidden.statusCode, hidden.body], `${who}: byte for byte as an unknown room`)
    }
    const archive = await as(app, cookie).get('/api/shoutbox/archive?room=staff')
    t.same([archive.statusCode, archive.body], [404, NOT_FOUND], `${who}: the archive of the staff room`)
    const latest = await as(app, cookie).get('/api/shoutbox/latest?room=staff')
    t.same([latest.statusCode, latest.body], [404, NOT_FOUND], `${who}: the latest of the staff room`)
    const permalink = await as(app, cookie).get(`/api/shoutbox/shouts/${staffShout}`)
    const noShout = await as(app, cookie).get('/api/shoutbox/shouts/999999')
    t.same([permalink.statusCode, permalink.body], [noShout.statusCode, noShout.body], `${who}: its permalink answers as a shout that never was`)
  }
  const memberPost = await as(app, member).post('/api/shoutbox/rooms/staff/shouts', { message: 'let me in' })
  const memberNowhere = await as(app, member).post('/api/shoutbox/rooms/nowhere/shouts', { message: 'let me in' })
  t.same([memberPost.statusCode, memberPost.body], [404, NOT_FOUND], 'a member posting in the staff room: no such room')
  t.same(memberNowhere.body, memberPost.body)
  t.same(answer(await as(app, undefined).post('/api/shoutbox/rooms/general/shouts', { message: 'hi' })), [401, error('NOT_LOGGED_IN')], 'a visitor posts nowhere')
  t.same(answer(await as(app, member).post('/api/shoutbox/rooms/news/shouts', { message: 'my news' })), [403, error('NO_PERMISSION')],
    'a room one reads but may not write: NO_PERMISSION')
  t.same(answer(await as(app, clerk).post('/api/shoutbox/rooms/general/shouts', { message: 'hi' })), [403, error('NO_PERMISSION')],
    'staff without POST_SHOUTS in the default room')
  t.equal((await as(app, mod).get(`/api/shoutbox/shouts/${staffShout}`)).json().shout.room, 'staff', 'a moderator reads it, and its permalink names the room')

  // Nothing leaks into the public answers.
  const everywhere = JSON.stringify([
    (await as(app, undefined).get('/api/shoutbox/list')).json(), (await as(app, undefined).get('/api/shoutbox/archive?limit=100')).json(),
    (await as(app, undefined).get('/api/shoutbox/archive?q=server')).json(), (await as(app, member).get('/api/shoutbox/latest')).json(),
    (await as(app, undefined).get('/api/shoutbox/pinned')).json(), (await as(app, member).get('/api/shoutbox/rooms/members/shouts?q=server')).json()
  ])
  t.notMatch(everywhere, /server moves/, 'the staff shout is in no answer a member or visitor gets')
  t.equal((await as(app, clerk).get('/api/shoutbox/rooms/staff/shouts?q=server')).json().shouts.length, 1, 'search in the room finds it for staff')
})

t.test('attack: what staff and members learn of a room they may not read, by the feed, the Roles page, their own shouts\' paths and the panel', async t => {
  const { app, admin, member, clerk, mod } = await board(t)
  // A room only its own node's holders read; a clerk (panel access) does not hold it.
  const vip = (await as(app, admin).post('/api/panel/shoutbox/rooms', { slug: 'vip', name: 'VIP lounge', read: 'addon.shoutbox.room.vip.read' })).json().room as { id: number }
  await as(app, admin).post('/api/panel/shoutbox', { message: 'the secret guest list', room: 'vip' })
  const secret = (await as(app, mod).post('/api/shoutbox/rooms/vip/shouts', { message: 'vip only: the code is 4711' })).json().shout.id as number
  await as(app, mod).put(`/api/panel/shoutbox/${secret}/pin`, { pinned: true })
  await as(app, mod).put(`/api/panel/shoutbox/${secret}`, { message: 'vip only: the code changed' })
  await as(app, admin).put(`/api/panel/shoutbox/rooms/${vip.id}`, { description: 'whispers' })

  const feed = async (cookie: string, locale = 'en') => (await as(app, cookie).get(`/api/panel/logs/activity?locale=${locale}`)).json().logs as Array<{ type: string, details: Record<string, unknown>, text: string }>
  const seen = await feed(clerk)
  t.notMatch(JSON.stringify(seen), /secret|4711|code changed|VIP|vip|whispers/, 'the feed of a panel user who may not read the room holds nothing of it')
  t.same(seen.slice(0, 5).map(log => [log.type, log.details, log.text]), [
    ['UPDATED_ROOM', { variant: 'hidden' }, 'admin changed a room you may not read'],
    ['EDITED_SHOUT', { variant: 'hidden' }, 'mod edited a shout in a room you may not read'],
    ['PINNED_SHOUT', { variant: 'hidden' }, 'mod pinned a shout in a room you may not read'],
    ['CREATED_SHOUT', { variant: 'hidden' }, 'admin posted a shout in a room you may not read'],
    ['CREATED_ROOM', { variant: 'hidden' }, 'admin created a room you may not read']
  ], 'it says that something happened, and who did it')
  t.equal((await feed(clerk, 'tr'))[0]!.text, 'admin, okuyamadığınız bir odayı değiştirdi', 'in Turkish too')
  t.match((await feed(mod))[1], { type: 'EDITED_SHOUT', details: { message: 'vip only: the code changed', room: 'vip' } }, 'a moderator reads it whole')
  t.match((await feed(admin))[3], { details: { message: 'the secret guest list', room: 'vip' } }, 'so does an administrator')

  const nodes = async (cookie: string) => ((await as(app, cookie).get('/api/panel/permissions')).json().permissions as Array<{ node: string }>).map(p => p.node)
  t.notOk((await nodes(clerk)).some(node => node.includes('.room.vip.')), 'the Roles page does not name the room\'s nodes to one who may not read it')
  t.ok((await nodes(clerk)).includes('addon.shoutbox.room.staff.read'), 'it names those of the rooms they read')
  t.ok((await nodes(admin)).includes('addon.shoutbox.room.vip.read'))
  const rolesManager = await account(app, admin, 'ramona', await roleWith(app, admin, 'role-makers', ['panel.access', 'panel.manage.roles']))
  const probe = async (node: string) => { const r = await as(app, rolesManager).post('/api/panel/roles', { name: `probe ${node.length}${Math.random()}`, permissions: [node] }); return [r.statusCode, r.json().error] }
  t.same(await probe('addon.shoutbox.room.vip.read'), await probe('addon.shoutbox.room.nothing-here.read'), 'a roles manager probing for a room\'s node: as for no room at all')

  // Someone else's shout by id, on one's own shout's paths: a hidden room's is not there.
  for (const [method, payload] of [['PUT', { message: 'mine now' }], ['DELETE', undefined]] as const) {
    const hidden = await app.inject({ method, url: `/api/shoutbox/${secret}`, headers: { cookie: member }, ...(payload === undefined ? {} : { payload }) })
    const none = await app.inject({ method, url: '/api/shoutbox/999999', headers: { cookie: member }, ...(payload === undefined ? {} : { payload }) })
    t.same([hidden.statusCode, hidden.body], [none.statusCode, none.body], `${method} of a hidden room's shout answers as for none (${none.statusCode})`)
  }
  const visible = (await as(app, clerk).post('/api/shoutbox/rooms/staff/shouts', { message: 'a staff shout' })).json().shout.id as number
  const staffOwn = await as(app, mod).delete(`/api/shoutbox/${visible}`)
  t.same(answer(staffOwn), [403, error('NO_PERMISSION')], 'someone else\'s shout one can see: NO_PERMISSION, as before')
  t.equal((await as(app, undefined).get(`/api/shoutbox/shouts/${secret}`)).statusCode, 404)

  // What a shared cache must not keep: answers that depend on who asks.
  const page = await as(app, mod).get('/api/shoutbox/rooms/vip/shouts')
  t.same([page.headers['cache-control'], page.headers.vary], ['private, no-cache', 'Cookie'], 'a room\'s page is private to its reader')
  // Text PostgreSQL cannot store, in a room's name or description: refused, nothing made.
  for (const body of [{ slug: 'nul', name: 'x\u0000' }, { slug: 'nul', name: 'x', description: 'a\u0000' }]) {
    const refused = await as(app, admin).post('/api/panel/shoutbox/rooms', body)
    t.same([refused.statusCode, refused.json().error], [400, 'BAD_REQUEST'])
  }
  t.same(await app.db('shoutbox_rooms').where({ slug: 'nul' }).select('id'), [])
})

t.test('a room\'s own nodes: made with it, on the Roles page, held by roles, named as its read and post', async t => {
  const { app, admin, member } = await board(t)
  const made = await as(app, admin).post('/api/panel/shoutbox/rooms', {
    slug: 'vip', name: 'VIP', read: 'addon.shoutbox.room.vip.read', post: 'addon.shoutbox.room.vip.post'
  })
  t.equal(made.statusCode, 200)
  const listed = (await as(app, admin).get('/api/panel/permissions?locale=tr')).json().permissions as Array<{ node: string, addonId: string, title: string }>
  t.same(listed.filter(p => p.node.includes('.room.vip.')).map(p => [p.node, p.addonId, p.title]), [
    ['addon.shoutbox.room.vip.read', 'shoutbox', 'VIP odasını okuma'],
    ['addon.shoutbox.room.vip.post', 'shoutbox', 'VIP odasına yazma']
  ], 'listed with their titles in the asked language')
  t.ok(listed.some(p => p.node === 'addon.shoutbox.room.staff.read'), 'every room has its nodes')
  const refused = await as(app, admin).post('/api/panel/roles', { name: 'ghosts', permissions: ['addon.shoutbox.room.nowhere.read'] })
  t.same([refused.statusCode, refused.json().error], [400, 'BAD_REQUEST'], 'a node of no room is unknown to roles')
  const vip = await account(app, admin, 'vera', await roleWith(app, admin, 'vips', ['addon.shoutbox.post', 'addon.shoutbox.room.vip.read', 'addon.shoutbox.room.vip.post']))
  const readers = await account(app, admin, 'rita', await roleWith(app, admin, 'readers', ['addon.shoutbox.room.vip.read']))
  t.same((await as(app, vip).get('/api/shoutbox/rooms')).json().rooms.filter((r: { slug: string }) => r.slug === 'vip').map((r: { canPost: boolean }) => r.canPost), [true])
  t.equal((await as(app, vip).post('/api/shoutbox/rooms/vip/shouts', { message: 'velvet rope' })).statusCode, 200, 'the role with both posts')
  t.same(answer(await as(app, readers).post('/api/shoutbox/rooms/vip/shouts', { message: 'me too' })), [403, error('NO_PERMISSION')], 'read alone: reads, may not post')
  t.equal((await as(app, readers).get('/api/shoutbox/rooms/vip/shouts')).json().shouts.length, 1)
  const hidden = await as(app, member).get('/api/shoutbox/rooms/vip/shouts')
  t.same([hidden.statusCode, hidden.body], [404, NOT_FOUND], 'a member without the node: no such room')
})

t.test('a room\'s conversation: its own pages, search, pins, slow mode; archived rooms are read-only', async t => {
  const { app, admin, member, mod, rooms } = await board(t)
  const m = as(app, member)
  for (const text of ['first in members', 'second in members', 'third in members']) t.equal((await m.post('/api/shoutbox/rooms/members/shouts', { message: text })).statusCode, 200)
  t.equal((await m.post('/api/shoutbox', { message: 'hello general' })).statusCode, 200)
  t.same((await as(app, undefined).get('/api/shoutbox/list')).json().shouts.map((s: { message: string }) => s.message), ['hello general'], 'the seed\'s list: the default room alone')
  const page = (await m.get('/api/shoutbox/rooms/members/shouts?limit=2')).json()
  t.same(page.shouts.map((s: { message: string, room: string }) => [s.message, s.room]), [['third in members', 'members'], ['second in members', 'members']])
  const older = (await m.get(`/api/shoutbox/rooms/members/shouts?limit=2&before=${page.next as number}`)).json()
  t.same([older.shouts.map((s: { message: string }) => s.message), older.next], [['first in members'], null], 'paged like the archive')
  t.same((await m.get('/api/shoutbox/archive?room=members&q=second')).json().shouts.map((s: { message: string }) => s.message), ['second in members'], 'the archive filters by room')
  t.same((await m.get('/api/shoutbox/rooms/members/shouts?q=general')).json().shouts, [], 'a room\'s search finds only its own')
  t.same((await m.get('/api/shoutbox/latest?room=members&limit=1')).json().shouts.map((s: { room: string }) => s.room), ['members'])

  // Pins count per room.
  await as(app, admin).put('/api/panel/shoutbox/config', { maxPinned: 1 })
  const ids = (await m.get('/api/shoutbox/rooms/members/shouts')).json().shouts.map((s: { id: number }) => s.id) as number[]
  const general = (await as(app, undefined).get('/api/shoutbox/list')).json().shouts[0].id as number
  const pin = (id: number) => as(app, mod).put(`/api/panel/shoutbox/${id}/pin`, { pinned: true })
  t.equal((await pin(general)).statusCode, 200)
  t.equal((await pin(ids[0]!)).statusCode, 200, 'one pin in each room')
  t.same(answer(await pin(ids[1]!)), [409, error('TOO_MANY_PINNED', { maxPinned: 1 })], 'maxPinned applies per room')
  t.same((await m.get('/api/shoutbox/rooms/members/pinned')).json().shouts.map((s: { id: number }) => s.id), [ids[0]])
  t.same((await as(app, undefined).get('/api/shoutbox/pinned')).json().shouts.map((s: { id: number, room: string }) => [s.id, s.room]), [[general, 'general']], 'the default room\'s pins alone')

  // Slow mode: the larger of the board's pause and the room's.
  await as(app, admin).put(`/api/panel/shoutbox/rooms/${rooms.members!.id}`, { slowModeSeconds: 120 })
  // The member spoke in this room a moment ago: the board allows another shout now, the slow room not for two minutes.
  const tooSoon = await m.post('/api/shoutbox/rooms/members/shouts', { message: 'slow one' })
  t.same(tooSoon.statusCode, 429, 'too soon in a slow room')
  t.ok(Number(tooSoon.headers['retry-after']) > 100, `Retry-After close to the room's two minutes (${String(tooSoon.headers['retry-after'])})`)
  t.equal((await m.post('/api/shoutbox', { message: 'the default room is not slow' })).statusCode, 200, 'elsewhere the board\'s own pause holds')
  const newcomer = as(app, await account(app, admin, 'nia'))
  t.equal((await newcomer.post('/api/shoutbox', { message: 'hello from nia' })).statusCode, 200)
  t.equal((await newcomer.post('/api/shoutbox/rooms/members/shouts', { message: 'nia in the slow room' })).statusCode, 200,
    'a shout in another room does not start the slow room\'s pause')
  t.equal((await newcomer.post('/api/shoutbox/rooms/members/shouts', { message: 'nia again' })).statusCode, 429, 'a second one there does')
  t.equal((await as(app, mod).post('/api/shoutbox/rooms/members/shouts', { message: 'moderators are exempt' })).statusCode, 200)

  // Archived: hidden from the list, its history readable, nothing new said in it.
  await as(app, admin).delete(`/api/panel/shoutbox/rooms/${rooms.members!.id}`)
  t.same(answer(await as(app, mod).post('/api/shoutbox/rooms/members/shouts', { message: 'too late' })), [409, error('ROOM_ARCHIVED')])
  t.same(answer(await m.put(`/api/shoutbox/${ids[2]!}`, { message: 'edited late' })), [409, error('ROOM_ARCHIVED')], 'nor an edit of one\'s own shout')
  t.equal((await m.get('/api/shoutbox/rooms/members/shouts')).json().shouts.length, 5, 'its history stays readable')
  t.notOk((await m.get('/api/shoutbox/rooms')).json().rooms.some((r: { slug: string }) => r.slug === 'members'))
  t.equal((await m.delete(`/api/shoutbox/${ids[2]!}`)).statusCode, 200, 'taking one\'s words back is never refused')
})

t.test('read markers: how far each member has read each room, and what is new since (CONTRACT §16)', async t => {
  const { app, member, mod, clerk, rooms } = await board(t)
  const ids: number[] = []
  for (const text of ['one', 'two', 'three']) ids.push((await as(app, mod).post('/api/shoutbox/rooms/members/shouts', { message: text })).json().shout.id as number)
  await as(app, member).post('/api/shoutbox/rooms/members/shouts', { message: 'my own' })
  const state = async (cookie: string | undefined, slug = 'members') => ((await as(app, cookie).get('/api/shoutbox/rooms')).json().rooms as Array<{ slug: string, unread?: number, lastReadId?: number }>)
    .find(room => room.slug === slug)
  t.same(await state(member), { id: rooms.members!.id, slug: 'members', name: 'Members', description: '', canPost: true, lastReadId: 0, unread: 3 },
    'never read: every shout of others is new (one\'s own is not)')
  t.same(Object.keys((await state(undefined, 'general'))!), ['id', 'slug', 'name', 'description', 'canPost'], 'a visitor has no markers')
  t.same(answer(await as(app, member).put('/api/shoutbox/rooms/members/read', { lastReadId: ids[1]! })), [200, { result: 'ok', lastReadId: ids[1] }])
  t.match(await state(member), { lastReadId: ids[1], unread: 1 })
  t.same((await as(app, member).put('/api/shoutbox/rooms/members/read', { lastReadId: ids[0]! })).json().lastReadId, ids[1], 'a marker never goes back')
  t.same((await as(app, member).put('/api/shoutbox/rooms/members/read', { lastReadId: 1_000_000_000 })).json().lastReadId, ids[2]! + 1,
    'nor past the room\'s newest shout (its own last one here)')
  t.match(await state(member), { unread: 0 })
  t.match(await state(mod), { lastReadId: 0, unread: 1 }, 'each member has their own')

  // Counted up to 100: a busy room costs a bounded walk.
  await app.db.raw(`insert into shoutbox_shouts (message, username, date, room_id, author_id)
    select 'bulk ' || g, 'mod', ${Date.now()} + g, ?, (select id from users where username = 'mod') from generate_series(1, 150) as g`, [rooms.members!.id])
  t.match(await state(member), { unread: 100 })

  // Attacks: a visitor, a hidden room, bad input, a burst.
  t.same(answer(await as(app, undefined).put('/api/shoutbox/rooms/members/read', { lastReadId: 1 })), [401, error('NOT_LOGGED_IN')])
  const hidden = await as(app, member).put('/api/shoutbox/rooms/staff/read', { lastReadId: 1 })
  const unknown = await as(app, member).put('/api/shoutbox/rooms/nowhere/read', { lastReadId: 1 })
  t.same([hidden.statusCode, hidden.body], [404, NOT_FOUND], 'a room one may not read')
  t.same(unknown.body, hidden.body, 'answers as one that does not exist')
  for (const body of [{ lastReadId: -1 }, { lastReadId: 'x' }, {}, { lastReadId: 1.5 }]) {
    const refused = await as(app, member).put('/api/shoutbox/rooms/members/read', body)
    t.same([refused.statusCode, refused.json().error], [400, 'BAD_REQUEST'], `refused: ${JSON.stringify(body)}`)
  }
  const started = Date.now()
  const burst = await Promise.all(Array.from({ length: 1000 }, () => as(app, clerk).put('/api/shoutbox/rooms/general/read', { lastReadId: 1 })))
  const passed = burst.filter(r => r.statusCode === 200).length
  // The allowance: 120 at once, then two a second, whatever minute of the clock the burst falls in.
  const allowed = 120 + 2 * Math.ceil((Date.now() - started) / 1000)
  t.ok(passed >= 120 && passed <= allowed, `a thousand marks at once: ${passed} written, the 120 at once and at most two a second since (${allowed})`)
  t.ok(burst.filter(r => r.statusCode !== 200).every(r => r.statusCode === 429 && Number(r.headers['retry-after']) >= 1), 'the rest: 429 with Retry-After')
  t.equal(Number((await app.db('shoutbox_read_markers').count<Array<{ count: string }>>({ count: '*' }))[0]!.count), 2, 'one row a member and room: the member\'s, the clerk\'s')
})

t.test('the read markers\' allowance: 120 at once, then two a second, wherever the clock\'s minute falls', async t => {
  const limits = MarkLimits.of({} as AddonContext)
  const start = 60_000 * 1000 - 1 // a millisecond before a minute of the clock turns
  const admitted = (now: number): boolean => {
    try {
      limits.admit(7, now)
      return true
    } catch {
      return false
    }
  }
  t.equal(Array.from({ length: 200 }, () => admitted(start)).filter(Boolean).length, 120, 'a burst gets the 120')
  t.notOk(admitted(start + 2), 'the minute turning gives nothing back at once')
  t.ok(admitted(start + 500), 'half a second later: one more')
  t.notOk(admitted(start + 500))
  t.equal(Array.from({ length: 200 }, (_, i) => admitted(start + 60_500 + i)).filter(Boolean).length, 120, 'a minute later: the whole allowance again, no more')
  t.equal([1, 2].filter(user => { try { limits.admit(user === 1 ? 8 : 9, start); return true } catch { return false } }).length, 2, 'each member has their own')
})

t.test('retention in every room: old shouts go from each, pinned ones stay in each, each deletion on the stream names its room', async t => {
  const { app, admin, member, mod, rooms } = await board(t)
  const DAY = 86_400_000
  const old = Date.now() - 40 * DAY
  await app.db('shoutbox_shouts').insert([
    { message: 'old general', username: 'mira', date: old, room_id: 1 },
    { message: 'old members', username: 'mira', date: old, room_id: rooms.members!.id },
    { message: 'old members, pinned', username: 'mira', date: old, room_id: rooms.members!.id },
    { message: 'old staff', username: 'mod', date: old, room_id: rooms.staff!.id }
  ])
  const id = async (message: string) => Number((await app.db('shoutbox_shouts').where({ message }).first('id'))!.id)
  t.equal((await as(app, mod).put(`/api/panel/shoutbox/${await id('old members, pinned')}/pin`, { pinned: true })).statusCode, 200)
  await as(app, member).post('/api/shoutbox/rooms/members/shouts', { message: 'new members' })
  await as(app, admin).put('/api/panel/shoutbox/config', { keepDays: 30 })
  const url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api/shoutbox/stream`
  const visitor = connectSse(url)
  const staffReader = connectSse(url, { cookie: mod })
  t.teardown(() => { visitor.close(); staffReader.close() })
  for (const stream of [visitor, staffReader]) await stream.next(e => e.event === 'ready')
  const staffId = await id('old staff')
  t.same(await Retention.of(app.addons.runtimes.get('shoutbox')!.ctx).run(), { ran: true, pruned: 3 })
  t.same((await app.db('shoutbox_shouts').orderBy('id').select('message')).map(row => row.message), ['old members, pinned', 'new members'],
    'pruned in every room; the pinned one stays')
  await staffReader.next(e => e.event === 'shout-deleted' && JSON.parse(e.data).room === 'staff')
  t.same(JSON.parse(staffReader.events.find(e => e.event === 'shout-deleted' && e.data.includes('staff'))!.data), { id: staffId, room: 'staff' })
  await visitor.next(e => e.event === 'shout-deleted')
  t.same(visitor.events.filter(e => e.event === 'shout-deleted').map(e => JSON.parse(e.data).room), ['general'], 'a visitor hears of the public room\'s deletion alone')
  t.match((await as(app, admin).get('/api/panel/logs/activity')).json().logs[0], { type: 'PRUNED_SHOUTS', details: { count: 3 } })
})

t.test('kept answers per room: what another room says leaves the default room\'s list and pins as they are kept', async t => {
  const { app, member } = await board(t)
  await as(app, member).post('/api/shoutbox', { message: 'in general' })
  const list = await as(app, undefined).get('/api/shoutbox/list')
  await as(app, undefined).get('/api/shoutbox/pinned')
  const kept = { list: app.answerCache.of('/api/shoutbox/list')!, pinned: app.answerCache.of('/api/shoutbox/pinned')! }
  const before = { list: kept.list.current, pinned: kept.pinned.current, listCounts: { ...kept.list.counts }, pinnedCounts: { ...kept.pinned.counts } }
  t.ok(before.list !== undefined && before.pinned !== undefined, 'both kept')
  for (let i = 0; i < 20; i++) t.equal((await as(app, member).post('/api/shoutbox/rooms/members/shouts', { message: `members ${i}` })).statusCode, 200)
  const deleted = (await as(app, member).post('/api/shoutbox/rooms/members/shouts', { message: 'gone' })).json().shout.id as number
  await as(app, member).delete(`/api/shoutbox/${deleted}`)
  t.equal(kept.list.current, before.list, 'the list\'s kept answer is the same, not made or encoded again')
  t.equal(kept.pinned.current, before.pinned, 'so is the pins\'')
  t.same([kept.list.counts.made, kept.pinned.counts.made, kept.list.counts.dropped], [before.listCounts.made, before.pinnedCounts.made, before.listCounts.dropped], 'nothing read from the database, nothing dropped')
  const again = await app.inject({ url: '/api/shoutbox/list', headers: { 'if-none-match': String(list.headers.etag) } })
  t.equal(again.statusCode, 304, 'a reader who has it is told it has not changed')
})

/** Waits for `stream`'s first event that matches; rejects after 5 s. */
const heard = (stream: SseClient, kind: string, message: string) => stream.next(e => e.event === kind && e.data.includes(message))

t.test('the stream: each reader hears the rooms it may read, live and on replay; a change of rights closes it', async t => {
  const { app, admin, member, clerk, rooms } = await board(t)
  const url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api/shoutbox/stream`
  const open = (cookie?: string, query = '', headers: Record<string, string> = {}): SseClient => {
    const stream = connectSse(`${url}${query}`, { ...(cookie === undefined ? {} : { cookie }), ...headers })
    t.teardown(() => stream.close())
    return stream
  }
  const visitor = open()
  const asMember = open(member)
  const asClerk = open(clerk)
  const onlyGeneral = open(member, '?rooms=general,staff,nowhere')
  for (const stream of [visitor, asMember, asClerk, onlyGeneral]) await stream.next(e => e.event === 'ready')

  await as(app, clerk).post('/api/shoutbox/rooms/staff/shouts', { message: 'secret plan' })
  await as(app, member).post('/api/shoutbox/rooms/members/shouts', { message: 'members chat' })
  const deleted = (await as(app, member).post('/api/shoutbox/rooms/members/shouts', { message: 'oops' })).json().shout.id as number
  await as(app, member).delete(`/api/shoutbox/${deleted}`)
  await as(app, member).post('/api/shoutbox', { message: 'public hello' })
  const created = await heard(asClerk, 'shout-created', 'public hello')
  t.match(JSON.parse(created.data), { message: 'public hello', room: 'general' }, 'every event names its room')
  await heard(asMember, 'shout-created', 'public hello')
  await heard(onlyGeneral, 'shout-created', 'public hello')
  await heard(visitor, 'shout-created', 'public hello')
  const said = (stream: SseClient) => stream.events.filter(e => e.event === 'shout-created').map(e => JSON.parse(e.data).message as string)
  t.same(said(visitor), ['public hello'], 'a visitor: the public room alone')
  t.same(said(asMember), ['members chat', 'oops', 'public hello'], 'a member: not the staff room')
  t.same(said(asClerk), ['secret plan', 'members chat', 'oops', 'public hello'], 'staff: every room they may read')
  t.same(said(onlyGeneral), ['public hello'], 'only the rooms asked for (and may read; unknown names are passed over)')
  const deletes = (stream: SseClient) => stream.events.filter(e => e.event === 'shout-deleted').map(e => e.data)
  t.same(deletes(visitor), [], 'a visitor does not even hear that a members\' shout was deleted')
  t.same(deletes(asMember), [JSON.stringify({ id: deleted, room: 'members' })], 'a deletion names the shout and its room')

  // Replay: a visitor resuming from before all of it hears the same as it did live.
  const ready = Number(visitor.events.find(e => e.event === 'ready')!.id)
  const replay = open(undefined, '', { 'last-event-id': String(ready) })
  await heard(replay, 'shout-created', 'public hello')
  t.same(said(replay), ['public hello'], 'replay follows the same rule')
  t.notMatch(JSON.stringify(replay.events), /secret|members chat|"room":"members"/)

  // A role loses the node mid-stream: its streams end at once, and come back without the room.
  const clerks = ((await as(app, admin).get('/api/panel/roles')).json().roles as Array<{ id: number, name: string }>).find(r => r.name === 'clerks')!
  const staffStream = open(clerk)
  await staffStream.next(e => e.event === 'ready')
  const signedInVisitor = open(undefined)
  await signedInVisitor.next(e => e.event === 'ready')
  t.equal((await as(app, admin).put(`/api/panel/roles/${clerks.id}`, { name: 'clerks', permissions: [] })).statusCode, 200)
  await staffStream.ended
  t.pass('the stream of a user whose role changed is closed')
  await as(app, admin).post('/api/shoutbox/rooms/staff/shouts', { message: 'after the change' })
  const resumed = open(clerk, '', { 'last-event-id': String(ready) })
  await as(app, admin).post('/api/shoutbox', { message: 'marker one' })
  await heard(resumed, 'shout-created', 'marker one')
  t.notMatch(JSON.stringify(resumed.events), /secret plan|after the change/, 'reconnected: no staff event, live or replayed')
  t.notOk(signedInVisitor.events.some(e => e.event === 'shout-created' && e.data.includes('after the change')), 'a visitor\'s stream was never told either')

  // A new room everyone reads: no stream closes; each hears it from now on, and is told the rooms changed.
  const grows = open(undefined)
  await grows.next(e => e.event === 'ready')
  await as(app, admin).post('/api/panel/shoutbox/rooms', { slug: 'lobby', name: 'Lobby' })
  await grows.next(e => e.event === 'rooms-changed')
  await as(app, member).post('/api/shoutbox/rooms/lobby/shouts', { message: 'first in the lobby' })
  await heard(grows, 'shout-created', 'first in the lobby')
  t.pass('a visitor\'s open stream hears the new public room, without reconnecting')

  // A room's readers change: the streams that lose it are closed.
  const memberStream = open(member)
  await memberStream.next(e => e.event === 'ready')
  await as(app, admin).put(`/api/panel/shoutbox/rooms/${rooms.members!.id}`, { read: 'panel.access' })
  await memberStream.ended
  t.pass('a member\'s stream closes when the members\' room becomes staff only')
  const again = open(member, '', { 'last-event-id': String(ready) })
  await as(app, admin).post('/api/shoutbox', { message: 'marker two' })
  await heard(again, 'shout-created', 'marker two')
  t.notMatch(JSON.stringify(again.events), /members chat|"room":"members"/, 'its replay leaves out the room it may no longer read')
  t.equal(signedInVisitor.events.filter(e => e.event === 'ready').length, 1, 'a visitor\'s stream, whose rooms did not change, stays open')

  // Signing out ends what the session opened: the stream reconnects as a visitor.
  const session = await login(app, 'mira', PASSWORD)
  const hers = open(session)
  await hers.next(e => e.event === 'ready')
  t.equal((await as(app, session).post('/api/auth/logout', {})).statusCode, 200)
  await hers.ended
  t.pass('a sign-out closes the stream its session opened')
})

t.test('every process: a room made or changed on one is heard by the others at once', { skip: DB_KIND !== 'postgres' && 'the embedded database belongs to one process: this runs on PostgreSQL' }, async t => {
  const db = await testDatabase()
  t.teardown(() => db.drop())
  const a = await build(t, { db })
  const { admin, member, rooms } = await board(t, a)
  const b = await build(t, { db })
  const slugsOnB = async (cookie?: string) => ((await as(b, cookie).get('/api/shoutbox/rooms')).json().rooms as Array<{ slug: string }>).map(r => r.slug)
  t.same(await slugsOnB(member), ['general', 'members', 'news'])
  await as(a, admin).post('/api/panel/shoutbox/rooms', { slug: 'events', name: 'Events' })
  const made = await eventually(() => slugsOnB(member), slugs => slugs.includes('events'))
  t.ok(made.ms < Infinity, `process B lists the new room (${made.ms} ms)`)

  const url = `${await b.listen({ port: 0, host: '127.0.0.1' })}/api/shoutbox/stream`
  const onB = connectSse(url, { cookie: member })
  t.teardown(() => onB.close())
  await onB.next(e => e.event === 'ready')
  await as(a, member).post('/api/shoutbox/rooms/members/shouts', { message: 'said on A' })
  await heard(onB, 'shout-created', 'said on A')
  await as(a, admin).put(`/api/panel/shoutbox/rooms/${rooms.members!.id}`, { read: 'panel.access' })
  await onB.ended
  t.pass('a change of the room\'s readers on A closes the member\'s stream on B')
  const hidden = await as(b, member).get('/api/shoutbox/rooms/members/shouts')
  t.same([hidden.statusCode, hidden.body], [404, NOT_FOUND], 'and B answers the room as unknown')
  t.equal((await as(b, member).post('/api/shoutbox/rooms/members/shouts', { message: 'on B' })).statusCode, 404)

  // A role loses a node on A: the streams of its holders on B close.
  const clerks = ((await as(a, admin).get('/api/panel/roles')).json().roles as Array<{ id: number, name: string }>).find(r => r.name === 'clerks')!
  const clerk = await login(a, 'clerk', PASSWORD)
  const clerkOnB = connectSse(url, { cookie: clerk })
  t.teardown(() => clerkOnB.close())
  await clerkOnB.next(e => e.event === 'ready')
  t.equal((await as(a, admin).put(`/api/panel/roles/${clerks.id}`, { name: 'clerks', permissions: [] })).statusCode, 200)
  await clerkOnB.ended
  t.pass('a role edited on A closes its holders\' streams on B')

  const session = await login(a, 'mira', PASSWORD)
  const hersOnB = connectSse(url, { cookie: session })
  t.teardown(() => hersOnB.close())
  await hersOnB.next(e => e.event === 'ready')
  t.equal((await as(a, session).post('/api/auth/logout', {})).statusCode, 200)
  await hersOnB.ended
  t.pass('signing out on A closes the stream that session opened on B')
})

t.test('migration: a board from before rooms moves into the default room with nothing lost', async t => {
  const db = await testDatabase({ persistent: true })
  t.teardown(() => db.drop())
  const before = await build(t, { db })
  const admin = await setUp(before)
  await as(before, admin).put('/api/panel/shoutbox/config', { maxShouts: 2, maxPinned: 2, keepDays: 30, minSecondsBetweenShouts: 0 })
  for (const message of ['one', 'two', 'three']) await as(before, admin).post('/api/panel/shoutbox', { message })
  const shouts = (await as(before, undefined).get('/api/shoutbox/archive')).json().shouts as Array<{ id: number }>
  // Newest first: three, two, one. Two is pinned, one deleted.
  await as(before, admin).put(`/api/panel/shoutbox/${shouts[1]!.id}/pin`, { pinned: true })
  await as(before, admin).delete(`/api/panel/shoutbox/${shouts[2]!.id}`)
  // The schema as the previous release left it: no direct messages (CONTRACT §27) and no conversation
  // (CONTRACT §16, undone first: they came after rooms), no read markers, no rooms table, no room column,
  // events without a room.
  await before.db.raw('drop table shoutbox_direct_preferences')
  await before.db('schema_migrations').where({ owner: 'shoutbox', name: '022-direct-messages' }).delete()
  // Incoming hooks (026) and presence (021) came after rooms too, and name rooms: undone as well.
  await before.db.raw('drop table shoutbox_incoming_hooks')
  await before.db.raw('alter table shoutbox_shouts drop column via')
  await before.db('schema_migrations').where({ owner: 'shoutbox', name: '026-incoming-hooks' }).delete()
  await before.db.raw('drop table shoutbox_presence, shoutbox_presence_hidden')
  await before.db('schema_migrations').where({ owner: 'shoutbox', name: '021-presence' }).delete()
  await before.db.raw('drop index shoutbox_events_reply_to')
  await before.db.raw('drop table shoutbox_reactions')
  await before.db.raw('alter table shoutbox_shouts drop column reply_to_id, drop column reactions_announced_at, drop column reactions_pending')
  await before.db.raw('alter table shoutbox_flood_control drop column reactions_recent')
  await before.db.raw("update shoutbox_events set shout = shout - 'replyTo'")
  await before.db('schema_migrations').where({ owner: 'shoutbox', name: '012-conversation' }).delete()
  await before.db.raw('drop table shoutbox_read_markers')
  await before.db('schema_migrations').where({ owner: 'shoutbox', name: '011-read-markers' }).delete()
  await before.db.raw('alter table shoutbox_shouts drop column room_id')
  await before.db.raw('drop table shoutbox_rooms')
  await before.db.raw("update shoutbox_events set shout = shout - 'room'")
  await before.db.raw('alter table shoutbox_flood_control drop column room_posted_at')
  await before.db('schema_migrations').where({ owner: 'shoutbox', name: '010-rooms' }).delete()
  // Guests (020) came after rooms, and gave the rooms a column: undone too.
  await before.db.raw('drop table shoutbox_guest_proofs, shoutbox_guest_mutes, shoutbox_guest_secret')
  await before.db.raw('alter table shoutbox_shouts drop column guest, drop column guest_address')
  await before.db('schema_migrations').where({ owner: 'shoutbox', name: '020-guests' }).delete()
  const kept = {
    shouts: await before.db('shoutbox_shouts').orderBy('id').select('id', 'message', 'username', 'date', 'author_id'),
    pins: await before.db('shoutbox_pins').select('shout_id'),
    events: await before.db('shoutbox_events').orderBy('id').select('id', 'kind')
  }
  t.equal(kept.shouts.length, 2)
  const firstEvent = Number(kept.events[0].id) - 1
  await before.close()

  const after = await build(t, { db })
  t.ok(await after.db('schema_migrations').where({ owner: 'shoutbox', name: '010-rooms' }).first(), 'the migration ran at start')
  t.same(await after.db('shoutbox_shouts').orderBy('id').select('id', 'message', 'username', 'date', 'author_id'), kept.shouts, 'every shout kept as it was')
  t.same((await after.db('shoutbox_shouts').distinct('room_id')).map(r => r.room_id), [1], 'all in the default room')
  t.same(await after.db('shoutbox_pins').select('shout_id'), kept.pins, 'pins kept')
  t.same((await as(after, admin).get('/api/panel/shoutbox/config')).json(), {
    result: 'ok', maxShouts: 2, maxMessageLength: 500, minSecondsBetweenShouts: 0, maxShoutsPerMinute: 10, editWindowSeconds: 300, maxPinned: 2, keepDays: 30, reactions: DEFAULT_REACTIONS, ...MODERATION_DEFAULTS
  }, 'settings kept (and the settings added since at their defaults)')
  t.same((await as(after, undefined).get('/api/shoutbox/list')).json().shouts.map((s: { message: string }) => s.message), ['three', 'two'], 'the list as before')
  t.same((await as(after, undefined).get('/api/shoutbox/pinned')).json().shouts.map((s: { message: string, room: string }) => [s.message, s.room]), [['two', 'general']])
  t.same((await as(after, undefined).get('/api/shoutbox/rooms')).json().rooms.map((r: { slug: string }) => r.slug), ['general'])

  // The history replays, each event now naming the default room.
  const url = `${await after.listen({ port: 0, host: '127.0.0.1' })}/api/shoutbox/stream`
  const replay = connectSse(url, { 'last-event-id': String(firstEvent) })
  t.teardown(() => replay.close())
  await replay.next(e => e.event === 'shout-deleted')
  t.same(replay.events.map(e => e.id === undefined ? null : Number(e.id)), kept.events.map(e => Number(e.id)), 'every kept event replayed')
  t.ok(replay.events.every(e => JSON.parse(e.data).room === 'general'), 'each naming the default room')
  t.equal((await as(after, admin).post('/api/panel/shoutbox', { message: 'four' })).statusCode, 200, 'and the board goes on')
  t.same((await as(after, undefined).get('/api/shoutbox/list')).json().shouts.map((s: { message: string }) => s.message), ['four', 'three'])
})
