import t from 'tap'
import { build, login, setUp, type App } from '../helpers/app.js'

/**
 * CONTRACT §14 with §12: members' shouts are in the archive, on their permalinks and may
 * be pinned; an edited shout shows its new text everywhere; a member's own delete unpins.
 */

/** A shout as the post, archive, permalink and pinned answers show it: the list's four fields, then its room (CONTRACT §15). */
interface Shout { id: number, message: string, username: string, date: number, room: string }

const PASSWORD = 'a long password'

async function member (app: App, admin: string, username: string): Promise<string> {
  const roles = (await app.inject({ url: '/api/panel/roles', headers: { cookie: admin } })).json().roles as Array<{ id: number, name: string }>
  const roleId = roles.find(role => role.name === 'member')!.id
  const created = await app.inject({
    method: 'POST', url: '/api/panel/users', headers: { cookie: admin }, payload: { username, email: `${username}@example.org`, password: PASSWORD, roleId }
  })
  if (created.statusCode !== 200) throw new Error(created.body)
  return login(app, username, PASSWORD)
}

t.test('members\' shouts in the archive, on permalinks and among the pinned', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const ayse = await member(app, admin, 'ayse')
  // No flood rules in the way: this is about where the shouts show.
  await app.inject({ method: 'PUT', url: '/panel/api/shoutbox/config', headers: { cookie: admin }, payload: { minSecondsBetweenShouts: 0 } })
  const post = async (cookie: string, message: string): Promise<Shout> => {
    const response = await app.inject({ method: 'POST', url: '/api/shoutbox', headers: { cookie }, payload: { message } })
    t.equal(response.statusCode, 200, response.body)
    return response.json().shout as Shout
  }
  const archive = async (query = '') => (await app.inject({ url: `/api/shoutbox/archive${query}` })).json()
  const permalink = async (id: number) => {
    const response = await app.inject({ url: `/api/shoutbox/shouts/${id}` })
    return [response.statusCode, response.json()]
  }
  const pinned = async () => (await app.inject({ url: '/api/shoutbox/pinned' })).json()
  const pin = (id: number, cookie = admin, pinnedNow = true) =>
    app.inject({ method: 'PUT', url: `/panel/api/shoutbox/${id}/pin`, headers: { cookie }, payload: { pinned: pinnedNow } })

  await app.inject({ method: 'POST', url: '/panel/api/shoutbox', headers: { cookie: admin }, payload: { message: 'staff news' } })
  const first = await post(ayse, 'hello from a member')
  const second = await post(ayse, 'typo in this shuot')

  t.test('the archive holds members\' shouts with the staff\'s, newest first; search finds them', async t => {
    const page = await archive()
    t.same(page.shouts.map((s: Shout) => [s.message, s.username]), [['typo in this shuot', 'ayse'], ['hello from a member', 'ayse'], ['staff news', 'admin']])
    t.same(await archive('?q=member'), { result: 'ok', shouts: [first], next: null })
    t.same(await permalink(first.id), [200, { result: 'ok', shout: first }])
  })

  t.test('a member cannot pin (no panel access): 403 NO_PERMISSION, nothing pinned', async t => {
    const response = await pin(first.id, ayse)
    t.same([response.statusCode, response.json()], [403, { result: 'error', error: 'NO_PERMISSION' }])
    t.same(await pinned(), { result: 'ok', shouts: [] })
  })

  t.test('an edited shout shows its new text in the archive, its permalink, the pinned shouts and search', async t => {
    t.equal((await pin(second.id)).statusCode, 200)
    t.same(await pinned(), { result: 'ok', shouts: [second] }, 'kept in memory before the edit')
    // A pinned shout is closed to its author (members.test.ts); a moderator corrects it.
    const edited = await app.inject({ method: 'PUT', url: `/api/panel/shoutbox/${second.id}`, headers: { cookie: admin }, payload: { message: 'typo in this shout' } })
    t.equal(edited.statusCode, 200, edited.body)
    t.type(edited.json().shout.edited, 'number', 'an edited shout says when')
    const now = { ...second, message: 'typo in this shout', edited: edited.json().shout.edited as number }
    t.same(await pinned(), { result: 'ok', shouts: [now] })
    t.same(await permalink(second.id), [200, { result: 'ok', shout: now }])
    t.same((await archive()).shouts[0], now)
    t.same(await archive('?q=shout'), { result: 'ok', shouts: [now], next: null }, 'the new words are found')
    t.same(await archive('?q=shuot'), { result: 'ok', shouts: [], next: null }, 'the old ones are not')
  })

  t.test('a member deleting their own pinned shout unpins it; it leaves the archive and its permalink', async t => {
    t.equal((await app.inject({ method: 'DELETE', url: `/api/shoutbox/${second.id}`, headers: { cookie: ayse } })).statusCode, 200)
    t.same(await pinned(), { result: 'ok', shouts: [] })
    t.same(await permalink(second.id), [404, { result: 'error', error: 'NOT_FOUND' }])
    t.same((await archive()).shouts.map((s: Shout) => s.id), [first.id, first.id - 1])
    t.same(await app.db('shoutbox_pins').select(), [])
  })
})
