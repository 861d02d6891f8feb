import t from 'tap'
import { createChallenge, solveChallenge } from 'altcha-lib/v1'
import { answer, as, error } from '../helpers/requests.js'
import { build, setUp, type App } from '../helpers/app.js'
import { account, feed, roleWith } from '../helpers/identity.js'
import { connectSse } from '../helpers/sse.js'
import { eventually } from '../helpers/eventually.js'
import { GUEST_SHOUTS_PER_ROOM_MINUTE } from '../../src/shoutbox/guests/guest-posting.js'

/** Guests: posting without an account, with a proof of work, a name of their own, limits per address, mutes and erasure by address. */

const MOD_NODE = 'addon.shoutbox.manage.shoutbox'
const GUEST = '203.0.113.7'

interface Challenge { algorithm: string, challenge: string, maxnumber: number, salt: string, signature: string }

const encode = (challenge: Challenge, number: number): string =>
  Buffer.from(JSON.stringify({ algorithm: challenge.algorithm, challenge: challenge.challenge, number, salt: challenge.salt, signature: challenge.signature })).toString('base64')

/** A challenge from the board, solved as the widget's worker solves it. */
async function proof (app: App): Promise<string> {
  const { challenge } = (await app.inject({ url: '/api/shoutbox/guest-challenge' })).json() as { challenge: Challenge }
  const solution = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber).promise
  if (solution === null) throw new Error('no solution')
  return encode(challenge, solution.number)
}

const app = await build(t)
const admin = await setUp(app)
await as(app, admin).put('/api/panel/shoutbox/config', { guestProofCost: 1000, minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 })
const mod = await account(app, admin, 'mod', await roleWith(app, admin, 'moderators', ['panel.access', MOD_NODE]))
const mira = await account(app, admin, 'mira')
const lobby = (await as(app, admin).post('/api/panel/shoutbox/rooms', { slug: 'lobby', name: 'Lobby', guestsPost: true })).json().room as { id: number, guestsPost: boolean }
const base = await app.listen({ port: 0, host: '127.0.0.1' })
const hidden = (await as(app, admin).post('/api/panel/shoutbox/rooms', { slug: 'staff', name: 'Staff', read: 'panel.access' })).json().room as { id: number }

const guestPost = async (body: Record<string, unknown>, from = GUEST, room = 'lobby', cookie?: string) => app.inject({
  method: 'POST', url: `/api/shoutbox/rooms/${room}/guest-shouts`, remoteAddress: from, headers: cookie === undefined ? {} : { cookie }, payload: body
})
const say = async (message: string, name = 'Visitor', from = GUEST) => guestPost({ message, name, proof: await proof(app) }, from)
const settings = (changes: Record<string, unknown>) => as(app, admin).put('/api/panel/shoutbox/config', changes)
const lobbyMessages = async (cookie?: string) => ((await as(app, cookie).get('/api/shoutbox/rooms/lobby/shouts')).json().shouts as Array<{ message: string }>).map(shout => shout.message)

t.test('a room lets guests post only when everyone reads it; the panel shows the setting', async t => {
  t.equal(lobby.guestsPost, true)
  t.same(answer(await as(app, admin).post('/api/panel/shoutbox/rooms', { slug: 'club', name: 'Club', read: 'signed-in', guestsPost: true })),
    [400, error('BAD_REQUEST', { bodyValidationError: 'body/guestsPost needs a room whose read is "everyone"' })])
  t.same(answer(await as(app, admin).put(`/api/panel/shoutbox/rooms/${hidden.id}`, { guestsPost: true })),
    [400, error('BAD_REQUEST', { bodyValidationError: 'body/guestsPost needs a room whose read is "everyone"' })])
  const rooms = (await as(app, admin).get('/api/panel/shoutbox/rooms')).json().rooms as Array<{ slug: string, guestsPost: boolean }>
  t.same(rooms.map(room => [room.slug, room.guestsPost]), [['general', false], ['lobby', true], ['staff', false]])
  const listed = (await as(app, undefined).get('/api/shoutbox/rooms')).json().rooms as Array<{ slug: string, guestsPost?: true }>
  t.same(listed.map(room => [room.slug, room.guestsPost ?? false]), [['general', false], ['lobby', true]], 'visitors see where they may post as guests')
})

