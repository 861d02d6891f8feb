import t, { type Test } from 'tap'
import { build, login, setUp, type App } from '../helpers/app.js'
import { DB_KIND, testDatabase } from '../helpers/database.js'
import { withoutReactions } from '../helpers/shouts.js'
import { connectSse } from '../helpers/sse.js'
import type { FullShout as Shout, Shout as ListedShout } from '../helpers/types.js'

/** CONTRACT §13: moderators edit any shout and mute members; every act in the activity feed. */

const PASSWORD = 'a long password'
const MOD_NODES = ['panel.access', 'addon.shoutbox.manage.shoutbox', 'addon.shoutbox.post']
const error = (code: string, extras: Record<string, unknown> = {}) => ({ result: 'error', error: code, ...extras })
const badRequest = (what: string) => error('BAD_REQUEST', { bodyValidationError: what })

/** The shout as the seed's list shows it: its four fields alone, without its room, replyTo and reactions. */
const listed = ({ id, message, username, date }: Shout): ListedShout => ({ id, message, username, date })
interface Mute { userId: number, username: string, until: number | null, reason: string | null, by: string }
type Reply = Awaited<ReturnType<App['inject']>>

/** A user with a role holding `permissions` (the member role when none given); returns their id and cookie. */
async function account (app: App, admin: string, username: string, permissions?: string[]): Promise<{ id: number, cookie: string }> {
  const roles = (await app.inject({ url: '/api/panel/roles', headers: { cookie: admin } })).json().roles as Array<{ id: number, name: string }>
  let roleId = roles.find(role => role.name === 'member')!.id
  if (permissions !== undefined) {
    const role = await app.inject({ method: 'POST', url: '/api/panel/roles', headers: { cookie: admin }, payload: { name: `${username}-role`, permissions } })
    roleId = role.json().role.id
  }
  const created = await app.inject({ method: 'POST', url: '/api/panel/users', headers: { cookie: admin }, payload: { username, email: `${username}@example.org`, password: PASSWORD, roleId } })
  if (created.statusCode !== 200) throw new Error(created.body)
  return { id: created.json().user.id, cookie: await login(app, username, PASSWORD) }
}

function client (app: App) {
  const send = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, cookie?: string, payload?: unknown) =>
    app.inject({ method, url, headers: cookie === undefined ? {} : { cookie }, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) })
  return {
    send,
    post: (cookie: string, message: string) => send('POST', '/api/shoutbox', cookie, { message }),
    editOwn: (cookie: string, id: number, message: string) => send('PUT', `/api/shoutbox/${id}`, cookie, { message }),
    removeOwn: (cookie: string, id: number) => send('DELETE', `/api/shoutbox/${id}`, cookie),
    edit: (cookie: string | undefined, id: number | string, payload: unknown) => send('PUT', `/api/panel/shoutbox/${id}`, cookie, payload),
    mute: (cookie: string | undefined, payload: unknown) => send('POST', '/api/panel/shoutbox/mutes', cookie, payload),
    mutes: async (cookie: string): Promise<Mute[]> => (await send('GET', '/api/panel/shoutbox/mutes', cookie)).json().mutes,
    lift: (cookie: string | undefined, userId: number | string) => send('DELETE', `/api/panel/shoutbox/mutes/${userId}`, cookie),
    me: (cookie: string | undefined) => send('GET', '/api/shoutbox/me', cookie),
    list: async (): Promise<ListedShout[]> => (await app.inject({ url: '/api/shoutbox/list' })).json().shouts,
    stored: async (): Promise<number> => Number((await app.db('shoutbox_mutes').count<Array<{ count: string }>>({ count: '*' }))[0]!.count),
    logged: async (type: string): Promise<number> => Number((await app.db('activity_logs').where({ type }).count<Array<{ count: string }>>({ count: '*' }))[0]!.count),
    /** The newest feed entry of `type`, as the feed answers it in `locale`. */
    async entry (admin: string, type: string, locale = 'en'): Promise<{ userId: number, username: string, addonId: string, details: Record<string, unknown>, text: string }> {
      const logs = (await app.inject({ url: `/api/panel/logs/activity?locale=${locale}`, headers: { cookie: admin } })).json().logs as Array<{ type: string }>
      return logs.find(entry => entry.type === type) as never
    }
  }
}

