/**
 * Formatting and the widget's box (CONTRACT §25), in a real browser: hostile texts posted
 * as shouts are drawn as text on every page and in the embed (no script runs, no element
 * is made from them) while their formatting shows; the composer previews; a spoiler opens
 * by keyboard; the widget is a box of --shoutbox-height whose list scrolls and loads older
 * shouts on demand, so a home page with many shouts is no taller than the box and the
 * page's own content. The pages are the same on either database: this runs on the embedded one.
 */
import fs from 'node:fs'
import nodeHttp from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import type { BrowserContext, Page } from 'playwright-core'
import { createDemoSite } from '../../examples/embed-demo.mjs'
import { ADMIN } from '../helpers/app.js'
import { NO_BROWSER, ensurePages, launchBrowser, watchPages } from '../helpers/browser.js'
import { DB_KIND } from '../helpers/database.js'
import { http, serverStorage, startServer } from '../helpers/server.js'
import { WRITTEN } from '../helpers/written-texts.js'
import { axeViolations } from './stories/accessibility.js'

const PASSWORD = 'a long password'
/** Older shouts than the widget first shows (50), so it has two pages more to load. */
const FILLERS = 100

t.setTimeout(600_000)

/** What an attack would leave in a document (or a shadow root) had it been drawn as markup. */
const INJECTED = 'script:not([src]), img[src="x"], svg, b, i, [onerror], [onload], [onmouseover], a[href^="javascript:" i], a[href^="data:" i]'

interface Found { xss: unknown, injected: string[], strong: string[], code: string[], badLinks: string[] }

/** Opens every spoiler, then reads what an attack would have left, and the formatting drawn. */
async function inspect (page: Page, root = 'document'): Promise<Found> {
  return await page.evaluate(([selector, where]) => {
    const scope: ParentNode = where === 'document' ? document : document.querySelector(where)!.shadowRoot!
    for (const button of scope.querySelectorAll<HTMLButtonElement>('button.spoiler-toggle[aria-expanded="false"]')) button.click()
    // No helper functions in here: the page runs this as written, without the test's own helpers.
    return {
      xss: (window as unknown as { __xss?: unknown }).__xss,
      injected: [...scope.querySelectorAll(selector!)].map(element => element.outerHTML.slice(0, 80)),
      strong: [...scope.querySelectorAll('strong')].map(element => element.textContent ?? ''),
      code: [...scope.querySelectorAll('code')].map(element => element.textContent ?? ''),
      badLinks: [...scope.querySelectorAll<HTMLAnchorElement>('.text a, .review-text a')]
        .filter(link => !/^https?:/.test(link.getAttribute('href') ?? '') || !['nofollow', 'ugc', 'noopener'].every(word => link.relList.contains(word)))
        .map(link => link.outerHTML)
    }
  }, [INJECTED, root] as const)
}

