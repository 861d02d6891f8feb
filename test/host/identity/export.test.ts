import t from 'tap'
import { preferencesRepository } from '../../../src/host/identity/preferences.js'
import { build, setUp, type App } from '../../helpers/app.js'
import { eventually } from '../../helpers/eventually.js'
import { account } from '../../helpers/identity.js'
import { answer, as, error } from '../../helpers/requests.js'

/** A member's data export (`GET /api/users/me/export`), and an administrator's of a member (`GET /api/panel/users/:id/export`). */

const ms = (value: number | string | null): number | null => value === null ? null : Number(value)

/**
 * The export of `userId` as it was made before it was streamed: each list read whole, in
 * one query, into one object (as `exportUser` and the board's `memberData` read it).
 */
async function wholeDocument (app: App, userId: number, exportedAt: number): Promise<Record<string, unknown>> {
  const db = app.db
  const account = await db('users').join('roles', 'roles.id', 'users.role_id').where('users.id', userId)
    .first('users.id', 'users.username', 'users.email', 'roles.name as role', 'users.disabled', 'users.bot', 'users.created_at')
  const sessions = await db('sessions').where({ user_id: userId }).orderBy('created_at').select('created_at', 'expires_at')
  const notifications = await db('notifications').where({ user_id: userId }).orderBy('id').select('id', 'addon_id', 'kind', 'data', 'created_at', 'read')
  const slug = (column: string) => db.raw(`(select slug from shoutbox_rooms where shoutbox_rooms.id = ${column}) as room`)
  const shouts = await db('shoutbox_shouts').where({ author_id: userId }).whereNull('state').orderBy('id').select('id', slug('room_id'), 'message', 'date', 'reply_to_id', 'uploads')
  const pictures = await db('uploads').where({ owner_id: 'shoutbox', user_id: userId }).orderBy('id').select('sha256', 'width', 'height', 'created_at')
  const waiting = await db('shoutbox_shouts').where({ author_id: userId }).whereNotNull('state').orderBy('id').select(slug('room_id'), 'message', 'date', 'state')
  const reactions = await db('shoutbox_reactions').where({ user_id: userId }).orderBy('created_at').select('shout_id', 'emoji', 'created_at')
  const reports = await db('shoutbox_reports').where({ user_id: userId }).orderBy('id').select('shout_id', 'reason', 'note', 'created_at', 'resolved_at', 'outcome')
  const ignores = await db('shoutbox_ignores').where({ user_id: userId }).orderBy('created_at').select('ignored_id', 'created_at')
  const markers = await db('shoutbox_read_markers').where({ user_id: userId }).select(slug('room_id'), 'last_read_id', 'updated_at')
  const mute = await db('shoutbox_mutes').where({ user_id: userId }).first('until', 'reason', 'created_at')
  // Every message of the member's conversations of two, both members' (CONTRACT §27).
  const direct = (await db.raw(`select s.id, s.room_id, case when r.member_low = ? then r.member_high else r.member_low end as other, s.username, s.message, s.date, s.reply_to_id
    from shoutbox_shouts s join shoutbox_rooms r on r.id = s.room_id where r.kind = 'direct' and ? in (r.member_low, r.member_high) and s.state is null order by s.id`, [userId, userId])).rows as Array<{ id: string, room_id: number, other: number | null, username: string, message: string, date: string, reply_to_id: string | null }>
  const others = new Map((await db('users').whereIn('id', direct.flatMap(row => row.other === null ? [] : [row.other])).select('id', 'username')).map(row => [row.id, row.username]))
  const names = new Map((await db('users').whereIn('id', ignores.map(row => row.ignored_id)).select('id', 'username')).map(row => [row.id, row.username]))
  return {
    exportedAt,
    account: { id: account.id, username: account.username, email: account.email, role: account.role, disabled: account.disabled, bot: account.bot, createdAt: Number(account.created_at) },
    sessions: sessions.map(row => ({ createdAt: Number(row.created_at), expiresAt: Number(row.expires_at) })),
    preferences: await preferencesRepository(db).of(userId),
    notifications: notifications.map(row => ({ id: Number(row.id), addon: row.addon_id, kind: row.kind, data: row.data, createdAt: Number(row.created_at), read: row.read })),
    tokens: await app.identity.tokens.listOf(userId),
    addons: {
      shoutbox: {
        shouts: shouts.map(row => ({ id: Number(row.id), room: row.room, message: row.message, date: Number(row.date), replyTo: ms(row.reply_to_id), ...(row.uploads === null ? {} : { uploads: row.uploads }) })),
        waitingForReview: waiting.map(row => ({ room: row.room, message: row.message, date: Number(row.date), state: row.state })),
        reactions: reactions.map(row => ({ shout: Number(row.shout_id), emoji: row.emoji, createdAt: Number(row.created_at) })),
        reports: reports.map(row => ({ shout: Number(row.shout_id), reason: row.reason, note: row.note, createdAt: Number(row.created_at), resolvedAt: ms(row.resolved_at), outcome: row.outcome })),
        ignored: ignores.map(row => ({ username: names.get(row.ignored_id) ?? null, since: Number(row.created_at) })),
        readMarkers: markers.map(row => ({ room: row.room, lastReadId: Number(row.last_read_id), updatedAt: Number(row.updated_at) })),
        conversations: direct.map(row => ({
          conversation: row.room_id, with: row.other === null ? 'deleted user' : others.get(row.other) ?? 'deleted user', id: Number(row.id), username: row.username, message: row.message, date: Number(row.date), replyTo: ms(row.reply_to_id)
        })),
        mute: mute === undefined ? null : { until: ms(mute.until), reason: mute.reason, since: Number(mute.created_at) },
        pictures: pictures.map(row => ({ url: `/uploads/${row.sha256}.webp`, thumbUrl: `/uploads/${row.sha256}.thumb.webp`, width: row.width, height: row.height, uploadedAt: Number(row.created_at) }))
      }
    }
  }
}