t.test('the challenge: ALTCHA, its cost from guestProofCost, ten minutes', async t => {
  const { result, challenge, expiresIn } = (await app.inject({ url: '/api/shoutbox/guest-challenge' })).json()
  t.equal(result, 'ok')
  t.equal(challenge.algorithm, 'SHA-256')
  t.equal(challenge.maxnumber, 1000)
  t.equal(expiresIn, 600_000)
  const expires = Number(new URLSearchParams(challenge.salt.split('?')[1]).get('expires'))
  t.ok(expires * 1000 > Date.now() + 590_000 && expires * 1000 <= Date.now() + 600_000, 'expires in ten minutes')
})

t.test('a guest\'s shout is held for review by default, and comes on the board with guest: true', async t => {
  const stream = connectSse(`${base}/api/shoutbox/stream?rooms=lobby`)
  t.teardown(() => stream.close())
  await stream.next(e => e.event === 'ready')
  const posted = await say('hello from a passer-by', '  Passer  by ')
  t.equal(posted.statusCode, 200, posted.body)
  const shout = posted.json().shout
  t.match(shout, { message: 'hello from a passer-by', username: 'Passer by', room: 'lobby', guest: true, held: true, reactions: [] })
  t.same(await lobbyMessages(), [], 'not on the board while held')
  const queue = (await as(app, mod).get('/api/panel/shoutbox/review')).json().items as Array<{ shout: { id: number }, why: string }>
  t.match(queue, [{ shout: { id: shout.id }, why: 'guest' }], 'in the review queue, held as a guest\'s')
  t.equal((await as(app, mod).post(`/api/panel/shoutbox/review/${shout.id}`, { action: 'approve' })).statusCode, 200)
  const restored = await stream.next(e => e.event === 'shout-restored')
  t.match(JSON.parse(restored.data), { id: shout.id, username: 'Passer by', guest: true })
  const listed = (await as(app, undefined).get('/api/shoutbox/rooms/lobby/shouts')).json().shouts
  t.match(listed, [{ id: shout.id, username: 'Passer by', guest: true }], 'on the board, marked a guest\'s')
  const latest = (await as(app, mira).get('/api/shoutbox/latest?room=lobby')).json().shouts
  t.match(latest, [{ id: shout.id, guest: true }])
})

t.test('with holdGuestShouts off a guest\'s shout is published at once, on the stream with guest: true', async t => {
  await settings({ holdGuestShouts: false })
  t.teardown(async () => { await settings({ holdGuestShouts: true }) })
  const stream = connectSse(`${base}/api/shoutbox/stream?rooms=lobby`)
  t.teardown(() => stream.close())
  await stream.next(e => e.event === 'ready')
  const posted = await say('straight on the board', 'Walker')
  t.equal(posted.statusCode, 200, posted.body)
  t.notOk('held' in posted.json().shout)
  const created = await stream.next(e => e.event === 'shout-created')
  t.match(JSON.parse(created.data), { message: 'straight on the board', username: 'Walker', guest: true, room: 'lobby' })
  t.equal((await lobbyMessages())[0], 'straight on the board')
})

