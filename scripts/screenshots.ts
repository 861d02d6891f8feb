/**
 * `npm run screenshots`: every page at desktop (1280 px) and phone (360 px) width, into
 * docs/screenshots/. Starts its own host on a fresh embedded database.
 * `-- --only home-composer,sign-in` takes only the shots named.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Page } from 'playwright-core'
import { buildUi } from './build-ui.js'

const root = fileURLToPath(new URL('../', import.meta.url))
const out = path.join(root, 'docs/screenshots')
const port = 9471
const base = `http://127.0.0.1:${port}`
const SCREENSHOTS_SETUP_TOKEN = 'screenshots-setup-token'
const onlyAt = process.argv.indexOf('--only')
const only = onlyAt === -1 ? undefined : new Set(process.argv[onlyAt + 1]?.split(','))
const wanted = (name: string): boolean => only === undefined || only.has(name)
await buildUi()
const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'shoutbox-shots-'))
const server = spawn(process.execPath, ['--import', 'tsx', 'src/host/server.ts', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir],
  { cwd: root, stdio: 'ignore', env: { ...process.env, LOG_LEVEL: 'warn', DATABASE_URL: '', SETUP_TOKEN: SCREENSHOTS_SETUP_TOKEN } })
try {
  for (let i = 0; i < 300; i++) {
    if (await fetch(`${base}/api/health`).then(r => r.ok, () => false)) break
    await new Promise(resolve => setTimeout(resolve, 200))
  }
  const json = (method: string, url: string, body: unknown, cookie = '') => fetch(base + url, {
    method, headers: { 'content-type': 'application/json', cookie }, body: JSON.stringify(body)
  })
  const setup = await json('POST', '/api/setup/finish', { username: 'admin', email: 'admin@example.org', password: 'a long password', setupToken: SCREENSHOTS_SETUP_TOKEN })
  const cookie = setup.headers.getSetCookie()[0]!.split(';')[0]!
  await json('POST', '/api/panel/roles', { name: 'Moderators', permissions: ['panel.access', 'addon.shoutbox.manage.shoutbox'] }, cookie)
  await json('POST', '/api/panel/users', { username: 'ayse', email: 'ayse@example.org', password: 'a long password', roleId: 3 }, cookie)
  await json('POST', '/api/panel/users', { username: 'mehmet', email: 'mehmet@example.org', password: 'a long password', roleId: 3 }, cookie)
  await json('PUT', '/api/panel/users/3', { disabled: true }, cookie)
  for (const message of ['Welcome to the new site! Say hello in the forum.', 'The meet-up moves to Saturday, 14:00.', 'Server maintenance tonight from 23:00 — back by midnight.']) {
    await json('POST', '/api/panel/shoutbox', { message }, cookie)
  }
  // Members talking in the widget (CONTRACT §12).
  await json('PUT', '/api/panel/settings', { signUp: true }, cookie)
  await json('PUT', '/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0 }, cookie)
  const signedUp = await json('POST', '/api/auth/signup', { username: 'deniz', email: 'deniz@example.org', password: 'a long password' })
  const member = signedUp.headers.getSetCookie()[0]!.split(';')[0]!
  for (const message of ['Count me in for Saturday! Directions: https://example.org/meetup', '@ayse thanks for the warm welcome!']) {
    await json('POST', '/api/shoutbox', { message }, member)
  }
  // Moderation (CONTRACT §13): two mutes for the Mutes page, made after the member's shouts.
  const loud = (await (await json('POST', '/api/auth/signup', { username: 'loud_larry', email: 'larry@example.org', password: 'a long password' })).json() as { user: { id: number } }).user.id
  await json('POST', '/api/panel/shoutbox/mutes', { userId: loud, minutes: 1440, reason: 'Posting the same link over and over' }, cookie)
  const quiet = (await (await json('POST', '/api/auth/signup', { username: 'spam_sam', email: 'sam@example.org', password: 'a long password' })).json() as { user: { id: number } }).user.id
  await json('POST', '/api/panel/shoutbox/mutes', { userId: quiet, minutes: null }, cookie)
  await fs.mkdir(out, { recursive: true })
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] })
  const shots: Array<[string, string, (page: Page) => Promise<void>]> = [
    ['home', '/', async page => { await page.getByText('Server maintenance').waitFor() }],
    ['shouts', '/panel/#/shoutbox/shouts', async page => { await page.getByText('Server maintenance').waitFor() }],
    ['settings', '/panel/#/shoutbox/settings', async page => { await page.getByLabel('Longest message (characters)').waitFor() }],
    ['activity', '/panel/#/activity', async page => { await page.getByText('admin posted a shout').first().waitFor() }],
    ['roles', '/panel/#/roles', async page => { await page.getByRole('heading', { name: 'Moderators' }).waitFor() }],
    ['users', '/panel/#/users', async page => { await page.getByText('mehmet@example.org').waitFor() }],
    ['addons', '/panel/#/addons', async page => { await page.getByText('Shoutbox 0.1.0').waitFor() }],
    ['password', '/panel/#/password', async page => { await page.getByLabel('Current password').waitFor() }],
    ['site-settings', '/panel/#/settings', async page => { await page.getByLabel('Role of new accounts').waitFor() }],
    ['mutes', '/panel/#/shoutbox/mutes', async page => { await page.getByText('loud_larry').waitFor() }],
    ['overview', '/panel/#/overview', async page => { await page.locator('svg.chart rect').last().waitFor() }],
    ['api-docs', '/docs/api', async page => { await page.locator('section.op').first().waitFor() }]
  ]
  for (const [width, height, suffix] of [[1280, 800, 'desktop'], [360, 740, 'phone']] as const) {
    const context = await browser.newContext({ viewport: { width, height } })
    await context.addCookies([{ name: cookie.split('=')[0]!, value: cookie.split('=')[1]!, url: base }])
    const page = await context.newPage()
    for (const [name, url, ready] of shots) {
      if (!wanted(name)) continue
      await page.goto(base + url)
      await ready(page)
      // The API reference is long: its first screen shows what it is.
      await page.screenshot({ path: path.join(out, `${name}-${suffix}.png`), fullPage: name !== 'api-docs' })
    }
    if (wanted('sign-in')) {
      const anonymous = await (await browser.newContext({ viewport: { width, height } })).newPage()
      await anonymous.goto(`${base}/panel/`)
      await anonymous.getByRole('heading', { name: 'Sign in' }).waitFor()
      await anonymous.screenshot({ path: path.join(out, `sign-in-${suffix}.png`) })
    }
    if (wanted('home-dark')) {
      // The member's page in the dark theme, as a device set to dark shows it.
      const dark = await browser.newContext({ viewport: { width, height }, colorScheme: 'dark' })
      await dark.addCookies([{ name: 'shoutbox_session', value: member.split('=')[1]!, url: base }])
      const home = await dark.newPage()
      await home.goto(`${base}/`)
      await home.locator('.mention').waitFor()
      await home.screenshot({ path: path.join(out, `home-dark-${suffix}.png`), fullPage: true })
    }
    if (wanted('home-composer')) {
      const signedIn = await browser.newContext({ viewport: { width, height } })
      await signedIn.addCookies([{ name: 'shoutbox_session', value: member.split('=')[1]!, url: base }])
      const home = await signedIn.newPage()
      await home.goto(`${base}/`)
      await home.locator('.mention').waitFor()
      await home.getByRole('textbox', { name: 'Your shout' }).fill('See you all there')
      await home.screenshot({ path: path.join(out, `home-composer-${suffix}.png`), fullPage: true })
    }
    if (wanted('moderation-widget')) {
      // The admin (a moderator) on the home page, the mute form of deniz's shout open.
      const home = await (await context.browser()!.newContext({ viewport: { width, height } })).newPage()
      await home.context().addCookies([{ name: cookie.split('=')[0]!, value: cookie.split('=')[1]!, url: base }])
      await home.goto(`${base}/`)
      const item = home.locator('.shoutbox-widget li', { hasText: 'thanks for the warm welcome' })
      await item.getByRole('button', { name: /^Mute/ }).click()
      await item.getByLabel('Reason (optional, the member sees it)').fill('Please keep it friendly')
      await home.locator('.shoutbox-widget').screenshot({ path: path.join(out, `moderation-widget-${suffix}.png`) })
    }
  }
  await browser.close()
  process.stdout.write(`screenshots in ${path.relative(root, out)}/\n`)
} finally {
  server.kill('SIGTERM')
  await fs.rm(dataDir, { recursive: true, force: true }).catch(() => {})
}
