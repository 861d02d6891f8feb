import type { Test } from 'tap'
import type { Browser, Request } from 'playwright-core'
import { ADMIN } from '../../helpers/app.js'
import { ensurePages, watchPages } from '../../helpers/browser.js'
import { eventually } from '../../helpers/eventually.js'
import { freePort, http, serverStorage, startServer } from '../../helpers/server.js'
import { TcpProxy } from '../../helpers/tcp-proxy.js'
import { WIDGET_REQUESTS, type WidgetEventKind } from '../../../bench/widget-requests.js'

/**
 * The widget lives on the stream, in a real browser: after its first load, every kind of
 * change reaches it as an event and shows, and it asks the server for no shouts; a
 * `reset` costs one load. What it asks for on each kind of event is held to
 * bench/widget-requests.ts, the table the `widgets` benchmark's readers follow.
 */
export async function story (t: Test, browser: Browser): Promise<void> {
  await ensurePages('addon/shoutbox/ui/widget.js')
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: storage.env })
  const admin = (await http(server, 'POST', '/api/setup/finish', { body: ADMIN })).cookie!
  t.equal((await http(server, 'PUT', '/api/panel/shoutbox/config', { body: { maxPinned: 20 }, cookie: admin })).status, 200)
  const post = async (message: string): Promise<number> => {
    const answer = await http(server, 'POST', '/api/shoutbox', { body: { message }, cookie: admin })
    t.equal(answer.status, 200, `posted: ${message}`)
    return (answer.body as { shout: { id: number } }).shout.id
  }
  for (let i = 1; i <= 3; i++) await post(`Before the page opened ${i}`)

  // The site's address: a proxy to the host, so that a new host can take the address over.
  const site = new TcpProxy({ host: '127.0.0.1', port: server.port }, await freePort())
  await site.start()
  t.teardown(() => site.cut())
  const problems: string[] = []
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' })
  watchPages(context, problems, { expected: [401] })
  // Every request the pages send for shouts or names (the stream itself aside), in order.
  const asked: string[] = []
  context.on('request', (request: Request) => {
    const url = new URL(request.url())
    // Who is here is asked once per room shown (presence events keep it), as the rooms are: not a load of shouts.
    if (url.pathname.endsWith('/presence')) return
    if ((url.pathname.startsWith('/api/shoutbox/') && url.pathname !== '/api/shoutbox/stream') || url.pathname === '/api/users/known') asked.push(url.pathname + url.search)
  })
  /** What the table says a widget sends for `count` events of `kind`. */
  const table = (kind: WidgetEventKind, count = 20): string[] => Array.from({ length: count }, () => [...WIDGET_REQUESTS[kind]]).flat()
  const page = await context.newPage()
  // A stream the restart below cuts is a failed request, and Chromium logs one console
  // error for it: expected of a restart, once for each such stream, and of no other request.
  const cutStreams: string[] = []
  page.on('requestfailed', request => {
    if (new URL(request.url()).pathname === '/api/shoutbox/stream') cutStreams.push(`console: Failed to load resource: ${request.failure()?.errorText ?? ''}`)
  })
  const widget = page.locator('.shoutbox-widget')
  const latest = widget.locator('[role="log"] li')
  const pinnedItems = widget.locator('.shoutbox-pinned li')

  await page.goto(`http://127.0.0.1:${site.port}/`)
  await latest.filter({ hasText: 'Before the page opened 3' }).waitFor()
  const firstLoad = [...asked]
  // Who is here, what the rules are and which rooms they read: asked once, with the session.
  t.same(firstLoad.filter(path => !path.startsWith('/api/shoutbox/rules') && !path.startsWith('/api/shoutbox/me') && path !== '/api/shoutbox/rooms'),
    table('ready', 1), 'the first load (`ready`): one request, bounded (maxShouts unset: the newest 50) and with the pins')
  let mark = firstLoad.length
  /** The requests since the last call. */
  const since = (): string[] => {
    const sent = asked.slice(mark)
    mark = asked.length
    return sent
  }
  const created: number[] = []

  await t.test('20 new shouts from elsewhere: each shows, newest first, with no request', async t => {
    for (let i = 1; i <= 20; i++) created.push(await post(`Live shout ${i}`))
    await latest.first().filter({ hasText: 'Live shout 20' }).waitFor()
    t.same((await latest.locator('.text').allInnerTexts()).slice(0, 20), Array.from({ length: 20 }, (_, i) => `Live shout ${20 - i}`))
    t.same(since(), table('shout-created'))
  })

  await t.test('20 edits: each shout shows its new text', async t => {
    for (const [i, id] of created.entries()) {
      t.equal((await http(server, 'PUT', `/api/shoutbox/${id}`, { body: { message: `Edited shout ${i + 1}` }, cookie: admin })).status, 200)
    }
    await latest.filter({ hasText: 'Edited shout 20' }).waitFor()
    t.equal(await latest.filter({ hasText: /Edited shout \d+/ }).count(), 20)
    t.equal(await latest.filter({ hasText: /Live shout/ }).count(), 0)
    t.same(since(), table('shout-edited'))
  })

  await t.test('20 pins, then 20 unpins: the pinned box follows', async t => {
    for (const id of created) t.equal((await http(server, 'PUT', `/api/panel/shoutbox/${id}/pin`, { body: { pinned: true }, cookie: admin })).status, 200)
    await eventually(() => pinnedItems.count(), count => count === 20)
    t.equal(await pinnedItems.count(), 20)
    t.equal(await pinnedItems.first().locator('.text').innerText(), 'Edited shout 20', 'the newest pin first')
    t.equal(await latest.filter({ hasText: /Edited shout/ }).count(), 0, 'a pinned shout is shown once, among the pinned')
    t.same(since(), table('shout-pinned'))
    for (const id of created) t.equal((await http(server, 'PUT', `/api/panel/shoutbox/${id}/pin`, { body: { pinned: false }, cookie: admin })).status, 200)
    await widget.locator('.shoutbox-pinned').waitFor({ state: 'hidden' })
    t.equal(await latest.filter({ hasText: /Edited shout/ }).count(), 20, 'back among the latest')
    t.same(since(), table('shout-unpinned'))
  })

  await t.test('20 deletions: each shout leaves', async t => {
    for (const id of created) t.equal((await http(server, 'DELETE', `/api/panel/shoutbox/${id}`, { cookie: admin })).status, 200)
    await eventually(() => latest.count(), count => count === 3)
    t.same(await latest.locator('.text').allInnerTexts(), [3, 2, 1].map(i => `Before the page opened ${i}`))
    t.same(since(), table('shout-deleted'))
  })

  let current = server
  let currentAdmin = admin
  // The new installation outlives the subtest that starts it: the panel's subtest uses it.
  const story = t
  await t.test('a reconnect that cannot be replayed (reset): one load, and it shows what is current', async t => {
    // The site is restored from nothing at the same address: the host stops (its streams
    // end) and a new one starts on new storage. The browser reconnects with the last id it
    // saw, which the new history never reached: the new process answers `reset`. The
    // reconnect waits at the site's address until the new installation is set up.
    since()
    site.hold()
    server.child.kill('SIGTERM')
    t.equal(await server.exited, 0)
    const again = await startServer(story, { env: (await serverStorage(story)).env })
    const newAdmin = (await http(again, 'POST', '/api/setup/finish', { body: ADMIN })).cookie!
    current = again
    currentAdmin = newAdmin
    t.equal((await http(again, 'POST', '/api/shoutbox', { body: { message: 'The first shout of the new installation' }, cookie: newAdmin })).status, 200)
    site.release({ host: '127.0.0.1', port: again.port })
    await latest.first().filter({ hasText: 'The first shout of the new installation' }).waitFor({ timeout: 30_000 })
    t.same(await latest.locator('.text').allInnerTexts(), ['The first shout of the new installation'], 'nothing of the old installation is left')
    t.same(since(), table('reset', 1), 'one request')
  })

  await t.test('the panel\'s Shouts page: 50 at a time with "Older shouts", live; a warning while maxShouts is unset on a big board', async t => {
    // 1,100 shouts, 50 at a time (the publisher writes those that arrive together in one statement).
    for (let from = 1; from <= 1100; from += 50) {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) =>
        http(current, 'POST', '/api/panel/shoutbox', { body: { message: `Bulk shout ${from + i}` }, cookie: currentAdmin })))
      t.ok(answers.every(answer => answer.status === 200), `shouts ${from}–${from + 49} posted`)
    }
    await context.addCookies([{ name: currentAdmin.split('=')[0]!, value: currentAdmin.split('=')[1]!, url: `http://127.0.0.1:${site.port}` }])
    const panel = await context.newPage()
    const before = asked.length
    await panel.goto(`http://127.0.0.1:${site.port}/panel/#/shoutbox/shouts`)
    const rows = panel.locator('ul.items > li')
    await eventually(() => rows.count(), count => count === 50)
    t.equal(await rows.count(), 50, 'the newest 50')
    await panel.getByRole('button', { name: 'Older shouts' }).click()
    await eventually(() => rows.count(), count => count === 100)
    t.equal(await rows.count(), 100, '50 more')
    t.equal((await http(current, 'POST', '/api/panel/shoutbox', { body: { message: 'Posted from another panel' }, cookie: currentAdmin })).status, 200)
    await rows.first().getByText('Posted from another panel').waitFor()
    t.equal(await rows.count(), 101, 'a post elsewhere arrives on top; nothing is let go')
    t.notOk(asked.slice(before).some(path => path.startsWith('/api/shoutbox/list')), 'the Shouts page never reads the list')

    await panel.goto(`http://127.0.0.1:${site.port}/panel/#/shoutbox/settings`)
    const warning = panel.locator('#max-shouts-warning')
    await warning.waitFor()
    t.match(await warning.innerText(), /Over 1,000 shouts/)
    await panel.getByLabel('Shouts shown in the list').fill('50')
    await warning.waitFor({ state: 'hidden' })
    await panel.getByRole('button', { name: 'Save settings' }).click()
    await panel.getByText('Settings saved.').waitFor()
    t.equal((await http(current, 'GET', '/panel/api/shoutbox/config', { cookie: currentAdmin })).body!.maxShouts, 50, 'stored')
    // A fresh page shows it. Once in a CI run (Node 24, embedded, the machine loaded) a
    // reloaded page never filled the field, with no failed request; not seen alone. So a
    // bounded retry, not yet explained: at most three reloads, 20 s each.
    let shown = false
    for (let reloads = 0; !shown && reloads < 3; reloads++) {
      await panel.reload()
      shown = await panel.waitForFunction(() => (document.getElementById('max-shouts') as HTMLInputElement | null)?.value === '50', undefined, { timeout: 20_000 })
        .then(() => true, () => false)
    }
    t.ok(shown, 'the settings page shows the value stored')
    t.equal(await warning.isHidden(), true, 'no warning once maxShouts is set')
  })

  t.test('no console errors, no page errors (the restart\'s cut streams aside)', async t => {
    t.ok(cutStreams.length <= 1, 'at most the one stream open at the restart was cut')
    t.same(problems.filter(problem => !cutStreams.includes(problem)), [])
  })
  t.equal(asked.filter(path => path.startsWith('/api/shoutbox/list')).length, 0, 'the widget never reads the unbounded list')
}
