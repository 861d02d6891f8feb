import t, { type Test } from 'tap'
import { build, setUp } from '../helpers/app.js'
import type { Shout } from '../helpers/types.js'

/** A fresh board, signed in as the admin, with `messages` published in order (ids from 1). */
async function board (t: Test, messages: readonly string[] = []) {
  const app = await build(t)
  const cookie = await setUp(app)
  const list = () => app.inject({ url: '/api/shoutbox/list' })
  const publish = (message: string) => app.inject({ method: 'POST', url: '/panel/api/shoutbox', headers: { cookie }, payload: { message } })
  const setMaxShouts = async (maxShouts: number | null) => {
    const response = await app.inject({ method: 'PUT', url: '/panel/api/shoutbox/config', headers: { cookie }, payload: { maxShouts } })
    t.equal(response.statusCode, 200)
  }
  for (const message of messages) await publish(message)
  return { app, cookie, list, publish, setMaxShouts }
}

/** Seed §4.1 and CONTRACT §6: GET /api/shoutbox/list. */
t.test('GET /api/shoutbox/list', async t => {
  // The shared board stays empty: the subtests that publish or change the settings have their own.
  const { app, cookie, list } = await board(t)

  t.test('rule 1: with no shout, exactly {"result":"ok","shouts":[]}', async t => {
    const response = await list()
    t.equal(response.statusCode, 200)
    t.equal(response.body, '{"result":"ok","shouts":[]}')
    t.equal(response.headers['content-type'], 'application/json; charset=utf-8')
  })

  t.test('public: no sign-in needed, a session changes nothing', async t => {
    t.same((await app.inject({ url: '/api/shoutbox/list', headers: { cookie } })).json(), (await list()).json())
  })

  t.test('rule 2: a published shout appears with exactly id, message, username, date', async t => {
    const { list, publish } = await board(t)
    const before = Date.now()
    t.equal((await publish('first!')).statusCode, 200)
    const after = Date.now()
    const body = (await list()).json()
    t.equal(body.shouts.length, 1)
    const [shout] = body.shouts
    t.same(Object.keys(shout), ['id', 'message', 'username', 'date'])
    t.same({ ...shout, date: 0 }, { id: 1, message: 'first!', username: 'admin', date: 0 })
    t.ok(Number.isInteger(shout.date) && shout.date >= before && shout.date <= after, 'date: ms since the epoch, when stored')
  })

  t.test('the store order, newest first (id descending)', async t => {
    const { list, publish } = await board(t, ['first!'])
    await publish('second')
    await publish('third')
    const shouts = (await list()).json().shouts
    t.same(shouts.map((s: Shout) => s.message), ['third', 'second', 'first!'])
    t.same(shouts.map((s: Shout) => s.id), [3, 2, 1])
  })

  t.test('rule 3: maxShouts 2 → the two newest; 0 → none; null → all; read at request time', async t => {
    const { list, setMaxShouts } = await board(t, ['first!', 'second', 'third'])
    await setMaxShouts(2)
    t.same((await list()).json().shouts.map((s: Shout) => s.message), ['third', 'second'])
    await setMaxShouts(0)
    t.equal((await list()).body, '{"result":"ok","shouts":[]}')
    await setMaxShouts(null)
    t.equal((await list()).json().shouts.length, 3)
    await setMaxShouts(50)
    t.equal((await list()).json().shouts.length, 3, 'a cap above the count returns all')
  })

  t.test('no parameters: a query string or a body are ignored', async t => {
    const { app } = await board(t, ['first!', 'second', 'third'])
    const response = await app.inject({ url: '/api/shoutbox/list?limit=1&maxShouts=1' })
    t.equal(response.json().shouts.length, 3)
  })
})
