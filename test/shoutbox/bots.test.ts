import t from 'tap'
import { postShout } from '../../examples/bot.mjs'
import { build, setUp } from '../helpers/app.js'
import { account, memberRoleId } from '../helpers/identity.js'
import { as } from '../helpers/requests.js'
import { connectSse } from '../helpers/sse.js'

/**
 * A bot account posts with a token (through examples/bot.mjs, as its README says); its
 * shouts carry `bot: true` wherever a shout is answered or streamed — but in the seed's
 * list, whose shape is the seed's — and a person's never do.
 */
t.test('a bot posts with a token, and its shouts say so', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const mira = await account(app, admin, 'mira')
  const made = await as(app, admin).post('/api/panel/users', { username: 'deploybot', email: 'deploybot@example.org', roleId: await memberRoleId(app, admin), bot: true })
  t.equal(made.statusCode, 200)
  t.equal(made.json().user.bot, true)
  const token = await as(app, admin).post(`/api/panel/users/${made.json().user.id as number}/tokens`, { name: 'deploys', permissions: ['addon.shoutbox.post'] })
  const secret = token.json().secret as string
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })

  const stream = connectSse(`${baseUrl}/api/shoutbox/stream`)
  t.teardown(() => stream.close())
  await stream.next(event => event.event === 'ready')

  const posted = await postShout({ baseUrl, token: secret, message: 'v2.3 is out' })
  t.has(posted, { result: 'ok', shout: { username: 'deploybot', message: 'v2.3 is out', bot: true } }, 'the example bot posts, and the answer says a bot did')
  await as(app, mira).post('/api/shoutbox', { message: 'congrats!' })

  const created = await stream.next(event => event.event === 'shout-created' && JSON.parse(event.data).message === 'v2.3 is out')
  t.equal(JSON.parse(created.data).bot, true, 'the stream event carries it')
  const person = await stream.next(event => event.event === 'shout-created' && JSON.parse(event.data).message === 'congrats!')
  t.notOk('bot' in JSON.parse(person.data), 'a person\'s has no bot key')

  const latest = (await as(app, undefined).get('/api/shoutbox/latest')).json().shouts as Array<Record<string, unknown>>
  t.same(latest.map(shout => [shout.message, shout.bot]), [['congrats!', undefined], ['v2.3 is out', true]])
  t.equal((await as(app, undefined).get(`/api/shoutbox/shouts/${posted.shout.id as number}`)).json().shout.bot, true, 'its permalink')
  const archive = (await as(app, undefined).get('/api/shoutbox/archive?limit=5')).json().shouts as Array<Record<string, unknown>>
  t.equal(archive.find(shout => shout.message === 'v2.3 is out')!.bot, true, 'the archive')
  t.equal((await as(app, admin).put(`/api/panel/shoutbox/${posted.shout.id as number}/pin`, { pinned: true })).statusCode, 200)
  const pinned = (await as(app, undefined).get('/api/shoutbox/pinned')).json().shouts as Array<Record<string, unknown>>
  t.same(pinned.map(shout => [shout.message, shout.bot]), [['v2.3 is out', true]], 'the kept pinned list')
  const list = (await as(app, undefined).get('/api/shoutbox/list')).json().shouts as Array<Record<string, unknown>>
  t.same(Object.keys(list[0]!).sort(), ['date', 'id', 'message', 'username'], 'the seed\'s list keeps the seed\'s shape')

  await t.rejects(postShout({ baseUrl, token: `sbx_${'A'.repeat(43)}`, message: 'forged' }), /NOT_LOGGED_IN/, 'a wrong token is refused, and the example says why')
  t.notOk((await as(app, undefined).get('/api/shoutbox/latest')).json().shouts.some((shout: { message: string }) => shout.message === 'forged'))
  const signIn = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: 'deploybot', password: 'any password at all' } })
  t.equal(signIn.statusCode, 401, 'a bot never signs in')

  // A stream opened with the token ends when the token is revoked.
  const botStream = connectSse(`${baseUrl}/api/shoutbox/stream`, { authorization: `Bearer ${secret}` })
  t.teardown(() => botStream.close())
  t.equal(await botStream.status, 200)
  await botStream.next(event => event.event === 'ready')
  const revoked = await as(app, admin).delete(`/api/panel/users/${made.json().user.id as number}/tokens/${token.json().token.id as number}`)
  t.equal(revoked.statusCode, 200)
  await botStream.ended
  t.pass('the stream the token opened ended with it')
  await t.rejects(postShout({ baseUrl, token: secret, message: 'after the revoke' }), /NOT_LOGGED_IN/)
})