const answer = (response: Reply): [number, unknown] => [response.statusCode, response.json()]

/** The `edited` of an edited shout's answer, checked to be a time from `since` to now. */
function editedAt (t: Test, response: Awaited<ReturnType<App['inject']>>, since: number): number {
  const edited = (response.json() as { shout?: { edited?: unknown } }).shout?.edited
  t.ok(typeof edited === 'number' && edited >= since && edited <= Date.now(), 'edited: when, last')
  return edited as number
}

t.test('PUT /api/panel/shoutbox/:id: a moderator edits any shout, logged with the text before', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const api = client(app)
  await api.send('PUT', '/api/panel/shoutbox/config', admin, { minSecondsBetweenShouts: 0 })
  const ayse = await account(app, admin, 'ayse')
  const mod = await account(app, admin, 'mod', MOD_NODES)
  const staff = await account(app, admin, 'staff', ['panel.access'])
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const stream = connectSse(`${address}/api/shoutbox/stream`)
  t.teardown(() => stream.close())
  await stream.next(e => e.event === 'ready')
  const shout = (await api.post(ayse.cookie, 'I said a rude word')).json().shout as Shout
  await api.list() // the list is kept: the edit must update it in place

  t.test('the new text, same id, author, date and room; list and stream follow; EDITED_SHOUT {id, message, previousMessage, room}', async t => {
    // Members may not edit at all now: a moderator's edit has no window.
    await api.send('PUT', '/api/panel/shoutbox/config', admin, { editWindowSeconds: 0 })
    const before = await api.list()
    const response = await api.edit(mod.cookie, shout.id, { message: 'I said a [removed] word', username: 'mod' })
    // It says it was edited, and when.
    const edited = { ...shout, message: 'I said a [removed] word', edited: editedAt(t, response, shout.date) }
    t.same(answer(response), [200, { result: 'ok', shout: edited }])
    t.same(await api.list(), before.map(s => s.id === shout.id ? listed(edited) : s), 'the list shows the new text (in its four fields)')
    t.same(JSON.parse((await stream.next(e => e.event === 'shout-edited')).data), withoutReactions(edited), 'a shout-edited event (the answer\'s shout but for its reactions)')
    const entry = await api.entry(admin, 'EDITED_SHOUT')
    t.match(entry, { userId: mod.id, username: 'mod', addonId: 'shoutbox' })
    t.same(entry.details, { id: shout.id, message: edited.message, previousMessage: 'I said a rude word', room: 'general' })
    t.equal(entry.text, `mod edited shout #${shout.id}: “I said a rude word” became “I said a [removed] word”`)
    t.equal((await api.entry(admin, 'EDITED_SHOUT', 'tr')).text, `mod, #${shout.id} numaralı mesajı düzenledi: “I said a rude word” artık “I said a [removed] word”`)
  })

  t.test('who may not: visitor 401, member 403, panel staff without MANAGE_SHOUTBOX 403; nothing changes', async t => {
    const cases: Array<[string | undefined, number, unknown]> = [
      [undefined, 401, error('NOT_LOGGED_IN')], [ayse.cookie, 403, error('NO_PERMISSION')], [staff.cookie, 403, error('NO_PERMISSION')]
    ]
    for (const [cookie, status, body] of cases) t.same(answer(await api.edit(cookie, shout.id, { message: 'hacked' })), [status, body])
    t.equal((await api.list()).find(s => s.id === shout.id)?.message, 'I said a [removed] word')
    t.equal(await api.logged('EDITED_SHOUT'), 1)
  })

  t.test('bad bodies and ids: the envelope, nothing changed, nothing logged', async t => {
    const cases: Array<[number | string, unknown, number, unknown]> = [
      [shout.id, { message: ' ' }, 400, badRequest('body/message must not be empty or only whitespace')],
      [shout.id, { message: 'x'.repeat(501) }, 400, error('MESSAGE_TOO_LONG', { maxMessageLength: 500 })],
      [shout.id, { message: 'a\u0000' }, 400, badRequest('body/message must not contain U+0000 or an unpaired surrogate')],
      [shout.id, { message: 7 }, 400, badRequest('body/message must be string')],
      [shout.id, {}, 400, badRequest("body must have required property 'message'")],
      ['abc', { message: 'x' }, 400, badRequest('params/id must match pattern "^[0-9]{1,15}$"')],
      [999_999, { message: 'x' }, 404, error('NOT_FOUND')]
    ]
    for (const [id, payload, status, body] of cases) t.same(answer(await api.edit(mod.cookie, id, payload)), [status, body], JSON.stringify(payload).slice(0, 30))
    t.equal((await api.list()).find(s => s.id === shout.id)?.message, 'I said a [removed] word')
    t.equal(await api.logged('EDITED_SHOUT'), 1)
  })

  t.test('a burst of edits of one shout: each logged with the text it replaced', async t => {
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => api.edit(mod.cookie, shout.id, { message: `edit ${i}` })))
    t.same(answers.map(a => a.statusCode), Array(10).fill(200))
    const entries = await app.db('activity_logs').where({ type: 'EDITED_SHOUT' }).orderBy('id').select<Array<{ details: { message: string, previousMessage: string } }>>('details')
    t.equal(entries.length, 11)
    for (let i = 1; i < entries.length; i++) t.equal(entries[i]!.details.previousMessage, entries[i - 1]!.details.message, 'a chain: nothing lost between two edits')
    t.equal((await api.list()).find(s => s.id === shout.id)?.message, entries.at(-1)!.details.message)
  })

  t.test('edited-out words cannot be read back from the stream\'s history (Last-Event-ID: 0)', async t => {
    const replay = connectSse(`${address}/api/shoutbox/stream`, { 'last-event-id': '0' })
    t.teardown(() => replay.close())
    const current = (await api.list()).find(s => s.id === shout.id)!.message
    const events = await replay.next(e => e.event === 'shout-edited' && JSON.parse(e.data).message === current).then(() => replay.events)
    const texts = events.filter(e => e.event !== 'ready' && JSON.parse(e.data).id === shout.id).map(e => JSON.parse(e.data).message as string)
    t.ok(texts.length >= 2, `the shout's events are replayed (${texts.length})`)
    t.same([...new Set(texts)], [current], 'every replayed event of the shout carries its text now, none the rude word')
    const rows = await app.db('shoutbox_events').whereRaw("(shout->>'id')::bigint = ?", [shout.id]).select<Array<{ shout: { message: string } }>>('shout')
    t.notOk(rows.some(row => JSON.stringify(row).includes('rude')), 'nor does the history table hold it')
  })

  t.test('the author cannot put back what a moderator took out: 403 EDIT_WINDOW_CLOSED even within the window', async t => {
    await api.send('PUT', '/api/panel/shoutbox/config', admin, { editWindowSeconds: 300 })
    const own = (await api.post(ayse.cookie, 'another rude word')).json().shout as Shout
    const ownEdit = await api.editOwn(ayse.cookie, own.id, 'another polite word')
    t.same(answer(ownEdit), [200, { result: 'ok', shout: { ...own, message: 'another polite word', edited: editedAt(t, ownEdit, own.date) } }], 'their own edit, within the window')
    t.equal((await api.edit(mod.cookie, own.id, { message: 'another [removed] word' })).statusCode, 200)
    t.same(answer(await api.editOwn(ayse.cookie, own.id, 'another rude word')), [403, error('EDIT_WINDOW_CLOSED')])
    t.equal((await api.list()).find(s => s.id === own.id)?.message, 'another [removed] word')
    t.same(answer(await api.removeOwn(ayse.cookie, own.id)), [200, { result: 'ok' }], 'taking it back is still theirs')
  })
})