t.test('attack: a proof replayed, forged, expired, or not one at all', async t => {
  await settings({ holdGuestShouts: true })
  const used = await proof(app)
  t.equal((await guestPost({ message: 'first', name: 'Replayer', proof: used })).statusCode, 200)
  t.same(answer(await guestPost({ message: 'again', name: 'Replayer', proof: used })), [400, error('INVALID_PROOF')], 'a used proof is refused')
  t.same(answer(await guestPost({ message: 'again', name: 'Replayer', proof: used }, '198.51.100.99')), [400, error('INVALID_PROOF')], 'from another address too')
  const { challenge } = (await app.inject({ url: '/api/shoutbox/guest-challenge' })).json() as { challenge: Challenge }
  const solved = (await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber).promise)!.number
  t.same(answer(await guestPost({ message: 'x', name: 'Forger', proof: encode(challenge, solved + 1) })), [400, error('INVALID_PROOF')], 'a wrong number')
  const ours = await createChallenge({ hmacKey: 'not the board\'s key', maxNumber: 10, expires: new Date(Date.now() + 60_000) })
  const theirs = (await solveChallenge(ours.challenge, ours.salt, ours.algorithm, 10).promise)!.number
  t.same(answer(await guestPost({ message: 'x', name: 'Forger', proof: encode({ ...ours, maxnumber: 10 }, theirs) })), [400, error('INVALID_PROOF')], 'a challenge signed with another key')
  const { secret } = await app.db('shoutbox_guest_secret').first('secret')
  const old = await createChallenge({ hmacKey: secret, maxNumber: 10, expires: new Date(Date.now() - 1000) })
  const late = (await solveChallenge(old.challenge, old.salt, old.algorithm, 10).promise)!.number
  t.same(answer(await guestPost({ message: 'x', name: 'Forger', proof: encode({ ...old, maxnumber: 10 }, late) })), [400, error('INVALID_PROOF')], 'an expired challenge, even signed with the board\'s key')
  const endless = await createChallenge({ hmacKey: secret, maxNumber: 10 })
  const forever = (await solveChallenge(endless.challenge, endless.salt, endless.algorithm, 10).promise)!.number
  t.same(answer(await guestPost({ message: 'x', name: 'Forger', proof: encode({ ...endless, maxnumber: 10 }, forever) })), [400, error('INVALID_PROOF')], 'one without an expiry')
  for (const junk of ['', 'not base64 json', Buffer.from('[]').toString('base64'), Buffer.from('{"algorithm":"SHA-256"}').toString('base64')]) {
    t.same(answer(await guestPost({ message: 'x', name: 'Forger', proof: junk })), [400, error('INVALID_PROOF')], `junk: ${JSON.stringify(junk)}`)
  }
  t.same(answer(await guestPost({ message: 'x', name: 'Forger' })).slice(0, 1), [400], 'no proof: a bad request')
})

t.test('attack: names that pass for a member\'s are refused, whatever the letters', async t => {
  for (const name of ['mira', 'MIRA', 'Mi_ra', 'm i r a', 'mіra', 'ｍｉｒａ', 'Mod', 'rnod', 'm0d', 'ᴍɪʀᴀ', 'mi\u200Bra', 'admin', 'Deleted User']) {
    t.same(answer(await say('hi', name)), [name.includes('\u200B') ? 400 : 400, name.includes('\u200B') ? error('BAD_REQUEST', { bodyValidationError: 'body/name must not hold control or invisible characters' }) : error('NAME_TAKEN')], `"${name}"`)
  }
  t.same(answer(await say('hi', 'x')), [400, error('BAD_REQUEST', { bodyValidationError: 'body/name must be 2–24 characters' })])
  t.same(answer(await say('hi', 'y'.repeat(25))), [400, error('BAD_REQUEST', { bodyValidationError: 'body/name must be 2–24 characters' })])
  t.same(answer(await say('hi', '!!')), [400, error('BAD_REQUEST', { bodyValidationError: 'body/name needs at least 2 letters or digits' })])
  t.equal((await say('hi', 'Miranda')).statusCode, 200, 'a name of its own passes')
})

t.test('where guests may not post: 403 in a room that does not let them, 404 in a hidden one, 403 signed in', async t => {
  t.same(answer(await guestPost({ message: 'hi', name: 'Visitor', proof: await proof(app) }, GUEST, 'general')), [403, error('NO_PERMISSION')])
  t.same(answer(await guestPost({ message: 'hi', name: 'Visitor', proof: await proof(app) }, GUEST, 'staff')), [404, error('NOT_FOUND')], 'a hidden room is no room')
  t.same(answer(await guestPost({ message: 'hi', name: 'Visitor', proof: await proof(app) }, GUEST, 'nowhere')), [404, error('NOT_FOUND')])
  t.same(answer(await guestPost({ message: 'hi', name: 'Visitor', proof: await proof(app) }, GUEST, 'lobby', mira)), [403, error('NO_PERMISSION')], 'members post as themselves')
  t.same(answer(await guestPost({ message: ' ', name: 'Visitor', proof: await proof(app) })), [400, error('BAD_REQUEST', { bodyValidationError: 'body/message must not be empty or only whitespace' })])
})

