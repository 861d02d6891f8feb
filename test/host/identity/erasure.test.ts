import t from 'tap'
import { build, setUp, type App } from '../../helpers/app.js'
import { eventually } from '../../helpers/eventually.js'
import { ACCOUNT_PASSWORD, account } from '../../helpers/identity.js'
import { answer, as, error } from '../../helpers/requests.js'
import { connectSse } from '../../helpers/sse.js'

/**
 * Erasure: `DELETE /api/users/me {password}` and the panel's user delete. The site's
 * `erasure` setting says what becomes of the shouts: kept under `deleted user`
 * (anonymise, the default) or deleted; sessions, tokens, notifications, reactions, ignore
 * lists and preferences go; the username stays retired.
 */

const idOf = async (app: App, username: string): Promise<number> => (await app.db('users').where({ username }).first('id')).id as number

/** A member with something of everything: shouts (one replied to), a reaction, an ignore, preferences, a token, a notification. */
async function busyMember (app: App, admin: string, username: string) {
  const cookie = await account(app, admin, username)
  const other = await account(app, admin, `${username}-friend`)
  const first = (await as(app, cookie).post('/api/shoutbox', { message: `first words of ${username}` })).json().shout.id as number
  await as(app, cookie).post('/api/shoutbox', { message: `second words of ${username}` })
  await as(app, other).post('/api/shoutbox', { message: 'a reply', replyTo: first })
  const friendShout = (await as(app, other).post('/api/shoutbox', { message: `hey @${username}` })).json().shout.id as number
  await as(app, cookie).put(`/api/shoutbox/shouts/${friendShout}/reactions/${encodeURIComponent('👍')}`)
  await as(app, cookie).put(`/api/users/me/ignored/${await idOf(app, 'admin')}`).catch(() => undefined)
  await as(app, other).put(`/api/users/me/ignored/${await idOf(app, username)}`)
  await as(app, cookie).put('/api/users/me/preferences', { theme: 'dark' })
  await as(app, cookie).post('/api/users/me/tokens', { name: 'script', permissions: ['addon.shoutbox.post'] })
  const id = await idOf(app, username)
  await eventually(() => app.db('notifications').where({ user_id: id }).count({ n: '*' }), rows => Number(rows[0]!.n) > 0)
  return { cookie, id, first, friendShout }
}

const remaining = async (app: App, id: number) => ({
  sessions: (await app.db('sessions').where({ user_id: id })).length,
  tokens: (await app.db('api_tokens').where({ user_id: id })).length,
  notifications: (await app.db('notifications').where({ user_id: id })).length,
  preferences: (await app.db('user_preferences').where({ user_id: id })).length,
  reactions: (await app.db('shoutbox_reactions').where({ user_id: id })).length,
  ignores: (await app.db('shoutbox_ignores').where({ user_id: id }).orWhere({ ignored_id: id })).length,
  authored: (await app.db('shoutbox_shouts').where({ author_id: id })).length
})
const NOTHING = { sessions: 0, tokens: 0, notifications: 0, preferences: 0, reactions: 0, ignores: 0, authored: 0 }

