import t from 'tap'
import { build, setUp } from '../helpers/app.js'

t.test('publish then list', async t => {
  const app = await build(t)
  const cookie = await setUp(app)
  const empty = await app.inject({ method: 'GET', url: '/api/shoutbox/list' })
  t.same(empty.json(), { result: 'ok', shouts: [] })
  const res = await app.inject({ method: 'POST', url: '/panel/api/shoutbox', headers: { cookie }, payload: { message: 'hello' } })
  t.equal(res.statusCode, 200, res.body)
  t.same(res.json(), { result: 'ok' })
  const list = await app.inject({ method: 'GET', url: '/api/shoutbox/list' })
  t.match(list.json(), { result: 'ok', shouts: [{ message: 'hello', username: 'admin' }] })
})
