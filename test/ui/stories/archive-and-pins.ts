import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { ADMIN } from '../../helpers/app.js'
import { http, serverStorage, startServer } from '../../helpers/server.js'
import { ensurePages, watchPages } from '../../helpers/browser.js'


/** A shout that would run script if any page rendered it as HTML. */
const XSS = '<img src=x onerror="window.__xss=1"> <b>bold</b> markup'

const text = (i: number): string => i % 6 === 0 ? `Shout ${i}: the meet-up moves to Saturday` : `Shout ${i}: hello from the board`

/** CONTRACT §14 in a browser: the archive (search, pages), permalinks, and the widget's pinned shouts. */
/** The archive, permalinks and pinned shouts, in a real browser. */
export async function story (t: Test, browser: Browser): Promise<void> {
  await ensurePages('addon/shoutbox/ui/archive.js')
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: storage.env })
  t.equal((await http(server, 'POST', '/api/setup/finish', { body: ADMIN })).status, 200)
  const cookie = (await http(server, 'POST', '/api/auth/login', { body: { username: ADMIN.username, password: ADMIN.password } })).cookie!
  const publish = async (message: string): Promise<void> => {
    t.equal((await http(server, 'POST', '/api/panel/shoutbox', { body: { message }, cookie })).status, 200)
  }
  // Shout i has the id i + 1: the first is the one with markup, on the last page.
  await publish(XSS)
  for (let i = 1; i <= 24; i++) await publish(text(i))
  await publish('The newest shout: server maintenance tonight from 23:00, back by midnight.')
  const pin = (id: number, pinned = true) => http(server, 'PUT', `/api/panel/shoutbox/${id}/pin`, { body: { pinned }, cookie })

  const problems: string[] = []
  const context = async (width: number, height: number): Promise<BrowserContext> => {
    const created = await browser.newContext({ viewport: { width, height }, locale: 'en-US' })
    // Asked for: "who am I?" signed out (401, the account area and the widget ask it), the
    // permalink of a deleted shout gets the 404 it shows in words, a pin past maxPinned gets its 409.
    watchPages(created, problems, { expected: [401, 404, 409] })
    return created
  }
  // SHOUTBOX_SCREENSHOTS_DIR=docs/screenshots keeps them (that is how the README's are made); else they are thrown away.
  const keep = process.env.SHOUTBOX_SCREENSHOTS_DIR
  const shots = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'shoutbox-history-shots-'))
  if (keep === undefined) t.teardown(() => fs.rmSync(shots, { recursive: true, force: true }))
  else fs.mkdirSync(shots, { recursive: true })
  const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true })
  const page = await (await context(1280, 800)).newPage()
  const items = page.locator('ol.shoutbox-archive-list > li')

  await t.test('the archive: newest first, 20 a page, "Older shouts" and "Newer shouts"', async t => {
    await page.goto(`${server.url}/shouts`)
    await page.getByRole('heading', { name: 'Shouts', level: 1 }).waitFor()
    await items.first().getByText('The newest shout').waitFor()
    t.equal(await items.count(), 20)
    t.equal(await page.title(), 'Shouts · Our community')
    await shoot(page, 'archive-desktop')
    await page.getByRole('link', { name: 'Older shouts' }).click()
    await items.first().getByText(text(5)).waitFor()
    t.same(await items.locator('.text').allInnerTexts(), [...[5, 4, 3, 2, 1].map(text), XSS])
    t.equal(await page.getByRole('link', { name: 'Older shouts' }).count(), 0, 'the last page')
    await page.getByRole('link', { name: 'Newer shouts' }).click()
    await items.first().getByText('The newest shout').waitFor()
    t.equal(await page.getByRole('link', { name: 'Newer shouts' }).count(), 0, 'the first page')
  })

  await t.test('search the archive, follow a permalink, page back', async t => {
    await page.getByLabel('Search shouts').fill('meet-up')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.getByRole('heading', { name: 'Shouts with “meet-up”' }).waitFor()
    // The heading comes with the page, the results with the archive's answer a moment later.
    await items.first().getByText(text(24)).waitFor()
    t.same(await items.locator('.text').allInnerTexts(), [24, 18, 12, 6].map(text))
    t.equal(await page.getByLabel('Search shouts').inputValue(), 'meet-up', 'the box keeps the words')
    await shoot(page, 'archive-search-desktop')
    await items.first().getByRole('link').click()
    await page.waitForURL(/\/shouts\/25$/)
    await page.getByRole('heading', { name: 'Shout by admin' }).waitFor()
    await page.getByText('Shout 24: the meet-up moves to Saturday').waitFor()
    t.equal(await page.title(), 'Shout by admin · Our community')
    t.match(await page.locator('article time').innerText(), /\d{4}/, 'the full date')
    await shoot(page, 'permalink-desktop')
    await page.goBack()
    await page.getByRole('heading', { name: 'Shouts with “meet-up”' }).waitFor()
    await items.first().getByText(text(24)).waitFor()
    t.equal(await items.count(), 4, 'back on the search results')
    await items.first().getByRole('link').click()
    await page.getByRole('link', { name: 'All shouts' }).click()
    await page.getByRole('heading', { name: 'Shouts', level: 1 }).waitFor()
    t.equal(new URL(page.url()).pathname, '/shouts')
  })

  await t.test('markup in a shout is shown as text on the archive and its permalink', async t => {
    await page.goto(`${server.url}/shouts?q=bold`)
    await items.first().getByText(XSS).waitFor()
    await items.first().getByRole('link').click()
    await page.locator('article .text').getByText(XSS).waitFor()
    t.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined, 'no script ran')
    t.equal(await page.locator('img[src="x"], b').count(), 0, 'no element was made from it')
  })

  await t.test('a permalink to a shout that is gone says so', async t => {
    await http(server, 'DELETE', '/api/panel/shoutbox/4', { cookie })
    await page.goto(`${server.url}/shouts/4`)
    await page.getByText('This shout does not exist, or it was deleted.').waitFor()
    t.pass()
  })

  await t.test('the widget shows pinned shouts above the latest, live, and links to the archive and each permalink', async t => {
    const home = await (await context(1280, 800)).newPage()
    await home.goto(`${server.url}/`)
    await home.getByRole('heading', { name: 'Latest shouts' }).waitFor()
    const pinnedRegion = home.getByRole('region', { name: 'Pinned' })
    t.equal(await pinnedRegion.count(), 0, 'nothing pinned, no pinned box')
    t.equal((await pin(13)).status, 200)
    await pinnedRegion.getByText('Shout 12: the meet-up moves to Saturday').waitFor()
    t.equal((await pin(2)).status, 200)
    await pinnedRegion.getByText('Shout 1: hello from the board').waitFor()
    t.same(await pinnedRegion.locator('.text').allInnerTexts(), ['Shout 1: hello from the board', 'Shout 12: the meet-up moves to Saturday'], 'newest pin first')
    const widget = home.locator('.shoutbox-widget')
    t.equal(await widget.locator('li', { hasText: 'The newest shout' }).count(), 1)
    await shoot(home, 'widget-pinned-desktop')
    await home.locator('.shoutbox-pinned').screenshot({ path: path.join(shots, 'widget-pinned-closeup.png') })
    await widget.locator('li', { hasText: 'The newest shout' }).getByRole('link').click()
    await home.getByRole('heading', { name: 'Shout by admin' }).waitFor()
    t.match(home.url(), /\/shouts\/\d+$/)
    await home.goBack()
    await widget.getByRole('link', { name: 'All shouts' }).click()
    await home.getByRole('heading', { name: 'Shouts', level: 1 }).waitFor()
    await home.goBack()
    t.equal((await pin(2, false)).status, 200)
    await pinnedRegion.getByText('Shout 1: hello from the board').waitFor({ state: 'detached' })
    t.pass('an unpin leaves the box at once')
  })

  await t.test('the panel: Pin and Unpin on the Shouts page; maxPinned and keepDays on the settings page', async t => {
    const admin = await context(1280, 800)
    await admin.addCookies([{ name: 'shoutbox_session', value: cookie.split('=')[1]!, url: server.url }])
    const panel = await admin.newPage()
    await panel.goto(`${server.url}/panel/#/shoutbox/shouts`)
    const item = panel.locator('ul.items li', { hasText: 'Shout 23: hello from the board' })
    await item.getByRole('button', { name: /^Pin/ }).click()
    await panel.getByText('Shout pinned.').waitFor()
    await item.getByText('Pinned', { exact: true }).waitFor()
    await shoot(panel, 'panel-pins-desktop')
    await item.getByRole('button', { name: /^Unpin/ }).click()
    await panel.getByText('Shout unpinned.').waitFor()
    await panel.locator('ul.items li', { hasText: 'Shout 22: hello from the board' }).getByRole('button', { name: /^Pin/ }).click()
    await panel.locator('ul.items li', { hasText: 'Shout 21: hello from the board' }).getByRole('button', { name: /^Pin/ }).click()
    await panel.locator('ul.items li', { hasText: 'Shout 20: hello from the board' }).getByRole('button', { name: /^Pin/ }).click()
    await panel.getByText('At most 3 shouts can be pinned: unpin one first.').waitFor()

    await panel.goto(`${server.url}/panel/#/shoutbox/settings`)
    await panel.waitForFunction(() => (document.getElementById('max-length') as HTMLInputElement | null)?.value !== '')
    t.equal(await panel.getByLabel('Most shouts pinned at once').inputValue(), '3')
    t.equal(await panel.getByLabel('Keep shouts for (days)').inputValue(), '')
    await panel.getByLabel('Keep shouts for (days)').fill('365')
    // The reactions members may use: the site's own set, emoji separated by spaces.
    t.equal(await panel.getByLabel('Reactions', { exact: true }).inputValue(), '👍 ❤️ 😂 😮 😢 🎉')
    await panel.getByLabel('Reactions', { exact: true }).fill('👍  🔥 🇹🇷 ')
    await panel.getByRole('button', { name: 'Save settings' }).click()
    await panel.getByText('Settings saved.').waitFor()
    await shoot(panel, 'panel-settings-desktop')
    t.match((await http(server, 'GET', '/api/panel/shoutbox/config', { cookie })).body, { maxPinned: 3, keepDays: 365, reactions: ['👍', '🔥', '🇹🇷'] })
  })

  await t.test('by keyboard alone: Tab reaches Unpin and Pin, each with a visible focus; Enter and Space press them', async t => {
    const admin = await context(1280, 800)
    await admin.addCookies([{ name: 'shoutbox_session', value: cookie.split('=')[1]!, url: server.url }])
    const panel = await admin.newPage()
    await panel.goto(`${server.url}/panel/#/shoutbox/shouts`)
    await panel.locator('ul.items li', { hasText: 'Shout 19: hello from the board' }).waitFor()
    /** Presses Tab until the focus is on the button named `name`; what the focus looks like there. */
    const tabTo = async (name: string): Promise<string> => {
      for (let presses = 0; presses < 300; presses++) {
        await panel.keyboard.press('Tab')
        if (await panel.evaluate(() => document.activeElement?.getAttribute('aria-label')) === name) {
          return panel.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)
        }
      }
      throw new Error(`Tab never reached ${name}`)
    }
    t.not(await tabTo('Unpin: Shout 21: hello from the board'), 'none', 'the focus is drawn')
    await panel.keyboard.press('Enter')
    await panel.getByText('Shout unpinned.').waitFor()
    await panel.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Pin: Shout 21: hello from the board')
    t.pass('the focus stays on the shout, on the button that pins it again')
    t.not(await tabTo('Pin: Shout 19: hello from the board'), 'none')
    await panel.keyboard.press('Space')
    await panel.getByText('Shout pinned.').waitFor()
    await panel.locator('ul.items li', { hasText: 'Shout 19: hello from the board' }).getByText('Pinned', { exact: true }).waitFor()
    const pinned = (await http(server, 'GET', '/api/shoutbox/pinned')).body!.shouts as Array<{ message: string }>
    t.ok(pinned.some(shout => shout.message === 'Shout 19: hello from the board'), 'pinned')
    t.notOk(pinned.some(shout => shout.message === 'Shout 21: hello from the board'), 'and the other unpinned')
  })

  await t.test('on a phone: no sideways scrolling', async t => {
    const phone = await (await context(375, 740)).newPage()
    for (const [url, name, ready] of [
      ['/shouts', 'archive-phone', 'The newest shout'],
      ['/shouts/25', 'permalink-phone', 'Shout 24: the meet-up moves to Saturday'],
      ['/', 'widget-pinned-phone', 'Shout 12: the meet-up moves to Saturday']
    ] as const) {
      await phone.goto(server.url + url)
      await phone.getByText(ready).first().waitFor()
      t.ok(await phone.evaluate(() => document.documentElement.scrollWidth) <= 375, `${url} fits 375 px`)
      await shoot(phone, name)
    }
  })

  await t.test('no console errors on any page', async t => {
    t.same(problems, [])
  })
}