t.test('erasure', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  await as(app, admin).put('/api/panel/shoutbox/config', { autoMuteAfter: 0, minSecondsBetweenShouts: 0 })

  t.test('a member deletes their account: the shouts stay under "deleted user" (the default)', async t => {
    const { cookie, id, first } = await busyMember(app, admin, 'mira')
    const base = await app.listen({ port: 0, host: '127.0.0.1' })
    const stream = connectSse(`${base}/api/shoutbox/stream`)
    t.teardown(() => stream.close())
    await stream.next(event => event.event === 'ready')
    // The kept list is warm: it must be made anew, not served with the old name.
    t.match((await as(app, undefined).get('/api/shoutbox/list')).body, /"username":"mira"/)

    t.same(answer(await app.inject({ method: 'DELETE', url: '/api/users/me', headers: { cookie }, payload: { password: 'not my password' } })), [401, error('INVALID_CREDENTIALS')], 'the password, or nothing')
    t.same(answer(await app.inject({ method: 'DELETE', url: '/api/users/me', headers: { cookie }, payload: {} })), [400, error('BAD_REQUEST', { bodyValidationError: "body must have required property 'password'" })])
    t.equal(await idOf(app, 'mira'), id, 'still there')

    const gone = await app.inject({ method: 'DELETE', url: '/api/users/me', headers: { cookie }, payload: { password: ACCOUNT_PASSWORD } })
    t.same(answer(gone), [200, { result: 'ok' }])
    t.match(String(gone.headers['set-cookie']), /shoutbox_session=;/, 'the cookie is cleared')
    t.same(await remaining(app, id), NOTHING, 'sessions, tokens, notifications, preferences, reactions, ignore lists: gone')
    t.equal(await app.db('users').where({ id }).first(), undefined)
    t.same(answer(await as(app, cookie).get('/api/auth/me')), [401, error('NOT_LOGGED_IN')], 'the session is over')

    const list = (await as(app, undefined).get('/api/shoutbox/list')).json().shouts as Array<{ message: string, username: string }>
    t.same(list.filter(shout => shout.message.endsWith('of mira')).map(shout => shout.username), ['deleted user', 'deleted user'], 'the kept list made anew')
    t.notMatch(JSON.stringify(list), /"mira"/)
    const reply = ((await as(app, undefined).get('/api/shoutbox/latest')).json().shouts as Array<{ message: string, replyTo: { username?: string } | null }>).find(shout => shout.message === 'a reply')!
    t.equal(reply.replyTo?.username, 'deleted user', 'replies quote "deleted user"')
    const replay = connectSse(`${base}/api/shoutbox/stream`, { 'last-event-id': '0' })
    t.teardown(() => replay.close())
    await replay.next(event => event.event === 'shout-created' && JSON.parse(event.data).id === first)
    t.notMatch(JSON.stringify(replay.events), /"username":"mira"/, 'the stream\'s history no longer names her')
    t.equal((await as(app, admin).post('/panel/api/users', { username: 'mira', email: 'mira2@example.org', password: ACCOUNT_PASSWORD, roleId: 2 })).json().error, 'USERNAME_TAKEN', 'her name is never given to anyone else')
    t.ok(await app.db('activity_logs').where({ type: 'DELETED_OWN_ACCOUNT' }).first(), 'logged')
  })

  t.test('with erasure "delete", the panel\'s delete takes the shouts away too', async t => {
    t.equal((await as(app, admin).put('/api/panel/settings', { erasure: 'delete' })).json().erasure, 'delete')
    t.equal((await as(app, admin).put('/api/panel/settings', { erasure: 'shred' })).statusCode, 400)
    const { id } = await busyMember(app, admin, 'bora')
    t.same(answer(await as(app, admin).delete(`/api/panel/users/${id}`)), [200, { result: 'ok' }])
    t.same(await remaining(app, id), NOTHING)
    const shouts = (await as(app, undefined).get('/api/shoutbox/latest')).json().shouts as Array<{ message: string }>
    t.notOk(shouts.some(shout => shout.message.endsWith('of bora')), 'her shouts are gone from every answer')
    t.same(await app.db('shoutbox_shouts').whereRaw("message like '%of bora'"), [], 'and from the table')
    await as(app, admin).put('/api/panel/settings', { erasure: 'anonymise' })
  })

  t.test('attack: a token cannot delete its user, nor can the last administrator leave', async t => {
    const cookie = await account(app, admin, 'cai')
    const { secret } = (await as(app, cookie).post('/api/users/me/tokens', { name: 'script', permissions: ['addon.shoutbox.post'] })).json()
    const byToken = await app.inject({ method: 'DELETE', url: '/api/users/me', headers: { authorization: `Bearer ${secret as string}` }, payload: { password: ACCOUNT_PASSWORD } })
    t.same(answer(byToken), [403, error('NO_PERMISSION')])
    const forged = await app.inject({ method: 'DELETE', url: '/api/users/me', headers: { cookie, origin: 'https://evil.example' }, payload: { password: ACCOUNT_PASSWORD } })
    t.same(answer(forged), [403, error('INVALID_ORIGIN')], 'nor another site with her cookie')
    t.ok(await idOf(app, 'cai'))
    const last = await app.inject({ method: 'DELETE', url: '/api/users/me', headers: { cookie: admin }, payload: { password: 'correct horse battery' } })
    t.same(answer(last), [409, error('LAST_ADMIN')], 'the last administrator stays')
  })
})