t.test('staff editing and deleting their own shouts through the widget\'s paths: each act in the feed; a member\'s are not', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const api = client(app)
  const mod = await account(app, admin, 'mod', MOD_NODES)
  const member = await account(app, admin, 'deniz')
  await api.send('PUT', '/api/panel/shoutbox/config', admin, { minSecondsBetweenShouts: 0 })
  const own = (await api.post(mod.cookie, 'staff meeting at 6')).json().shout as Shout
  const before = { edited: await api.logged('EDITED_SHOUT'), deleted: await api.logged('DELETED_SHOUT') }

  // What the widget sends for a moderator's Edit and Delete beside their own shout.
  const ownEdit = await api.editOwn(mod.cookie, own.id, 'staff meeting at 7')
  t.same(answer(ownEdit), [200, { result: 'ok', shout: { ...own, message: 'staff meeting at 7', edited: editedAt(t, ownEdit, own.date) } }])
  t.equal(await api.logged('EDITED_SHOUT'), before.edited + 1, 'the edit is in the feed')
  const edited = await api.entry(admin, 'EDITED_SHOUT')
  t.same([edited.username, edited.details, edited.text], ['mod', { id: own.id, message: 'staff meeting at 7', previousMessage: 'staff meeting at 6', room: 'general' },
    'mod edited shout #' + own.id + ': “staff meeting at 6” became “staff meeting at 7”'])
  t.same(answer(await api.removeOwn(mod.cookie, own.id)), [200, { result: 'ok' }])
  t.equal(await api.logged('DELETED_SHOUT'), before.deleted + 1, 'the delete is in the feed')
  const deleted = await api.entry(admin, 'DELETED_SHOUT')
  t.same([deleted.username, deleted.details], ['mod', { shoutId: own.id, author: 'mod', message: 'staff meeting at 7', room: 'general' }])

  // A member's own edit and delete stay out of the staff's record.
  const mine = (await api.post(member.cookie, 'hello all')).json().shout as Shout
  t.equal((await api.editOwn(member.cookie, mine.id, 'hello everyone')).statusCode, 200)
  t.equal((await api.removeOwn(member.cookie, mine.id)).statusCode, 200)
  t.same([await api.logged('EDITED_SHOUT'), await api.logged('DELETED_SHOUT')], [before.edited + 1, before.deleted + 1], 'no entry for a member')

  // A refused edit writes nothing: the shout and the feed are as they were.
  const kept = (await api.post(mod.cookie, 'kept')).json().shout as Shout
  t.equal((await api.editOwn(mod.cookie, kept.id, '')).statusCode, 400)
  t.equal((await api.editOwn(member.cookie, kept.id, 'not yours')).statusCode, 403)
  t.equal(await api.logged('EDITED_SHOUT'), before.edited + 1, 'no entry for a refused edit')
  t.equal((await api.list()).find(shout => shout.id === kept.id)?.message, 'kept')
})