t.test('guests cannot edit, react, report or read notifications: they have no session', async t => {
  await settings({ holdGuestShouts: false })
  t.teardown(async () => { await settings({ holdGuestShouts: true }) })
  const { id } = (await say('react to me', 'Reacher')).json().shout
  for (const [method, url] of [['PUT', `/api/shoutbox/${id}`], ['DELETE', `/api/shoutbox/${id}`], ['PUT', `/api/shoutbox/shouts/${id}/reactions/👍`], ['POST', `/api/shoutbox/shouts/${id}/report`], ['GET', '/api/notifications']] as const) {
    const response = await app.inject({ method, url: encodeURI(url), remoteAddress: GUEST, ...(method === 'GET' || method === 'DELETE' ? {} : { payload: { message: 'x', reason: 'spam' } }) })
    t.equal(response.statusCode, 401, `${method} ${url}`)
  }
  t.equal((await as(app, mira).put(encodeURI(`/api/shoutbox/shouts/${id}/reactions/👍`))).statusCode, 200, 'members react to a guest\'s shout')
  t.same(answer(await as(app, mira).put(`/api/shoutbox/${id}`, { message: 'mine now' })), [403, error('NO_PERMISSION')], 'nor does a member edit it')
})

t.test('attack: a guest pinging members notifies no one', async t => {
  await settings({ holdGuestShouts: false })
  t.teardown(async () => { await settings({ holdGuestShouts: true }) })
  t.equal((await say('@mira @mod @admin look at this', 'Pinger')).statusCode, 200)
  // A member's mention after it: once hers has arrived, the guest's would have too.
  t.equal((await as(app, mod).post('/api/shoutbox/rooms/lobby/shouts', { message: '@mira hello' })).statusCode, 200)
  const { value } = await eventually(async () => (await as(app, mira).get('/api/notifications')).json().notifications as Array<{ data: { by: string } }>, list => list.length > 0)
  t.same(value.map(n => n.data.by), ['mod'], 'only the member\'s mention')
  t.equal((await as(app, admin).get('/api/notifications')).json().notifications.length, 0)
})

t.test('watched words apply to guests: blocked, held, censored', async t => {
  await settings({ holdGuestShouts: false })
  t.teardown(async () => { await settings({ holdGuestShouts: true }) })
  await as(app, mod).post('/api/panel/shoutbox/words', { pattern: 'casino', action: 'block' })
  await as(app, mod).post('/api/panel/shoutbox/words', { pattern: 'followers', action: 'hold' })
  await as(app, mod).post('/api/panel/shoutbox/words', { pattern: 'darn', action: 'censor' })
  t.same(answer(await say('best cаsino', 'Gambler')), [400, error('WATCHED_WORD')])
  t.same(answer(await say('hello', 'Casino King')), [400, error('WATCHED_WORD')], 'in the name too')
  t.match((await say('cheap followers', 'Seller')).json().shout, { held: true })
  t.match((await say('darn it', 'Curser')).json().shout, { message: '**** it' })
})

t.test('attack: flooding from one address, then from many', async t => {
  await settings({ minSecondsBetweenShouts: 0, maxShoutsPerMinute: 2 })
  const from = '192.0.2.50'
  t.equal((await say('one', 'Flooder', from)).statusCode, 200)
  t.equal((await say('two', 'Flooder', from)).statusCode, 200)
  const third = await say('three', 'Flooder', from)
  t.same(answer(third), [429, error('TOO_MANY_REQUESTS')])
  t.ok(Number(third.headers['retry-after']) >= 1)
  t.same(answer(await say('three', 'Another Name', from)), [429, error('TOO_MANY_REQUESTS')], 'a new name changes nothing')
  const proofLeft = await proof(app)
  t.equal((await guestPost({ message: 'refused', name: 'Flooder', proof: proofLeft }, from)).statusCode, 429)
  t.equal((await guestPost({ message: 'still good', name: 'Neighbour', proof: proofLeft }, '192.0.2.51')).statusCode, 200, 'a refused post leaves its proof unused')
  await settings({ minSecondsBetweenShouts: 30, maxShoutsPerMinute: 600 })
  t.equal((await say('one', 'Slow', '192.0.2.60')).statusCode, 200)
  t.same(answer(await say('two', 'Slow', '192.0.2.60')), [429, error('TOO_MANY_REQUESTS')], 'minSecondsBetweenShouts per address')
  await settings({ minSecondsBetweenShouts: 0 })
  // Many addresses, one post each: the room's guests together stop at the room's limit.
  await app.db('shoutbox_guest_proofs').update({ used_at: Date.now() - 120_000 })
  let accepted = 0
  let refused: number | undefined
  for (let i = 0; i < GUEST_SHOUTS_PER_ROOM_MINUTE + 2; i++) {
    const status = (await say(`from afar ${i}`, `Crowd ${i}`, `10.9.${i}.1`)).statusCode
    if (status === 200) accepted++
    else refused ??= status
  }
  t.equal(accepted, GUEST_SHOUTS_PER_ROOM_MINUTE)
  t.equal(refused, 429)
  t.equal((await as(app, mira).post('/api/shoutbox/rooms/lobby/shouts', { message: 'members still talk' })).statusCode, 200, 'members are not held back by guests\' flood')
  await app.db('shoutbox_guest_proofs').update({ used_at: Date.now() - 120_000 })
})

