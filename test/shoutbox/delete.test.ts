import t from 'tap'
import { build, setUp, userWith } from '../helpers/app.js'
import type { Shout, Tap } from '../helpers/types.js'

/** A board with three shouts (ids 1-3), its admin, and a helper with panel access only. */
async function board (t: Tap) {
  const app = await build(t)
  const admin = await setUp(app)
  const helper = await userWith(app, admin, 'helper', ['panel.access'])
  for (const message of ['one', 'two', 'three']) {
    await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie: admin }, payload: { message } })
  }
  const del = (cookie: string, id: string) => app.inject({ method: 'DELETE', url: `/panel/api/shoutbox/${id}`, headers: { cookie } })
  const messages = async () => (await app.inject({ url: '/api/shoutbox/list' })).json().shouts.map((s: Shout) => s.message)
  return { app, admin, helper, del, messages }
}

t.test('DELETE /api/panel/shoutbox/:id', async t => {
  // The shared board, once the admin has deleted shout 2. The subtests that use it only
  // make requests that are refused, so none changes what another sees; the one that
  // deletes has a board of its own.
  const { app, admin, helper, del, messages } = await board(t)
  await del(admin, '2')

  t.test('deletes the shout and logs DELETED_SHOUT in the same transaction', async t => {
    const { app, admin, del, messages } = await board(t)
    const response = await del(admin, '2')
    t.same([response.statusCode, response.body], [200, '{"result":"ok"}'])
    t.same(await messages(), ['three', 'one'])
    const entry = await app.db('activity_logs').where({ type: 'DELETED_SHOUT' }).first()
    t.match(entry, { user_id: 1, username: 'admin', addon_id: 'shoutbox', details: { shoutId: 2, author: 'admin', message: 'two', room: 'general' } })
    t.same(entry.details, { shoutId: 2, author: 'admin', message: 'two', room: 'general' }, 'the details: the shout, its author, what it said, its room')
    const feed = await app.inject({ url: '/api/panel/logs/activity', headers: { cookie: admin } })
    t.equal(feed.json().logs[0].text, 'admin deleted a shout by admin: two')
  })

  t.test('an unknown id → 404 NOT_FOUND, nothing logged', async t => {
    for (const id of ['2', '999', '0', '999999999999999']) {
      const response = await del(admin, id)
      t.same([response.statusCode, response.json()], [404, { result: 'error', error: 'NOT_FOUND' }], id)
    }
    t.equal((await app.db('activity_logs').where({ type: 'DELETED_SHOUT' })).length, 1)
  })

  t.test('an id that is not an integer → 400 BAD_REQUEST', async t => {
    for (const id of ['abc', '1.5', '1e3', '-1', '%20 1', '9999999999999999999999', '0x10']) {
      const response = await del(admin, id)
      t.same([response.statusCode, response.json()], [400, {
        result: 'error', error: 'BAD_REQUEST', bodyValidationError: 'params/id must match pattern "^[0-9]{1,15}$"'
      }], id)
    }
  })

  t.test('needs MANAGE_SHOUTBOX', async t => {
    const response = await del(helper, '1')
    t.same([response.statusCode, response.json()], [403, { result: 'error', error: 'NO_PERMISSION' }])
    t.same(await messages(), ['three', 'one'])
  })
})
