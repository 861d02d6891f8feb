import t, { type Test } from 'tap'
import { build, setUp } from '../helpers/app.js'
import { greeterAddonsDir } from '../helpers/fixtures.js'
import type { FeedEntry } from '../helpers/types.js'

/** A board with the greeter addon, on which the admin has greeted Ayşe. */
async function greeted (t: Test, addonsDir: string) {
  const app = await build(t, { config: { addonsDir } })
  const cookie = await setUp(app)
  t.equal((await app.inject({ method: 'POST', url: '/api/panel/greeter/greet', headers: { cookie }, payload: { name: 'Ayşe' } })).statusCode, 200)
  const feed = (query = '', headers: Record<string, string> = {}) =>
    app.inject({ url: `/api/panel/logs/activity${query}`, headers: { cookie, ...headers } }).then(r => r.json())
  return { app, cookie, feed }
}

t.test('the activity feed renders each entry with its owner\'s strings', async t => {
  const addonsDir = await greeterAddonsDir(t)
  // Two boards staged alike: 'newest first, 20 a page' writes 40 more entries on the
  // first; the subtests that read the newest entries use `shown`, which nothing changes.
  const { app, cookie, feed } = await greeted(t, addonsDir)
  const shown = await greeted(t, addonsDir)

  t.test('a type with a string shows the sentence; without one, the raw key', async t => {
    const { feed } = shown
    const { logs } = await feed()
    t.match(logs[0], { type: 'GREETED', addonId: 'greeter', username: 'admin', userId: 1, details: { name: 'Ayşe' }, text: 'admin greeted Ayşe' })
    t.match(logs[1], { type: 'WAVED', addonId: 'greeter', text: 'WAVED' })
    t.match(logs[2], { type: 'SETUP_FINISHED', addonId: null, text: 'admin finished the platform\'s setup' })
    t.same(Object.keys(logs[0]).sort(), ['addonId', 'createdAt', 'details', 'id', 'text', 'type', 'userId', 'username'])
  })

  t.test('Turkish from ?locale=tr and from Accept-Language', async t => {
    const { feed } = shown
    t.equal((await feed('?locale=tr')).logs[0].text, 'admin, Ayşe kişisini selamladı')
    t.equal((await feed('', { 'accept-language': 'tr' })).logs[0].text, 'admin, Ayşe kişisini selamladı')
    t.equal((await feed('?locale=en', { 'accept-language': 'tr' })).logs[0].text, 'admin greeted Ayşe', '?locale= wins')
  })

  t.test('a locale nobody ships falls back to English', async t => {
    const { feed } = shown
    t.equal((await feed('?locale=de')).logs[0].text, 'admin greeted Ayşe')
    t.equal((await feed('', { 'accept-language': 'de-DE,fr;q=0.8' })).logs[0].text, 'admin greeted Ayşe')
  })

  t.test('newest first, 20 a page', async t => {
    const ctx = app.addons.runtimes.get('greeter')!.ctx
    for (let i = 0; i < 40; i++) await ctx.activityLog.write({ type: 'GREETED', user: { id: 1, username: 'admin' }, details: { name: `n${i}` } })
    const first = await feed('?page=1')
    t.same([first.logs.length, first.page, first.totalPages], [20, 1, 3])
    t.equal(first.logs[0].details.name, 'n39')
    const last = await feed('?page=3')
    t.same([last.logs.length, last.page], [3, 3])
    t.same(last.logs.map((l: FeedEntry) => l.type), ['GREETED', 'WAVED', 'SETUP_FINISHED'])
    t.same((await feed('?page=4')).logs, [])
    const bad = await app.inject({ url: '/api/panel/logs/activity?page=0', headers: { cookie } })
    t.same([bad.statusCode, bad.json()], [400, { result: 'error', error: 'BAD_REQUEST', bodyValidationError: 'querystring/page must be >= 1' }])
  })
})