t.test('a moderator mutes a guest\'s address by one of its shouts; the address is never shown', async t => {
  await settings({ holdGuestShouts: false })
  t.teardown(async () => { await settings({ holdGuestShouts: true }) })
  const from = '192.0.2.77'
  const { id } = (await say('spam spam', 'Spammer', from)).json().shout
  t.same(answer(await as(app, mira).post('/api/panel/shoutbox/guest-mutes', { shoutId: id, minutes: 60 })), [403, error('NO_PERMISSION')])
  const memberShout = (await as(app, mira).post('/api/shoutbox/rooms/lobby/shouts', { message: 'not a guest' })).json().shout.id
  t.same(answer(await as(app, mod).post('/api/panel/shoutbox/guest-mutes', { shoutId: memberShout, minutes: 60 })), [404, error('NOT_FOUND')], 'only a guest\'s shout')
  t.same(answer(await as(app, mod).post('/api/panel/shoutbox/guest-mutes', { shoutId: id, minutes: 1441 })).slice(0, 1), [400])
  const muted = await as(app, mod).post('/api/panel/shoutbox/guest-mutes', { shoutId: id, minutes: 60, reason: 'spam' })
  t.equal(muted.statusCode, 200)
  const { mute } = muted.json()
  t.same(Object.keys(mute).sort(), ['reason', 'shoutId', 'until'], 'no address, no key')
  t.match(answer(await say('more spam', 'Spammer', from)), [403, { result: 'error', error: 'MUTED', until: mute.until }])
  t.match(answer(await say('more spam', 'Renamed', from)), [403, { error: 'MUTED' }], 'whatever name')
  t.equal((await say('unrelated', 'Someone', '192.0.2.78')).statusCode, 200, 'another address posts')
  const [entry] = await feed(app, admin, 1)
  t.match(entry, { type: 'MUTED_GUEST', text: 'mod muted a guest (by shout #' + id + ') for 60 minutes (reason: spam)' })
  t.notMatch(JSON.stringify(entry), /192\.0\.2|address/i, 'the feed shows no address')
})

t.test('erasure by address: a guest takes back what they wrote; export of members never reaches guests', async t => {
  await settings({ holdGuestShouts: false })
  t.teardown(async () => { await settings({ holdGuestShouts: true }) })
  const from = '192.0.2.90'
  await say('mine to erase', 'Eraser', from)
  await settings({ holdGuestShouts: true })
  await say('held, to erase too', 'Eraser', from)
  await say('someone else\'s', 'Stayer', '192.0.2.91')
  const exported = await as(app, mira).get('/api/users/me/export')
  t.notMatch(exported.body, /Eraser|Stayer|Passer/, 'a member\'s export holds no guest\'s name')
  const erased = await app.inject({ method: 'DELETE', url: '/api/shoutbox/guest-shouts', remoteAddress: from })
  t.same(answer(erased), [200, { result: 'ok', erased: 2 }])
  t.equal(await app.db('shoutbox_shouts').where({ username: 'Eraser' }).count({ n: '*' }).first().then(row => Number(row!.n)), 0, 'gone, held one too')
  t.equal(await app.db('shoutbox_shouts').where({ username: 'Stayer' }).count({ n: '*' }).first().then(row => Number(row!.n)), 1, 'others\' stay')
  t.same(answer(await app.inject({ method: 'DELETE', url: '/api/shoutbox/guest-shouts', remoteAddress: from })), [200, { result: 'ok', erased: 0 }])
  const stored = await app.db('shoutbox_shouts').whereNotNull('guest_address').select('guest_address')
  t.ok(stored.every(row => !String(row.guest_address).includes('192.0.2')), 'no address is stored in clear')
})
