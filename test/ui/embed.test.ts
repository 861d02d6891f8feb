/**
 * The embed (CONTRACT §20): examples/embed-demo.mjs, a page of another site, shows a room
 * of the board live through `embed.js`; the sites in EMBED_ORIGINS may read the public
 * endpoints and the stream, never with credentials; any other origin gets no CORS header.
 * The CORS headers and the script are the same on either database: this runs on the
 * embedded one.
 */
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import t from 'tap'
import { createDemoSite } from '../../examples/embed-demo.mjs'
import { ADMIN } from '../helpers/app.js'
import { NO_BROWSER, ensurePages, launchBrowser, watchPages } from '../helpers/browser.js'
import { DB_KIND } from '../helpers/database.js'
import { http as call, serverStorage, startServer } from '../helpers/server.js'
import { axeViolations } from './stories/accessibility.js'


t.test('a room of the board on another site, live; CORS for the listed sites only, never with credentials', {
  skip: NO_BROWSER || (DB_KIND === 'postgres' && 'the same on either database: checked on the embedded run')
}, async t => {
  await ensurePages('addon/shoutbox/ui/embed.js')
  // The other site is `localhost`, the board `127.0.0.1`: two sites, as a blog and its board would be.
  const demo = http.createServer()
  await new Promise<void>(resolve => demo.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise(resolve => { demo.closeAllConnections(); demo.close(resolve) }))
  const site = `http://localhost:${(demo.address() as AddressInfo).port}`
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: { ...storage.env, EMBED_ORIGINS: `https://blog.example.org, ${site}` } })
  demo.on('request', createDemoSite({ board: server.url }).listeners('request')[0] as http.RequestListener)

  const admin = (await call(server, 'POST', '/api/setup/finish', { body: ADMIN })).cookie!
  await call(server, 'PUT', '/api/panel/shoutbox/config', { body: { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 }, cookie: admin })
  await call(server, 'POST', '/api/panel/shoutbox/rooms', { body: { slug: 'staff', name: 'Staff', read: 'panel.access' }, cookie: admin })
  await call(server, 'POST', '/api/panel/shoutbox/rooms', { body: { slug: 'seeds', name: 'Seed swap', read: 'everyone' }, cookie: admin })
  for (const message of ['Frost tonight: cover the seedlings', 'Who has spare garlic?']) {
    t.equal((await call(server, 'POST', '/api/shoutbox', { body: { message }, cookie: admin })).status, 200)
  }
  await call(server, 'POST', '/api/shoutbox/rooms/seeds/shouts', { body: { message: 'Tomato seeds to give away' }, cookie: admin })
  await call(server, 'POST', '/api/shoutbox/rooms/staff/shouts', { body: { message: 'Staff only: the key is under the pot' }, cookie: admin })

  const browser = await launchBrowser(t)
  const problems: string[] = []
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 }, locale: 'en-US' })
  watchPages(context, problems)
  const page = await context.newPage()
  const embed = page.locator('.shoutbox-embed')

  await t.test('the other site shows the room\'s latest shouts, with a link to join on the board', async t => {
    await page.goto(`${site}/`)
    await embed.getByText('Frost tonight: cover the seedlings').waitFor()
    t.equal(await embed.getByRole('heading', { name: 'Shouts in General' }).count(), 1)
    t.equal(await embed.getByRole('link', { name: 'Join the conversation' }).getAttribute('href'), `${server.url}/`)
    t.equal(await embed.locator('a.permalink').first().getAttribute('href'), `${server.url}/shouts/2`, 'a shout\'s time leads to its page on the board')
    t.equal(await embed.getByText('Tomato seeds to give away').count(), 0, 'one room only')
    t.ok(await page.evaluate(() => document.querySelector('.shoutbox-embed')?.shadowRoot !== null), 'in a shadow root')
    t.equal(await page.evaluate(() => document.querySelectorAll('.shoutbox-list').length), 0, 'nothing of it in the page\'s own document')
    t.same(await axeViolations(page), [], 'no accessibility violation')
    const shots = process.env.SHOUTBOX_SCREENSHOTS_DIR
    if (shots !== undefined) {
      fs.mkdirSync(shots, { recursive: true })
      await page.screenshot({ path: path.join(shots, 'embed-demo.png'), fullPage: true })
    }
  })

  await t.test('live: a shout posted, edited and deleted on the board shows on the other site without a reload', async t => {
    const posted = await call(server, 'POST', '/api/shoutbox', { body: { message: 'Plant the garlic this weekend' }, cookie: admin })
    await embed.getByText('Plant the garlic this weekend').waitFor()
    const id = (posted.body!.shout as { id: number }).id
    await call(server, 'PUT', `/api/shoutbox/${id}`, { body: { message: 'Plant the garlic next weekend' }, cookie: admin })
    await embed.getByText('Plant the garlic next weekend').waitFor()
    await call(server, 'DELETE', `/api/panel/shoutbox/${id}`, { cookie: admin })
    await embed.getByText('Plant the garlic next weekend').waitFor({ state: 'detached' })
    t.pass('each change arrived')
  })

  await t.test('data-room picks the room; a room a visitor may not read is not shown, nor named', async t => {
    await page.goto(`${site}/?room=seeds`)
    await embed.getByText('Tomato seeds to give away').waitFor()
    await embed.getByRole('heading', { name: 'Shouts in Seed swap' }).waitFor()
    t.equal(await embed.getByRole('link', { name: 'Join the conversation' }).getAttribute('href'), `${server.url}/?room=seeds`)
    await page.goto(`${site}/?room=staff`)
    await embed.getByText('This room cannot be shown here.').waitFor()
    t.equal(await embed.getByText('Staff only').count(), 0)
  })

  await t.test('a site not in EMBED_ORIGINS: the embed says so, and links to the board (not "Loading…" for ever)', async t => {
    const other = http.createServer(createDemoSite({ board: server.url }).listeners('request')[0] as http.RequestListener)
    await new Promise<void>(resolve => other.listen(0, '127.0.0.1', resolve))
    t.teardown(() => new Promise(resolve => { other.closeAllConnections(); other.close(resolve) }))
    const unlisted = `http://localhost:${(other.address() as AddressInfo).port}`
    // Its own window: the browser logs the CORS refusals, which are this case's point.
    const elsewhere = await (await browser.newContext({ locale: 'en-US' })).newPage()
    t.teardown(() => elsewhere.context().close())
    await elsewhere.goto(`${unlisted}/`)
    const shown = elsewhere.locator('.shoutbox-embed')
    await shown.getByText(`This site (${unlisted}) is not allowed to show this board: the board's owner adds it to EMBED_ORIGINS.`).waitFor()
    t.equal(await shown.getByRole('link', { name: 'Open the board' }).getAttribute('href'), `${server.url}/`)
    t.equal(await shown.getByText('Loading the shouts…').count(), 0, 'no longer loading')
  })

  await t.test('from the other site\'s page: a plain read works; one with credentials is refused, and so is any write', async t => {
    await page.goto(`${site}/`)
    const attempts: Array<[string, string, RequestInit]> = [
      ['plain', '/api/shoutbox/latest', {}],
      ['withCredentials', '/api/shoutbox/latest', { credentials: 'include' }],
      ['me', '/api/auth/me', {}],
      ['post', '/api/shoutbox', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":"from the blog"}' }]
    ]
    const outcome: Record<string, string> = {}
    for (const [name, url, init] of attempts) {
      outcome[name] = await page.evaluate(async ([url, init]) => fetch(url, init).then(r => `read ${r.status}`, () => 'refused'), [server.url + url, init] as const)
    }
    t.same(outcome, { plain: 'read 200', withCredentials: 'refused', me: 'refused', post: 'refused' })
    const latest = await call(server, 'GET', '/api/shoutbox/latest')
    t.notOk(JSON.stringify(latest.body).includes('from the blog'), 'nothing was posted')
  })

  await t.test('the headers, as any client sees them', async t => {
    const get = (url: string, headers: Record<string, string>) => fetch(server.url + url, { headers })
    const listed = await get('/api/shoutbox/latest', { origin: site })
    t.equal(listed.headers.get('access-control-allow-origin'), site, 'a listed site may read a public endpoint')
    t.equal(listed.headers.get('access-control-allow-credentials'), null, 'never with credentials')
    t.match(listed.headers.get('vary'), /Origin/)
    t.equal((await get('/api/shoutbox/latest', { origin: 'https://blog.example.org' })).headers.get('access-control-allow-origin'), 'https://blog.example.org', 'each listed site')
    for (const origin of ['https://evil.example', 'null', `${site}.evil.example`, 'http://localhost']) {
      t.equal((await get('/api/shoutbox/latest', { origin })).headers.get('access-control-allow-origin'), null, `no CORS header for ${origin}`)
    }
    const rooms = await get('/api/shoutbox/rooms', { origin: site })
    t.equal(rooms.headers.get('access-control-allow-origin'), site)
    t.same(rooms.headers.get('vary')?.split(/,\s*/).sort(), ['Cookie', 'Origin'], 'an answer that depends on who asks varies on both')
    for (const url of ['/api/auth/me', '/api/panel/users', '/api/users/me/export', '/api/notifications']) {
      t.equal((await get(url, { origin: site })).headers.get('access-control-allow-origin'), null, `${url} is not for other sites`)
    }
    // The stream's head, from an event stream the server holds open.
    const controller = new AbortController()
    const stream = await fetch(`${server.url}/api/shoutbox/stream`, { headers: { origin: site }, signal: controller.signal })
    t.equal(stream.headers.get('content-type'), 'text/event-stream; charset=utf-8')
    t.equal(stream.headers.get('access-control-allow-origin'), site, 'the stream too')
    controller.abort()
    // A write from a listed site is still another site's: refused before it is read.
    const write = await fetch(`${server.url}/api/shoutbox`, {
      method: 'POST', headers: { origin: site, cookie: admin, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'cross-site' })
    })
    t.same([write.status, await write.json()], [403, { result: 'error', error: 'INVALID_ORIGIN' }])
    const script = await fetch(`${server.url}/embed.js`)
    t.match(script.headers.get('content-type'), /^text\/javascript/)
    t.equal(script.headers.get('cross-origin-resource-policy'), 'cross-origin', 'any page may load it')
  })

  t.same(problems.filter(problem => !/CORS|Failed to load resource|net::ERR_FAILED/.test(problem)), [], 'no script error on the other site\'s page')
})
