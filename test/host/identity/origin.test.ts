import t from 'tap'
import { build, setUp } from '../../helpers/app.js'
import type { Tap } from '../../helpers/types.js'

/** An empty board that also allows one configured origin; publish() sends the admin's cookie. */
async function board (t: Tap) {
  const app = await build(t, { config: { allowedOrigins: ['https://shouts.example.org'] } })
  const cookie = await setUp(app)
  const publish = (headers: Record<string, string>) => app.inject({
    method: 'POST', url: '/api/panel/shoutbox', headers: { cookie, ...headers }, payload: { message: 'forged?' }
  })
  const stored = async () => (await app.inject({ url: '/api/shoutbox/list' })).json().shouts.length as number
  return { app, publish, stored }
}

t.test('cross-site protection', async t => {
  // Nothing is stored on the shared board (every write to it is refused): the subtest
  // whose writes pass has a board of its own.
  const { app, publish, stored } = await board(t)

  t.test('a POST whose Origin is another site: 403 INVALID_ORIGIN, nothing written', async t => {
    for (const origin of ['https://evil.example', 'http://localhost:81', 'null']) {
      const response = await publish({ origin })
      t.same([response.statusCode, response.json()], [403, { result: 'error', error: 'INVALID_ORIGIN' }], origin)
    }
    t.equal(await stored(), 0)
  })

  t.test('no Origin but Sec-Fetch-Site: cross-site: refused too', async t => {
    const response = await publish({ 'sec-fetch-site': 'cross-site' })
    t.same([response.statusCode, response.json()], [403, { result: 'error', error: 'INVALID_ORIGIN' }])
    t.equal(await stored(), 0)
  })

  t.test('refused before the body is read', async t => {
    const response = await app.inject({
      method: 'POST', url: '/api/panel/shoutbox', headers: { origin: 'https://evil.example', 'content-type': 'application/json' }, payload: '{broken'
    })
    t.same(response.json(), { result: 'error', error: 'INVALID_ORIGIN' })
  })

  t.test('same origin, a configured origin, same-site fetches and non-browser clients pass', async t => {
    const { publish, stored } = await board(t)
    const cases: Array<Record<string, string>> = [{ origin: 'http://localhost:80' }, { origin: 'https://shouts.example.org' }, { 'sec-fetch-site': 'same-origin' }, {}]
    for (const headers of cases) {
      const response = await publish({ host: 'localhost:80', ...headers })
      t.same([response.statusCode, response.json()], [200, { result: 'ok' }], JSON.stringify(headers))
    }
    t.equal(await stored(), 4)
  })

  t.test('reads are not state-changing: a foreign Origin may GET', async t => {
    const response = await app.inject({ url: '/api/shoutbox/list', headers: { origin: 'https://theme.example' } })
    t.equal(response.statusCode, 200)
  })
})