t.test('mutes', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const api = client(app)
  await api.send('PUT', '/api/panel/shoutbox/config', admin, { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 })
  const ayse = await account(app, admin, 'ayse')
  const bora = await account(app, admin, 'bora')
  const mod = await account(app, admin, 'mod', MOD_NODES)
  const staff = await account(app, admin, 'staff', ['panel.access'])
  const own = (await api.post(ayse.cookie, 'before the mute')).json().shout as Shout

  t.test('muted for 10 minutes: the answer, the list of mutes, the log in both languages', async t => {
    const before = Date.now()
    const made = await api.mute(mod.cookie, { userId: ayse.id, minutes: 10, reason: '  spam  ', username: 'bora' })
    const mute = made.json().mute as Mute
    t.same(answer(made), [200, { result: 'ok', mute: { userId: ayse.id, username: 'ayse', until: mute.until, reason: 'spam', by: 'mod' } }])
    t.ok(mute.until! >= before + 600_000 && mute.until! <= Date.now() + 600_000, 'until: ten minutes from now, in ms')
    t.same(answer(await api.send('GET', '/api/panel/shoutbox/mutes', mod.cookie)), [200, { result: 'ok', mutes: [mute] }])
    const entry = await api.entry(admin, 'MUTED_USER')
    t.match(entry, { userId: mod.id, username: 'mod', addonId: 'shoutbox' })
    t.same(entry.details, { userId: ayse.id, user: 'ayse', minutes: 10, until: mute.until, reason: 'spam', amount: 10, variant: 'minutes-reason' })
    t.equal(entry.text, 'mod muted ayse in the shoutbox for 10 minutes (reason: spam)')
    t.equal((await api.entry(admin, 'MUTED_USER', 'tr')).text, 'mod, ayse kullanıcısını duyuru panosunda 10 dakikalığına susturdu (sebep: spam)')
  })

  t.test('the muted member: POST and PUT → 403 MUTED with until; own delete still works; others unaffected', async t => {
    const [mute] = await api.mutes(mod.cookie)
    t.same(answer(await api.post(ayse.cookie, 'let me talk')), [403, error('MUTED', { until: mute!.until })])
    t.same(answer(await api.editOwn(ayse.cookie, own.id, 'changed')), [403, error('MUTED', { until: mute!.until })])
    t.same(answer(await api.me(ayse.cookie)), [200, { result: 'ok', mute: { until: mute!.until, reason: 'spam' } }], 'GET /api/shoutbox/me tells them')
    t.equal((await api.post(bora.cookie, 'I may')).statusCode, 200)
    t.same(answer(await api.me(bora.cookie)), [200, { result: 'ok', mute: null }])
    t.same(answer(await api.removeOwn(ayse.cookie, own.id)), [200, { result: 'ok' }], 'taking one\'s words back is never refused')
    t.notOk((await api.list()).some(s => s.username === 'ayse'), 'nothing of hers was stored')
  })

  t.test('muting again replaces the mute: until lifted, no reason', async t => {
    const made = await api.mute(mod.cookie, { userId: ayse.id, minutes: null })
    t.same(answer(made), [200, { result: 'ok', mute: { userId: ayse.id, username: 'ayse', until: null, reason: null, by: 'mod' } }])
    t.same(await api.mutes(mod.cookie), [made.json().mute], 'one mute, the new one')
    t.same(answer(await api.post(ayse.cookie, 'now?')), [403, error('MUTED', { until: null })])
    t.equal(await api.logged('MUTED_USER'), 2)
    t.equal((await api.entry(admin, 'MUTED_USER')).text, 'mod muted ayse in the shoutbox until lifted')
    t.equal((await api.entry(admin, 'MUTED_USER', 'tr')).text, 'mod, ayse kullanıcısını duyuru panosunda kaldırılana dek susturdu')
  })

  t.test('lifted: UNMUTED_USER, the member posts again, a second lift → 404', async t => {
    t.same(answer(await api.lift(mod.cookie, ayse.id)), [200, { result: 'ok' }])
    t.same(await api.mutes(mod.cookie), [])
    t.equal((await api.post(ayse.cookie, 'thank you')).statusCode, 200)
    const entry = await api.entry(admin, 'UNMUTED_USER')
    t.match(entry, { userId: mod.id, username: 'mod', details: { userId: ayse.id, user: 'ayse', until: null, reason: null } })
    t.equal(entry.text, 'mod lifted the mute on ayse in the shoutbox')
    t.equal((await api.entry(admin, 'UNMUTED_USER', 'tr')).text, 'mod, ayse kullanıcısının duyuru panosundaki susturmasını kaldırdı')
    t.same(answer(await api.lift(mod.cookie, ayse.id)), [404, error('NOT_FOUND')])
    t.equal(await api.logged('UNMUTED_USER'), 1)
  })

  t.test('an expired mute refuses nothing, with no action: not listed, not told, not liftable', async t => {
    await api.mute(mod.cookie, { userId: bora.id, minutes: 60 })
    t.equal((await api.post(bora.cookie, 'muted?')).statusCode, 403)
    await app.db('shoutbox_mutes').where({ user_id: bora.id }).update({ until: Date.now() - 1 })
    t.equal((await api.post(bora.cookie, 'the hour is over')).statusCode, 200)
    t.equal((await api.editOwn(bora.cookie, (await api.list())[0]!.id, 'the hour is over!')).statusCode, 200)
    t.same(await api.mutes(mod.cookie), [])
    t.same(answer(await api.me(bora.cookie)), [200, { result: 'ok', mute: null }])
    t.same(answer(await api.lift(mod.cookie, bora.id)), [404, error('NOT_FOUND')])
    t.equal(await api.logged('UNMUTED_USER'), 1, 'expiry writes nothing')
  })

  t.test('the feed says a length in its largest whole unit', async t => {
    const cases: Array<[number | null, string | undefined, string, string]> = [
      [1, undefined, 'for 1 minute', '1 dakikalığına'],
      [60, 'calm down', 'for 1 hour (reason: calm down)', '1 saatliğine susturdu (sebep: calm down)'],
      [90, undefined, 'for 90 minutes', '90 dakikalığına'],
      [2880, undefined, 'for 2 days', '2 günlüğüne'],
      [10080, '', 'for 1 week', '1 haftalığına susturdu'],
      [525_600, undefined, 'for 365 days', '365 günlüğüne'],
      [null, 'bye', 'until lifted (reason: bye)', 'kaldırılana dek susturdu (sebep: bye)']
    ]
    for (const [minutes, reason, en, tr] of cases) {
      t.equal((await api.mute(mod.cookie, { userId: bora.id, minutes, ...(reason === undefined ? {} : { reason }) })).statusCode, 200)
      t.equal((await api.entry(admin, 'MUTED_USER')).text, `mod muted bora in the shoutbox ${en}`)
      t.ok((await api.entry(admin, 'MUTED_USER', 'tr')).text.includes(tr), tr)
    }
    await api.lift(mod.cookie, bora.id)
  })

  t.test('holders of MANAGE_SHOUTBOX cannot be muted (the admin neither); unknown users → 404', async t => {
    const logged = await api.logged('MUTED_USER')
    for (const userId of [mod.id, 1]) t.same(answer(await api.mute(mod.cookie, { userId, minutes: 10 })), [403, error('NO_PERMISSION')])
    t.same(answer(await api.mute(admin, { userId: 999_999, minutes: 10 })), [404, error('NOT_FOUND')])
    t.equal(await api.stored(), 0)
    t.equal(await api.logged('MUTED_USER'), logged)
  })

  t.test('a mute left from before a member became a moderator does not hold them', async t => {
    const cem = await account(app, admin, 'cem')
    await api.mute(mod.cookie, { userId: cem.id, minutes: null })
    t.equal((await api.post(cem.cookie, 'hm')).statusCode, 403)
    const roles = (await app.inject({ url: '/api/panel/roles', headers: { cookie: admin } })).json().roles as Array<{ id: number, name: string }>
    await api.send('PUT', `/api/panel/users/${cem.id}`, admin, { roleId: roles.find(r => r.name === 'mod-role')!.id })
    const again = await login(app, 'cem', PASSWORD)
    t.equal((await api.post(again, 'a moderator now')).statusCode, 200)
    t.same(answer(await api.me(again)), [200, { result: 'ok', mute: null }])
    await api.lift(mod.cookie, cem.id)
  })

  t.test('who may not: visitor 401, member 403, panel staff without MANAGE_SHOUTBOX 403; nothing changes', async t => {
    const calls: Array<(cookie: string | undefined) => Promise<Reply>> = [
      cookie => api.mute(cookie, { userId: bora.id, minutes: 10 }),
      cookie => api.send('GET', '/api/panel/shoutbox/mutes', cookie),
      cookie => api.lift(cookie, bora.id),
      cookie => api.send('GET', `/api/panel/shoutbox/${own.id}/author`, cookie)
    ]
    for (const call of calls) {
      t.same(answer(await call(undefined)), [401, error('NOT_LOGGED_IN')])
      t.same(answer(await call(ayse.cookie)), [403, error('NO_PERMISSION')])
      t.same(answer(await call(staff.cookie)), [403, error('NO_PERMISSION')])
    }
    t.same(answer(await api.me(undefined)), [401, error('NOT_LOGGED_IN')])
    t.equal(await api.stored(), 0)
  })

  t.test('bad bodies: 400 with the envelope, nothing stored or logged', async t => {
    const logged = await api.logged('MUTED_USER')
    const cases: Array<[unknown, string]> = [
      [{ minutes: 10 }, "body must have required property 'userId'"],
      [{ userId: bora.id }, "body must have required property 'minutes'"],
      [{ userId: String(bora.id), minutes: 10 }, 'body/userId must be integer'],
      [{ userId: 0, minutes: 10 }, 'body/userId must be >= 1'],
      [{ userId: 2_147_483_648, minutes: 10 }, 'body/userId must be <= 2147483647'],
      [{ userId: bora.id, minutes: 0 }, 'body/minutes must be >= 1, body/minutes must be null, body/minutes must match a schema in anyOf'],
      [{ userId: bora.id, minutes: 525_601 }, 'body/minutes must be <= 525600, body/minutes must be null, body/minutes must match a schema in anyOf'],
      [{ userId: bora.id, minutes: 1.5 }, 'body/minutes must be integer, body/minutes must be null, body/minutes must match a schema in anyOf'],
      [{ userId: bora.id, minutes: '10' }, 'body/minutes must be integer, body/minutes must be null, body/minutes must match a schema in anyOf'],
      [{ userId: bora.id, minutes: 10, reason: 'x'.repeat(501) }, 'body/reason must NOT have more than 500 characters, body/reason must be null, body/reason must match a schema in anyOf'],
      [{ userId: bora.id, minutes: 10, reason: 5 }, 'body/reason must be string, body/reason must be null, body/reason must match a schema in anyOf'],
      [{ userId: bora.id, minutes: 10, reason: 'a\u0000b' }, 'body/reason must not contain U+0000 or an unpaired surrogate']
    ]
    for (const [payload, what] of cases) t.same(answer(await api.mute(mod.cookie, payload)), [400, badRequest(what)], JSON.stringify(payload).slice(0, 50))
    t.same(answer(await api.mute(mod.cookie, { userId: bora.id, minutes: 10, reason: '😀'.repeat(500) })), [200, { result: 'ok', mute: (await api.mutes(mod.cookie))[0] }], '500 characters of reason is fine')
    await api.lift(mod.cookie, bora.id)
    t.same(answer(await api.lift(mod.cookie, 'bora')), [400, badRequest('params/userId must match pattern "^[0-9]{1,15}$"')])
    t.same(answer(await api.lift(mod.cookie, '99999999999')), [404, error('NOT_FOUND')], 'past any id: none to lift')
    t.equal(await api.stored(), 0)
    t.equal(await api.logged('MUTED_USER'), logged + 1)
  })

  t.test('GET /api/panel/shoutbox/:id/author: who wrote it, for the widget\'s mute', async t => {
    const shout = (await api.post(bora.cookie, 'who wrote me?')).json().shout as Shout
    t.same(answer(await api.send('GET', `/api/panel/shoutbox/${shout.id}/author`, mod.cookie)), [200, { result: 'ok', author: { userId: bora.id, username: 'bora', moderator: false } }])
    await api.send('POST', '/api/panel/shoutbox', mod.cookie, { message: 'staff here' })
    const staffShout = (await api.list())[0]!
    t.same(answer(await api.send('GET', `/api/panel/shoutbox/${staffShout.id}/author`, mod.cookie)), [200, { result: 'ok', author: { userId: mod.id, username: 'mod', moderator: true } }])
    t.same(answer(await api.send('GET', '/api/panel/shoutbox/999999/author', mod.cookie)), [404, error('NOT_FOUND')])
    const [old] = await app.db('shoutbox_shouts').insert({ message: 'from long ago', username: 'bora', date: Date.now() }).returning<Array<{ id: number }>>('id')
    t.same(answer(await api.send('GET', `/api/panel/shoutbox/${old!.id}/author`, mod.cookie)), [404, error('NOT_FOUND')], 'no account behind a shout from before authors were kept')
  })

  t.test('a burst: 20 mutes of one member at once leave one mute and 20 entries; 10 lifts at once, one lift', async t => {
    const mutedBefore = await api.logged('MUTED_USER')
    const made = await Promise.all(Array.from({ length: 20 }, (_, i) => api.mute(mod.cookie, { userId: bora.id, minutes: i + 1 })))
    t.same(made.map(a => a.statusCode), Array(20).fill(200))
    t.equal(await api.stored(), 1)
    t.equal((await api.mutes(mod.cookie)).length, 1)
    t.equal(await api.logged('MUTED_USER'), mutedBefore + 20)
    const unmutedBefore = await api.logged('UNMUTED_USER')
    const lifts = await Promise.all(Array.from({ length: 10 }, () => api.lift(mod.cookie, bora.id)))
    t.same(lifts.map(a => a.statusCode).sort(), [200, ...Array(9).fill(404)])
    t.equal(await api.logged('UNMUTED_USER'), unmutedBefore + 1)
    t.equal(await api.stored(), 0)
  })
})

