import t from 'tap'
import { build, setUp } from '../../helpers/app.js'
import { eventually } from '../../helpers/eventually.js'
import { account } from '../../helpers/identity.js'
import { answer, as, error } from '../../helpers/requests.js'

/** A member's data export (`GET /api/users/me/export`), and an administrator's of a member (`GET /api/panel/users/:id/export`). */

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
  t.same(data.preferences, { sound: false, desktopNotifications: false, theme: 'dark' })
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
  t.notMatch(raw, /scrypt\$/, 'no hash of any kind')
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
})