t.test('formatting, hostile texts and the widget\'s box, in a real browser', {
  skip: NO_BROWSER || (DB_KIND === 'postgres' && 'the pages do not depend on the database: checked on the embedded run')
}, async t => {
  await ensurePages('addon/shoutbox/ui/widget.js')
  // Another site for the embed: `localhost`, the board `127.0.0.1`.
  const demo = nodeHttp.createServer()
  await new Promise<void>(resolve => demo.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise(resolve => { demo.closeAllConnections(); demo.close(resolve) }))
  const site = `http://localhost:${(demo.address() as AddressInfo).port}`
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: { ...storage.env, EMBED_ORIGINS: site } })
  demo.on('request', createDemoSite({ board: server.url }).listeners('request')[0] as nodeHttp.RequestListener)

  const admin = (await http(server, 'POST', '/api/setup/finish', { body: ADMIN })).cookie!
  const call = async (method: string, url: string, body?: unknown, cookie = admin): Promise<Record<string, unknown>> => {
    const answer = await http(server, method, url, { body, cookie })
    t.equal(answer.status, 200, `${method} ${url}`)
    return answer.body!
  }
  await call('PUT', '/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 })
  const { roles } = await call('GET', '/api/panel/roles') as { roles: Array<{ id: number, name: string }> }
  await call('POST', '/api/panel/users', { username: 'ayse', email: 'ayse@example.org', password: PASSWORD, roleId: roles.find(role => role.name === 'member')!.id })
  const ayse = (await http(server, 'POST', '/api/auth/login', { body: { username: 'ayse', password: PASSWORD } })).cookie!
  for (let i = 1; i <= FILLERS; i++) await call('POST', '/api/shoutbox', { message: `Older shout number ${i}` })
  // The hostile texts last, so every page's first screen holds them; from the panel, so the activity feed quotes them.
  const ids: number[] = []
  for (const message of WRITTEN) {
    await call('POST', '/panel/api/shoutbox', { message })
    ids.push(((await call('GET', '/api/shoutbox/list')).shouts as Array<{ id: number, message: string }>).find(shout => shout.message === message)!.id)
  }
  const spoiled = ids[WRITTEN.indexOf('||<svg onload="window.__xss = 1">||')]!
  // A reply quotes the spoiler (its first words, hidden), and a held shout waits in the review queue.
  await call('POST', '/api/shoutbox', { message: 'So **that** is what it was', replyTo: spoiled }, ayse)
  await call('POST', '/api/panel/shoutbox/words', { pattern: 'holdme', action: 'hold' })
  await call('POST', '/api/shoutbox', { message: 'holdme **<img src=x onerror="window.__xss = 1">** ||<svg onload="window.__xss = 1">||' }, ayse)

  const browser = await launchBrowser(t)
  const problems: string[] = []
  const keep = process.env.SHOUTBOX_SCREENSHOTS_DIR
  const shots = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'shoutbox-format-shots-'))
  if (keep === undefined) t.teardown(() => fs.rmSync(shots, { recursive: true, force: true }))
  else fs.mkdirSync(shots, { recursive: true })
  const context = async (width: number, cookie?: string, colorScheme: 'light' | 'dark' = 'light', expected = [401]): Promise<BrowserContext> => {
    const created = await browser.newContext({ viewport: { width, height: 900 }, locale: 'en-US', colorScheme })
    // Asked for: "who am I?" signed out (401); the demo site has no /favicon.ico (404).
    watchPages(created, problems, { expected, dialogs: true })
    if (cookie !== undefined) await created.addCookies([{ name: cookie.split('=')[0]!, value: cookie.split('=')[1]!, url: server.url }])
    t.teardown(() => created.close())
    return created
  }
  const visitor = await context(1280)
  const staff = await context(1280, admin)

  await t.test('every page and the embed draw the texts as text, their formatting as elements', async t => {
    const UNCLOSED = 'unclosed **markers _here ~~and ||there `too'
    /** Each page: its name, who opens it, where, the text it waits for (a permalink: its shout), what its bold must hold, and a shadow root's host. */
    const pages: Array<[string, BrowserContext, string, string, string | undefined, string?]> = [
      ['the widget, a visitor', visitor, '/', UNCLOSED, '<b>bold markup</b>'],
      ['the widget, staff', staff, '/', UNCLOSED, '<b>bold markup</b>'],
      ['the archive', visitor, '/shouts', UNCLOSED, '<b>bold markup</b>'],
      ...ids.map((id, index): [string, BrowserContext, string, string, undefined] => [`the permalink of ${JSON.stringify(WRITTEN[index]!.slice(0, 30))}`, visitor, `/shouts/${id}`, '', undefined]),
      ['the panel\'s Shouts page', staff, '/panel/#/shoutbox/shouts', UNCLOSED, '<b>bold markup</b>'],
      ['the panel\'s Review page', staff, '/panel/#/shoutbox/review', 'holdme', '<img src=x onerror="window.__xss = 1">'],
      ['the panel\'s activity feed', staff, '/panel/#/activity', 'admin posted a shout', undefined],
      ['the embed on another site', await context(1280, undefined, 'light', [404]), '', UNCLOSED, '<b>bold markup</b>', '.shoutbox-embed']
    ]
    for (const [name, owner, url, ready, bold, shadow] of pages) {
      const before = problems.length
      const page = await owner.newPage()
      await page.goto(shadow === undefined ? server.url + url : `${site}/`)
      const scope = shadow === undefined ? page.locator('body') : page.locator(shadow)
      await (ready === '' ? scope.locator('article .text') : scope.getByText(ready).first()).waitFor()
      const found = await inspect(page, shadow ?? 'document')
      t.equal(found.xss, undefined, `${name}: no script ran`)
      t.same(found.injected, [], `${name}: no element made from a text`)
      t.same(found.badLinks, [], `${name}: every link in a text is http(s), nofollow ugc noopener`)
      if (bold !== undefined) t.ok(found.strong.includes(bold), `${name}: **${bold}** is bold text`)
      if (bold === '<b>bold markup</b>') t.ok(found.code.includes('<i>code</i>'), `${name}: \`<i>code</i>\` is code`)
      t.same(problems.slice(before), [], `${name}: no script error, no dialog`)
      if (!url.startsWith('/shouts/') || url === `/shouts/${ids[0]}`) {
        // With every spoiler open: the formatting passes axe, and is looked at.
        t.same(await axeViolations(page), [], `${name}: no accessibility violation`)
        await page.screenshot({ path: path.join(shots, `format-${name.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '').toLowerCase().slice(0, 40)}.png`), fullPage: true })
      }
      await page.close()
    }
    t.same(problems, [], 'no script error, no dialog')
  })

  await t.test('a spoiler: hidden, its button opens it by keyboard, a quote of it stays hidden', async t => {
    const page = await visitor.newPage()
    await page.goto(`${server.url}/shouts/${ids[0]}`)
    // The page draws the shout, then its live state: press only once it has settled, so
    // the key reaches the button that stays.
    await page.waitForLoadState('networkidle')
    const toggle = page.locator('article .text').getByRole('button', { name: 'Spoiler' })
    const hidden = page.locator('article .spoiler-text')
    t.equal(await toggle.getAttribute('aria-expanded'), 'false')
    t.notOk(await hidden.isVisible(), 'hidden at first')
    t.equal(await page.locator('article .text').innerText().then(text => text.includes('spoiler ')), false)
    await toggle.focus()
    await page.keyboard.press('Enter')
    await page.locator('article .text button[aria-expanded="true"]').waitFor({ timeout: 5000 }).catch(() => {})
    t.equal(await toggle.getAttribute('aria-expanded'), 'true')
    t.ok(await hidden.isVisible(), 'Enter shows it')
    await page.keyboard.press('Space')
    await page.locator('article .text button[aria-expanded="false"]').waitFor({ timeout: 5000 }).catch(() => {})
    t.notOk(await hidden.isVisible(), 'Space hides it again')
    t.same(await axeViolations(page), [], 'the permalink: no accessibility violation')
    await page.goto(`${server.url}/`)
    const reply = page.locator('.shoutbox-list li', { hasText: 'is what it was' })
    t.equal(await reply.locator('.quote q').innerText(), '[Spoiler]', 'the quoted line hides the spoiler\'s words')
    t.equal(await reply.locator('.text strong').innerText(), 'that')
    await page.close()
  })

  await t.test('the composer previews what it will post, with the same renderer', async t => {
    const page = await staff.newPage()
    await page.goto(`${server.url}/`)
    const area = page.getByRole('textbox', { name: 'Your shout' })
    const preview = page.getByRole('group', { name: 'Preview' })
    await area.waitFor()
    t.notOk(await preview.isVisible(), 'no preview for an empty composer')
    await area.fill('plain words')
    t.notOk(await preview.isVisible(), 'nor for plain words')
    await area.fill('**loud** and `quiet` ||hush|| <b>x</b>')
    await preview.locator('strong').waitFor()
    t.equal(await preview.locator('strong').innerText(), 'loud')
    t.equal(await preview.locator('code').innerText(), 'quiet')
    t.notOk(await preview.locator('.spoiler-text').isVisible(), 'a spoiler is hidden in the preview too')
    t.equal(await preview.locator('b').count(), 0)
    await page.screenshot({ path: path.join(shots, 'format-composer-1280.png') })
    t.same(await axeViolations(page), [], 'the widget with its preview: no accessibility violation')
    await area.press('Enter')
    await page.locator('.shoutbox-list .text strong', { hasText: 'loud' }).waitFor()
    t.notOk(await preview.isVisible(), 'sent: the preview goes with the text')
    const listed = ((await call('GET', '/api/shoutbox/list')).shouts as Array<{ message: string }>).map(shout => shout.message)
    t.ok(listed.includes('**loud** and `quiet` ||hush|| <b>x</b>'), 'posted as written')
    await page.close()
  })

  await t.test('the widget is a box of --shoutbox-height; the home page is no taller than it and the page\'s own content', async t => {
    for (const width of [360, 1280]) {
      for (const [who, cookie] of [['a visitor', undefined], ['staff', admin]] as const) {
        for (const colorScheme of ['light', 'dark'] as const) {
          const page = await (await context(width, cookie, colorScheme)).newPage()
          await page.goto(`${server.url}/`)
          await page.locator('.shoutbox-list > li[data-id]').nth(49).waitFor({ state: 'attached' })
          if (cookie !== undefined) await page.getByRole('textbox', { name: 'Your shout' }).waitFor()
          // The page's height: where its content ends (the viewport's own height aside), with the widget and without it.
          const measured = await page.evaluate(() => {
            const widget = document.querySelector<HTMLElement>('.shoutbox-widget')!
            const box = widget.getBoundingClientRect().height
            const log = widget.querySelector<HTMLElement>('[role="log"]')!
            // (No helper function: the page runs this as written.)
            const main = document.querySelector('main')!
            const margin = parseFloat(getComputedStyle(main).marginBottom)
            const withWidget = Math.ceil(main.getBoundingClientRect().bottom + window.scrollY + margin)
            widget.style.display = 'none'
            const without = Math.ceil(main.getBoundingClientRect().bottom + window.scrollY + margin)
            widget.style.display = ''
            return { box, withWidget, without, shouts: widget.querySelectorAll('.shoutbox-list > li[data-id]').length, scrolls: log.scrollHeight > log.clientHeight }
          })
          t.equal(measured.shouts, 50, `${width} px, ${who}: 50 shouts in the widget`)
          t.equal(measured.box, 480, `${width} px, ${who}, ${colorScheme}: the box is 480 px`)
          t.ok(measured.scrolls, `${width} px, ${who}: the list scrolls inside it`)
          t.ok(measured.withWidget <= measured.without + measured.box,
            `${width} px, ${who}: the page is ${measured.withWidget} px, no taller than its own content (${measured.without} px) and the box (${measured.box} px)`)
          t.same(await axeViolations(page), [], `${width} px, ${who}, ${colorScheme}: no accessibility violation`)
          t.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= width, `${width} px: no sideways scrolling`)
          await page.screenshot({ path: path.join(shots, `format-home-${width}-${cookie === undefined ? 'visitor' : 'staff'}-${colorScheme}.png`), fullPage: true })
          await page.context().close()
        }
      }
    }
    const page = await visitor.newPage()
    await page.goto(`${server.url}/`)
    await page.locator('.shoutbox-list > li[data-id]').first().waitFor()
    const height = await page.evaluate(() => {
      document.documentElement.style.setProperty('--shoutbox-height', '320px')
      return document.querySelector('.shoutbox-widget')!.getBoundingClientRect().height
    })
    t.equal(height, 320, 'a theme sets the height with --shoutbox-height')
    await page.close()
  })

  await t.test('older shouts on demand: a button the keyboard reaches, and scrolling to the list\'s end', async t => {
    const page = await visitor.newPage()
    await page.goto(`${server.url}/`)
    const items = page.locator('.shoutbox-list > li[data-id]')
    await items.nth(49).waitFor({ state: 'attached' })
    const older = page.getByRole('button', { name: 'Load older shouts' })
    t.equal(await items.count(), 50)
    // By keyboard: the button comes right after the last shout's link; Enter loads a page and the focus goes to its first shout.
    await older.focus()
    await page.keyboard.press('Shift+Tab')
    t.equal(await page.evaluate(() => document.activeElement?.closest('li')?.querySelector('.text')?.textContent), 'Older shout number 62', 'Shift+Tab: the last shout\'s link')
    await page.keyboard.press('Tab')
    t.equal(await page.evaluate(() => document.activeElement?.textContent), 'Load older shouts', 'Tab from the last shout reaches the button')
    await page.keyboard.press('Enter')
    await items.nth(99).waitFor({ state: 'attached' })
    t.equal(await items.count(), 100, 'fifty older shouts')
    t.equal(await page.evaluate(() => document.activeElement?.querySelector('.text')?.textContent), 'Older shout number 61', 'the focus is on the first of them')
    await page.getByText('50 older shouts loaded').waitFor({ state: 'attached' })
    // By scrolling (the pointer's reader, the focus elsewhere): the list's end brings the rest.
    await page.evaluate(() => {
      ;(document.activeElement as HTMLElement).blur()
      const log = document.querySelector<HTMLElement>('.shoutbox-widget [role="log"]')!
      log.scrollTop = log.scrollHeight
    })
    const total = FILLERS + WRITTEN.length + 2
    await items.nth(total - 1).waitFor({ state: 'attached' })
    t.equal(await items.count(), total, 'every shout, oldest last')
    await older.waitFor({ state: 'hidden' })
    t.equal(await items.last().locator('.text').innerText(), 'Older shout number 1')
    // A new shout lets only the oldest go (the widget holds as many as it was asked to), which can be loaded again.
    await call('POST', '/api/shoutbox', { message: 'A new shout after the older ones loaded' })
    await items.first().getByText('A new shout after the older ones loaded').waitFor()
    t.equal(await items.count(), total, 'as many shouts as before')
    t.equal(await items.last().locator('.text').innerText(), 'Older shout number 2', 'the oldest let go')
    await older.waitFor()
    t.same(await axeViolations(page), [], 'no accessibility violation with every shout loaded')
    await page.close()
  })

  t.same(problems, [], 'no script error, no dialog, on any page')
})