t.test('a mute, and its lift, reach the member\'s open streams at once (posting-changed), and no one else\'s', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const api = client(app)
  const member = await account(app, admin, 'ceren')
  const other = await account(app, admin, 'deniz')
  const mod = await account(app, admin, 'mod', MOD_NODES)
  const url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/api/shoutbox/stream`
  const streams = {
    member: connectSse(url, { cookie: member.cookie }),
    memberSecondTab: connectSse(url, { cookie: member.cookie }),
    other: connectSse(url, { cookie: other.cookie }),
    moderator: connectSse(url, { cookie: mod.cookie }),
    anonymous: connectSse(url)
  }
  t.teardown(() => { for (const stream of Object.values(streams)) stream.close() })
  for (const stream of Object.values(streams)) await stream.next(e => e.event === 'ready')
  const heard = (stream: keyof typeof streams) => streams[stream].events.filter(e => e.event === 'posting-changed')

  t.equal((await api.mute(mod.cookie, { userId: member.id, minutes: 10 })).statusCode, 200)
  const told = await streams.member.next(e => e.event === 'posting-changed')
  t.same(told, { event: 'posting-changed', data: '{}' }, 'no id (it is not in the history) and nothing in it: the page asks')
  await streams.memberSecondTab.next(e => e.event === 'posting-changed')
  t.same(answer(await api.me(member.cookie)), [200, { result: 'ok', mute: { until: (await api.mutes(mod.cookie))[0]!.until, reason: null } }], 'what the page then reads')
  t.equal((await api.lift(mod.cookie, member.id)).statusCode, 200)
  await streams.member.next(e => e.event === 'posting-changed' && heard('member').length === 2)
  t.equal(heard('member').length, 2, 'the lift is heard too')
  // A publish after both: once every stream has it, none of the others heard of the mute.
  await api.post(admin, 'after the mute and the lift')
  for (const name of ['other', 'moderator', 'anonymous'] as const) {
    await streams[name].next(e => e.event === 'shout-created')
    t.same(heard(name), [], `${name}: nothing`)
  }
  // A replay from the start holds shouts only.
  const replay = connectSse(url, { cookie: member.cookie, 'last-event-id': '0' })
  t.teardown(() => replay.close())
  await replay.next(e => e.event === 'shout-created')
  t.same(replay.events.map(e => e.event), ['shout-created'], 'the history keeps no member event')
})

t.test('a mute made on one process refuses the next post on the other; a lift there frees it here', { skip: DB_KIND !== 'postgres' && 'the embedded database belongs to one process: this runs on PostgreSQL' }, async t => {
  const db = await testDatabase()
  t.teardown(() => db.drop())
  const a = await build(t, { db })
  const admin = await setUp(a)
  const b = await build(t, { db })
  const [onA, onB] = [client(a), client(b)]
  await onA.send('PUT', '/api/panel/shoutbox/config', admin, { minSecondsBetweenShouts: 0 })
  const member = await account(a, admin, 'ilker')
  const mod = await account(a, admin, 'mod', MOD_NODES)
  t.equal((await onB.post(member.cookie, 'hello from b')).statusCode, 200, 'b knows the member and lets them post')
  const until = (await onA.mute(mod.cookie, { userId: member.id, minutes: 10 })).json().mute.until as number
  t.same(answer(await onB.post(member.cookie, 'still here?')), [403, error('MUTED', { until })], 'the very next post on b')
  t.same(await onB.mutes(mod.cookie), await onA.mutes(mod.cookie))
  t.same(answer(await onB.lift(mod.cookie, member.id)), [200, { result: 'ok' }])
  t.equal((await onA.post(member.cookie, 'back on a')).statusCode, 200, 'lifted on b, free on a at once')
  // The member's page is open on a; the mute is made on b: a's stream tells it.
  const stream = connectSse(`${await a.listen({ port: 0, host: '127.0.0.1' })}/api/shoutbox/stream`, { cookie: member.cookie })
  t.teardown(() => stream.close())
  await stream.next(e => e.event === 'ready')
  await onB.mute(mod.cookie, { userId: member.id, minutes: 5 })
  t.same(await stream.next(e => e.event === 'posting-changed'), { event: 'posting-changed', data: '{}' }, 'a mute made on b reaches the member\'s stream on a')
})
