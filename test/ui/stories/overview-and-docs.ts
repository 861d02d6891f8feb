import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'
import type { Browser, BrowserContext } from 'playwright-core'
import { ADMIN } from '../../helpers/app.js'
import { http, serverStorage, startServer } from '../../helpers/server.js'
import { ensurePages } from '../../helpers/browser.js'

/** Issue 17 in a real browser: the API reference at /docs/api and the panel's Overview page, under the pages' CSP. */


/** /docs/api and the Overview page, in a real browser. */
export async function story (t: Test, browser: Browser): Promise<void> {
  await ensurePages('ui/docs/docs.js')
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: storage.env })
  const admin = (await http(server, 'POST', '/api/setup/finish', { body: ADMIN })).cookie!
  for (const message of ['one', 'two', 'three']) await http(server, 'POST', '/api/panel/shoutbox', { body: { message }, cookie: admin })
  await http(server, 'PUT', '/api/panel/settings', { body: { signUp: true }, cookie: admin })
  await http(server, 'POST', '/api/auth/signup', { body: { username: 'ayse', email: 'ayse@example.org', password: 'a long password' } })
  // Screenshots to look at; `npm run screenshots` makes the ones in docs/screenshots/.
  const shots = fs.mkdtempSync(path.join(os.tmpdir(), 'shoutbox-issue17-'))
  t.comment(`screenshots in ${shots}`)

  const problems: string[] = []
  const outside: string[] = []
  const context = async (width: number, height: number, locale = 'en-US'): Promise<BrowserContext> => {
    const created = await browser.newContext({ viewport: { width, height }, locale })
    await created.addCookies([{ name: admin.split('=')[0]!, value: admin.split('=')[1]!, url: server.url }])
    created.on('page', page => {
      // A CSP violation shows up as a console error.
      page.on('console', message => { if (message.type() === 'error') problems.push(`console: ${message.text()}`) })
      page.on('pageerror', error => problems.push(`page error: ${error.message}`))
      page.on('request', request => { if (!request.url().startsWith(server.url) && !request.url().startsWith('data:')) outside.push(request.url()) })
    })
    return created
  }

  await t.test('/docs/api draws every operation of the document, with its access class and error codes', async t => {
    const page = await (await context(1280, 800)).newPage()
    const response = await page.goto(`${server.url}/docs/api`)
    t.match(response?.headers()['content-security-policy'], /script-src 'self'/, 'served under the pages\' CSP')
    await page.locator('section.op').first().waitFor()
    t.notMatch(await page.locator('p.intro').innerText(), /`/, 'the intro shows no raw backticks')
    t.ok(await page.locator('p.intro code').count() > 0, 'its `names` are code')
    const spec = await (await fetch(`${server.url}/api/openapi.json`)).json() as { paths: Record<string, Record<string, unknown>> }
    const operations = Object.values(spec.paths).reduce((count, item) => count + Object.keys(item).length, 0)
    t.equal(await page.locator('section.op').count(), operations, 'one section per operation')
    const post = page.locator('section.op', { has: page.locator('.path', { hasText: /^\/api\/shoutbox$/ }) })
    t.equal(await post.locator('.badge').innerText(), 'LoggedInApi')
    t.match(await post.locator('table.errors').innerText(), /DUPLICATE_SHOUT/)
    t.match(await post.locator('pre').first().innerText(), /"shout"/, 'its example')
    t.ok(await page.locator('.path', { hasText: '/panel/api/shoutbox/config' }).count() > 0, 'panel paths as the panel calls them')
    await page.screenshot({ path: path.join(shots, 'api-docs-desktop.png') })
    const phone = await (await context(375, 740)).newPage()
    await phone.goto(`${server.url}/docs/api#get-api-shoutbox-list`)
    await phone.locator('section.op').first().waitFor()
    t.ok(await phone.evaluate(() => document.documentElement.scrollWidth) <= 375, 'no sideways scrolling on a phone')
    await phone.screenshot({ path: path.join(shots, 'api-docs-phone.png') })
  })

  await t.test('an address that names no panel page says "Page not found", not another page', async t => {
    const page = await (await context(1280, 800)).newPage()
    await page.goto(`${server.url}/panel/#/no-such-page`)
    await page.getByRole('heading', { name: 'Page not found' }).waitFor()
    t.equal(await page.getByRole('heading', { name: 'Overview' }).count(), 0, 'not Overview in its place')
    await page.getByRole('link', { name: 'Overview' }).last().click()
    await page.getByRole('heading', { name: 'Overview' }).waitFor()
    // At 1280 px every menu item keeps to one line ("My password" wrapped).
    t.same(await page.evaluate(() => [...document.querySelectorAll('nav.menu a')].filter(link => {
      const range = document.createRange()
      range.selectNodeContents(link)
      return new Set([...range.getClientRects()].map(rect => Math.round(rect.top))).size > 1
    }).map(link => link.textContent)), [], 'no menu item wraps')
    await page.goto(`${server.url}/panel/#/users`)
    await page.getByRole('heading', { name: 'Users', exact: true }).waitFor()
    await page.getByRole('link', { name: 'Export data of ayse' }).waitFor()
    t.equal(await page.getByRole('link', { name: 'Export data', exact: true }).count(), 0, 'each Export data link named for its user')
  })

  await t.test('the panel opens on Overview: members, live readers, shouts per day as an SVG chart', async t => {
    const page = await (await context(1280, 800)).newPage()
    await page.goto(`${server.url}/panel/`)
    await page.getByRole('heading', { name: 'Overview' }).waitFor()
    t.equal(await page.locator('nav.menu a').first().innerText(), 'Overview', 'the first page')
    await page.locator('svg.chart rect').last().waitFor()
    t.equal(await page.locator('svg.chart rect').count(), 30, 'a bar for each of 30 days')
    t.equal(await page.locator('svg.chart rect').last().locator('title').textContent().then(text => /: 3$/.test(text ?? '')), true, 'today: 3 shouts')
    await page.locator('#overview-members', { hasText: '1' }).waitFor()
    await page.locator('#overview-accounts', { hasText: /^\d+$/ }).waitFor()
    t.ok(Number(await page.locator('#overview-accounts').innerText()) >= 2, 'every person\'s account, the administrator\'s included, beside the member role\'s')
    t.equal(await page.locator('#overview-readers').innerText(), '0', 'no stream open while the panel looks')
    await page.screenshot({ path: path.join(shots, 'overview-desktop.png'), fullPage: true })

    const turkish = await (await context(375, 740, 'tr-TR')).newPage()
    await turkish.goto(`${server.url}/panel/`)
    await turkish.getByRole('heading', { name: 'Genel bakış' }).waitFor()
    await turkish.locator('figcaption', { hasText: 'Günlük duyuru sayısı, son 30 gün' }).waitFor()
    await turkish.getByText('Üye rolündekiler').waitFor()
    t.ok(await turkish.evaluate(() => document.documentElement.scrollWidth) <= 375, 'no sideways scrolling on a phone')
    await turkish.screenshot({ path: path.join(shots, 'overview-phone-tr.png'), fullPage: true })
  })

  await t.test('no console errors (a CSP violation would be one), nothing fetched from another site', async t => {
    t.same(problems, [])
    t.same(outside, [])
  })
}
