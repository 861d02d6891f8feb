import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'
import type { Browser, Page } from 'playwright-core'
import { ADMIN } from '../../helpers/app.js'
import { ensurePages, watchPages } from '../../helpers/browser.js'
import { http, serverStorage, startServer } from '../../helpers/server.js'
import { axeViolations } from './accessibility.js'
import hostDe from '../../../src/host/lang/de.json' with { type: 'json' }
import hostAr from '../../../src/host/lang/ar.json' with { type: 'json' }
import boardDe from '../../../lang/de.json' with { type: 'json' }
import boardAr from '../../../lang/ar.json' with { type: 'json' }

/**
 * A German and an Arabic browser (their locale set, nothing else) see every page in their
 * language: the site, the widget, the archive, a shout's page, the privacy page and the
 * panel. Arabic is drawn right to left, passes axe in the light and the dark theme, and
 * its screenshots at 360 and 1280 px are kept (SHOUTBOX_SCREENSHOTS_DIR, else a temporary
 * folder named in the output) to be looked at.
 */
export async function story (t: Test, browser: Browser): Promise<void> {
  await ensurePages('addon/shoutbox/ui/widget.js')
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: storage.env })
  const admin = (await http(server, 'POST', '/api/setup/finish', { body: ADMIN })).cookie!
  const call = async (method: string, url: string, body?: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const answer = await http(server, method, url, { body, cookie: admin })
    t.equal(answer.status, 200, `${method} ${url}`)
    return answer.body!
  }
  await call('POST', '/api/panel/shoutbox', { message: 'Server maintenance tonight from 23:00.' })
  const id = ((await call('POST', '/api/shoutbox', { message: 'مرحبا بالجميع! Hello everyone.' })) as { shout: { id: number } }).shout.id
  await call('PUT', '/api/panel/site-face', { accent: '#c2185b' })
  const shots = process.env.SHOUTBOX_SCREENSHOTS_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'shoutbox-ar-'))
  fs.mkdirSync(shots, { recursive: true })
  t.comment(`Arabic screenshots in ${shots}`)

  const problems: string[] = []
  const pages = [
    { name: 'home', url: '/', signedIn: false, ready: (page: Page, board: Record<string, string>) => page.locator('.shoutbox-widget').getByText(board['widget.title']!).first().waitFor() },
    { name: 'archive', url: '/shouts', signedIn: false, ready: (page: Page) => page.locator('.shoutbox-history li').first().waitFor() },
    { name: 'permalink', url: `/shouts/${id}`, signedIn: false, ready: (page: Page) => page.getByText('Hello everyone').first().waitFor() },
    { name: 'privacy', url: '/privacy', signedIn: false, ready: (page: Page) => page.locator('table.privacy').waitFor() },
    { name: 'panel', url: '/panel/', signedIn: true, ready: (page: Page, _board: Record<string, string>, host: Record<string, string>) => page.getByRole('heading', { name: host['ui.overview.title'] }).first().waitFor() }
  ]

  const visit = async (locale: string, colorScheme: 'light' | 'dark', width: number, signedIn: boolean): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width, height: 900 }, locale, colorScheme })
    watchPages(context, problems, { expected: [401] })
    if (signedIn) await context.addCookies([{ name: admin.split('=')[0]!, value: admin.split('=')[1]!, url: server.url }])
    return await context.newPage()
  }

  await t.test('a German browser: every page in German', async t => {
    for (const { name, url, signedIn, ready } of pages) {
      const page = await visit('de-DE', 'light', 1280, signedIn)
      await page.goto(server.url + url)
      await ready(page, boardDe, hostDe)
      t.same(await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir]), ['de', 'ltr'], `${name}: lang and dir`)
      const text = await page.evaluate(() => document.body.innerText)
      const english = ['Latest shouts', 'Sign in', 'Privacy', 'Your shout', 'All shouts', 'Search shouts', 'Overview', 'Sign out', 'What this site stores'].filter(words => text.includes(words))
      t.same(english, [], `${name}: no English left`)
      if (name === 'home') t.ok(text.includes(boardDe['widget.title']) && text.includes(hostDe['site.nav.privacy']), 'the widget and the header speak German')
      if (name === 'panel') t.ok(text.includes(hostDe['ui.activity.title']), 'the panel\'s menu in German')
      await page.context().close()
    }
  })

  await t.test('an Arabic browser: every page in Arabic, right to left, axe clean light and dark, 360 and 1280 px', async t => {
    for (const { name, url, signedIn, ready } of pages) {
      for (const [colorScheme, width] of [['light', 1280], ['dark', 1280], ['light', 360], ['dark', 360]] as const) {
        const page = await visit('ar', colorScheme, width, signedIn)
        await page.goto(server.url + url)
        await ready(page, boardAr, hostAr)
        t.same(await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir]), ['ar', 'rtl'], `${name}: lang and dir`)
        if (colorScheme === 'light' && width === 1280) {
          const text = await page.evaluate(() => document.body.innerText)
          const english = ['Latest shouts', 'Sign in', 'Privacy', 'Your shout', 'All shouts', 'Search shouts', 'Overview', 'Sign out'].filter(words => text.includes(words))
          t.same(english, [], `${name}: no English left`)
        }
        t.same(await axeViolations(page), [], `${name}, ${colorScheme}, ${width} px: no violation`)
        t.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= width, `${name}, ${width} px: no sideways scrolling`)
        await page.screenshot({ path: path.join(shots, `ar-${name}-${width}-${colorScheme}.png`), fullPage: true })
        await page.context().close()
      }
    }
    const page = await visit('ar', 'light', 1280, false)
    await page.goto(server.url + '/')
    await pages[0]!.ready(page, boardAr, hostAr)
    const [brand, nav] = await page.evaluate(() => ['.brand', 'a[href="/privacy"]'].map(selector => document.querySelector(selector)!.getBoundingClientRect().left))
    t.ok(brand! > nav!, 'mirrored: the brand at the right, the links to its left')
    await page.context().close()
  })
  t.same(problems, [], 'no page error, no unexpected answer')
}
