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
