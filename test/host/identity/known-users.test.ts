import t from 'tap'
import { build, setUp, userWith } from '../../helpers/app.js'

/** CONTRACT §12, text: a page highlights `@name` only when the name is an account's, and asks which are. */

t.test('GET /api/users/known: which of the names are accounts', async t => {
  const app = await build(t)
  const before = await app.inject({ url: '/api/users/known?names=admin' })
  t.same([before.statusCode, before.json()], [503, { result: 'error', error: 'INSTALLATION_REQUIRED' }])
  const admin = await setUp(app)
  await userWith(app, admin, 'Ayse', [])

  const ask = (names: string) => app.inject({ url: `/api/users/known?names=${encodeURIComponent(names)}` })
  const known = await ask('ayse,nobody,ADMIN,ab,Ayse')
  t.same([known.statusCode, known.json()], [200, { result: 'ok', usernames: ['Ayse', 'admin'] }], 'public; as spelled; case does not matter')
  t.same((await ask('')).json(), { result: 'ok', usernames: [] })
  const many = await ask([...Array.from({ length: 60 }, (_, i) => `name${i}`), 'admin'].join(','))
  t.same(many.json(), { result: 'ok', usernames: [] }, 'the first 50 names only')
  const refused: Array<[string, string]> = [
    ['?names=a%27%20or%201=1', 'querystring/names must match pattern "^[A-Za-z0-9_,-]*$"'],
    ['', "querystring must have required property 'names'"]
  ]
  for (const [query, what] of refused) {
    const response = await app.inject({ url: `/api/users/known${query}` })
    t.same([response.statusCode, response.json()], [400, { result: 'error', error: 'BAD_REQUEST', bodyValidationError: what }], query)
  }
})

t.test('GET /api/users/known: a disabled account is not one to mention', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  await userWith(app, admin, 'Cem', [])
  const id = (await app.db('users').where({ username: 'Cem' }).first<{ id: number }>('id')).id
  const ask = async () => (await app.inject({ url: '/api/users/known?names=cem,admin' })).json()
  t.same(await ask(), { result: 'ok', usernames: ['Cem', 'admin'] })
  const disabled = await app.inject({ method: 'PUT', url: `/api/panel/users/${id}`, headers: { cookie: admin }, payload: { disabled: true } })
  t.equal(disabled.statusCode, 200)
  t.same(await ask(), { result: 'ok', usernames: ['admin'] })
})

t.test('GET /api/users/known: a stranger trying name after name from one address is held back; other addresses are not', async t => {
  const app = await build(t)
  await setUp(app)
  const attacker = '203.0.113.9'
  // Fifty guesses a request (all that are looked at), as many requests as the attacker can send at once.
  const guesses = (i: number) => Array.from({ length: 50 }, (_, j) => `staff${i * 50 + j}`).join(',')
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) =>
    app.inject({ url: `/api/users/known?names=${guesses(i)}`, remoteAddress: attacker })))
  t.equal(answers.filter(a => a.statusCode === 200).length, 12, '600 names a minute: twelve lookups of fifty')
  const refused = answers.filter(a => a.statusCode === 429)
  t.equal(refused.length, 8)
  for (const answer of refused) {
    t.same(answer.json(), { result: 'error', error: 'TOO_MANY_REQUESTS' })
    const wait = Number(answer.headers['retry-after'])
    t.ok(Number.isInteger(wait) && wait > 0 && wait <= 60, `until the minute is over (${wait} s)`)
  }
  const neighbour = await app.inject({ url: '/api/users/known?names=admin', remoteAddress: '198.51.100.20' })
  t.same([neighbour.statusCode, neighbour.json()], [200, { result: 'ok', usernames: ['admin'] }], 'another address still asks')
  const quota = await app.db('address_quotas').where({ key: `known-users:${await app.identity.addresses.of('198.51.100.20')}` }).first<{ count: number }>('count')
  t.equal(Number(quota.count), 1, 'one name, counted as one')
  await app.db('address_quotas').where({ key: `known-users:${await app.identity.addresses.of(attacker)}` }).update({ window_started_at: Date.now() - 60_001 })
  const later = await app.inject({ url: '/api/users/known?names=admin', remoteAddress: attacker })
  t.equal(later.statusCode, 200, 'a minute later the address asks again')
})