t.test('the export holds everything stored about the member, and nothing of anyone else\'s secrets', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  await as(app, admin).put('/api/panel/shoutbox/config', { autoMuteAfter: 0, minSecondsBetweenShouts: 0 })
  const mira = await account(app, admin, 'mira')
  const bora = await account(app, admin, 'bora')
  const boraId = (await app.db('users').where({ username: 'bora' }).first('id')).id as number
  const miraId = (await app.db('users').where({ username: 'mira' }).first('id')).id as number

  const boraShout = (await as(app, bora).post('/api/shoutbox', { message: 'hi mira' })).json().shout.id as number
  const own = (await as(app, mira).post('/api/shoutbox', { message: 'hello @bora', replyTo: boraShout })).json().shout.id as number
  await as(app, mira).put(`/api/shoutbox/${own}`, { message: 'hello again @bora' })
  await as(app, mira).put(`/api/shoutbox/shouts/${boraShout}/reactions/${encodeURIComponent('👍')}`)
  await as(app, mira).post(`/api/shoutbox/shouts/${boraShout}/report`, { reason: 'spam', note: 'just testing' })
  await as(app, mira).put(`/api/users/me/ignored/${boraId}`)
  await as(app, mira).put('/api/users/me/preferences', { theme: 'dark' })
  await as(app, mira).post('/api/users/me/tokens', { name: 'my script', permissions: ['addon.shoutbox.post'] })
  await as(app, admin).post('/api/shoutbox', { message: '@mira look' })
  // Mentions notify after the answer: wait for hers.
  await eventually(() => app.db('notifications').where({ user_id: miraId }).count({ n: '*' }), rows => Number(rows[0]!.n) > 0)

  const exported = await as(app, mira).get('/api/users/me/export')
  t.equal(exported.statusCode, 200)
  t.match(exported.headers['content-disposition'], /^attachment; filename="shoutbox-data-mira\.json"$/)
  const data = exported.json().export
  t.has(data.account, { id: miraId, username: 'mira', email: 'mira@example.org', role: 'member', disabled: false, bot: false })
  t.ok(data.sessions.length >= 1 && typeof data.sessions[0].createdAt === 'number', 'when each session began and ends')
  t.same(data.preferences, { sound: false, desktopNotifications: false, theme: 'dark', locale: null, emailMentions: 'off' })
  t.same(data.tokens.map((token: { name: string }) => token.name), ['my script'])
  t.ok(data.notifications.length >= 1, 'the mention of her')
  const board = data.addons.shoutbox
  t.same(board.shouts.map((shout: { id: number, message: string, replyTo: number | null, room: string }) => [shout.id, shout.message, shout.replyTo, shout.room]),
    [[own, 'hello again @bora', boraShout, 'general']], 'her shouts, with their text as it is now')
  t.same(board.reactions.map((reaction: { shout: number, emoji: string }) => [reaction.shout, reaction.emoji]), [[boraShout, '👍']])
  t.has(board.reports, [{ shout: boraShout, reason: 'spam', note: 'just testing' }])
  t.same(board.ignored.map((entry: { username: string }) => entry.username), ['bora'])
  t.equal(board.mute, null)

  const raw = exported.body
  const hashes = await app.db('users').where({ id: miraId }).first('password_hash')
  t.notMatch(raw, hashes.password_hash, 'no password hash')
  t.notMatch(raw, /scrypt\$|\$argon2id\$/, 'no hash of any kind')
  t.notMatch(raw, /sbx_|secret_hash/, 'no token secret, nor its hash')
  for (const row of await app.db('sessions').where({ user_id: miraId }).select('token_hash')) t.notMatch(raw, row.token_hash, 'no session token hash')
  t.notMatch(raw, 'hi mira', 'nobody else\'s shouts')
  t.same(await app.db('activity_logs').where({ type: 'EXPORTED_USER_DATA' }).select('details'), [{ details: { user: 'mira', targetUserId: miraId } }], 'logged')

  t.test('an administrator exports a member\'s; nobody else can, and a token cannot', async t => {
    const byAdmin = await as(app, admin).get(`/api/panel/users/${miraId}/export`)
    t.equal(byAdmin.statusCode, 200)
    t.same(byAdmin.json().export.addons.shoutbox.shouts, data.addons.shoutbox.shouts)
    t.same(answer(await as(app, bora).get(`/api/panel/users/${miraId}/export`)), [403, error('NO_PERMISSION')], 'a member asks for another\'s')
    t.same(answer(await as(app, undefined).get('/api/users/me/export')), [401, error('NOT_LOGGED_IN')])
    t.same(answer(await as(app, admin).get('/api/panel/users/99999/export')), [404, error('NOT_FOUND')])
    const { secret } = (await as(app, mira).post('/api/users/me/tokens', { name: 'leaky', permissions: ['addon.shoutbox.post'] })).json()
    t.same(answer(await app.inject({ url: '/api/users/me/export', headers: { authorization: `Bearer ${secret as string}` } })), [403, error('NO_PERMISSION')], 'a leaked token does not carry her data away')
    // A users manager holding what members hold: members' data, not an administrator's.
    const memberNodes = ((await as(app, admin).get('/api/panel/roles')).json().roles as Array<{ name: string, permissions: string[] }>).find(role => role.name === 'member')!.permissions
    const helperRole = (await as(app, admin).post('/api/panel/roles', { name: 'Helpers', permissions: ['panel.access', 'panel.manage.users', ...memberNodes] })).json().role.id as number
    const helper = await account(app, admin, 'helper', helperRole)
    const adminId = (await app.db('users').where({ username: 'admin' }).first('id')).id as number
    t.same(answer(await as(app, helper).get(`/api/panel/users/${adminId}/export`)), [403, error('NO_PERMISSION')], 'a users manager cannot export an administrator\'s')
    t.equal((await as(app, helper).get(`/api/panel/users/${miraId}/export`)).statusCode, 200, 'but may a member\'s')
  })

  t.test('an export longer than a batch is, byte for byte, the document the whole lists made', async t => {
    // Made in SQL: 2,500 more shouts (three batches of 1,000), 1,200 reactions to them
    // (two batches, keyed on their time), 1,100 notifications; a mute and a held shout.
    await app.db.raw(`insert into shoutbox_shouts (message, username, author_id, date)
      select 'Shout number ' || g || ' "quoted" \\ é 😀', 'mira', ?, 1795000000000 + g from generate_series(1, 2500) as g`, [miraId])
    await app.db.raw(`insert into shoutbox_reactions (shout_id, user_id, emoji, created_at)
      select id, ?, '🎉', 1796000000000 - id from shoutbox_shouts where author_id = ? and message like 'Shout number %' order by id limit 1200`, [miraId, miraId])
    await app.db.raw(`insert into notifications (user_id, addon_id, kind, data, created_at)
      select ?, 'shoutbox', 'mention', jsonb_build_object('shout', g, 'excerpt', 'mention ' || g), 1795000000000 + g from generate_series(1, 1100) as g`, [miraId])
    await app.db('shoutbox_mutes').insert({ user_id: miraId, username: 'mira', until: null, reason: 'calm down', created_at: 1795000000000, by_id: null, by_username: null })
    await app.db('shoutbox_shouts').insert({ room_id: 1, author_id: miraId, username: 'mira', message: 'held for review', date: 1795000000001, state: 'held', why: 'new-member', since: 1795000000001 })

    const response = await as(app, mira).get('/api/users/me/export')
    t.equal(response.statusCode, 200)
    t.match(response.headers['content-disposition'], /^attachment; filename="shoutbox-data-mira\.json"$/, 'still a file to save')
    t.equal(response.headers['cache-control'], 'private, no-store')
    const got = JSON.parse(response.body)
    const whole = { result: 'ok', export: await wholeDocument(app, miraId, got.export.exportedAt) }
    t.same(got, whole, 'the same document')
    t.equal(response.body, JSON.stringify(whole), 'byte for byte as JSON.stringify writes it')
    const board = got.export.addons.shoutbox
    t.same([board.shouts.length, board.reactions.length, got.export.notifications.length, board.waitingForReview.length, board.mute.reason], [2501, 1201, 1100 + data.notifications.length, 1, 'calm down'])
  })
})
