import type { Test } from 'tap'
import type { Browser } from 'playwright-core'
import { ADMIN } from '../../helpers/app.js'
import { ensurePages, watchPages } from '../../helpers/browser.js'
import { http, serverStorage, startServer } from '../../helpers/server.js'
import { axeViolations } from './accessibility.js'

/**
 * Bridges in a real browser: the panel's Incoming hooks page adds a hook and shows its URL
 * once; a post through it shows on the board as "via" the hook; the Webhooks form offers
 * the Slack and Discord formats and a room. Each page passes axe's WCAG A and AA rules.
 */
export async function story (t: Test, browser: Browser): Promise<void> {
  await ensurePages('addon/shoutbox/ui/widget.js')
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: storage.env })
  const admin = (await http(server, 'POST', '/api/setup/finish', { body: ADMIN })).cookie!
  const problems: string[] = []
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' })
  watchPages(context, problems, { expected: [401] })
  await context.addCookies([{ name: admin.split('=')[0]!, value: admin.split('=')[1]!, url: server.url }])
  const page = await context.newPage()
  let hookUrl = ''

  await t.test('the Incoming hooks page adds a hook for a room and shows its URL once', async t => {
    await page.goto(`${server.url}/panel/#/shoutbox/incoming`)
    await page.getByRole('heading', { name: 'Incoming hooks', level: 1 }).waitFor()
    await page.getByLabel('Room').selectOption('general')
    await page.getByLabel('Name').fill('Discord #lobby')
    await page.getByRole('button', { name: 'Add an incoming hook' }).click()
    await page.getByText('Its address, shown this once:').waitFor()
    hookUrl = await page.locator('code.secret-value').innerText()
    t.match(hookUrl, /\/hooks\/incoming\/1\/[A-Za-z0-9_-]{43}$/)
    await page.getByText('posts into general').waitFor()
    t.same(await axeViolations(page), [], 'no violation')
    await page.screenshot({ path: '/tmp/shoutbox-bridges-incoming.png', fullPage: true })
  })

  await t.test('a post through it shows on the board, marked with the hook', async t => {
    const posted = await fetch(hookUrl.replace(/^https?:\/\/[^/]+/, server.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ content: 'Hello from Discord', username: 'grace' }) })
    t.equal(posted.status, 200)
    await page.goto(`${server.url}/`)
    const item = page.locator('.shoutbox-widget li', { has: page.locator('p.text', { hasText: 'Hello from Discord' }) })
    await item.getByText('via Discord #lobby').waitFor()
    t.equal(await item.locator('.author').first().innerText(), 'grace')
    t.same(await axeViolations(page), [], 'no violation')
    await page.screenshot({ path: '/tmp/shoutbox-bridges-widget.png' })
  })

  await t.test('the Webhooks form offers the formats and a room; the list says which', async t => {
    await page.goto(`${server.url}/panel/#/webhooks`)
    await page.getByLabel('URL').fill('https://discord.example.org/api/webhooks/1/abc')
    await page.getByLabel('Format').selectOption('discord')
    await page.getByLabel('Only the room').fill('general')
    await page.getByRole('button', { name: 'Add a webhook' }).click()
    await page.getByText('Discord channel · room general only · shout.created').waitFor()
    t.same(await axeViolations(page), [], 'no violation')
    await page.screenshot({ path: '/tmp/shoutbox-bridges-webhooks.png', fullPage: true })
    await page.getByRole('link', { name: 'Incoming hooks: other tools posting into a room' }).click()
    await page.getByRole('heading', { name: 'Incoming hooks', level: 1 }).waitFor()
    t.pass('each page links to the other')
  })

  t.same(problems, [], 'no page error, no failed request')
}
