import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'
import type { Browser, Page } from 'playwright-core'
import { ADMIN } from '../../helpers/app.js'
import { http, serverStorage, startServer } from '../../helpers/server.js'
import { ensurePages, watchPages } from '../../helpers/browser.js'
import { axeViolations } from './accessibility.js'

/** Guests and presence in a browser: a guest posts from the widget with the keyboard alone (the proof made in a Web Worker), "N here" with names on demand; axe finds nothing. */

const PASSWORD = 'a long password'

/** Presses Tab until the element `id` has the focus (at most `most` presses): reaching it as a keyboard user does. */
async function tabTo (page: Page, id: string, most = 60): Promise<void> {
  for (let i = 0; i < most; i++) {
    if (await page.evaluate(() => document.activeElement?.id ?? '') === id) return
    await page.keyboard.press('Tab')
  }
  throw new Error(`Tab never reached #${id}`)
}

export async function story (t: Test, browser: Browser): Promise<void> {
  await ensurePages('addon/shoutbox/ui/widget.js')
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: storage.env })
  const admin = (await http(server, 'POST', '/api/setup/finish', { body: ADMIN })).cookie!
  await http(server, 'PUT', '/api/panel/shoutbox/config', { body: { holdGuestShouts: false }, cookie: admin })
  t.equal((await http(server, 'POST', '/api/panel/shoutbox/rooms', { body: { slug: 'lobby', name: 'Lobby', guestsPost: true }, cookie: admin })).status, 200)
  const roles = (await http(server, 'GET', '/api/panel/roles', { cookie: admin })).body as { roles: Array<{ id: number, name: string }> }
  const memberRole = roles.roles.find(role => role.name === 'member')!.id
  t.equal((await http(server, 'POST', '/api/panel/users', { body: { username: 'mira', email: 'mira@example.org', password: PASSWORD, roleId: memberRole }, cookie: admin })).status, 200)
  const mira = (await http(server, 'POST', '/api/auth/login', { body: { username: 'mira', password: PASSWORD } })).cookie!

  const problems: string[] = []
  const keep = process.env.SHOUTBOX_SCREENSHOTS_DIR
  const shots = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'shoutbox-guests-shots-'))
  if (keep === undefined) t.teardown(() => fs.rmSync(shots, { recursive: true, force: true }))
  else fs.mkdirSync(shots, { recursive: true })

  // A member with the lobby open: someone "here".
  const memberContext = await browser.newContext({ viewport: { width: 1100, height: 800 }, locale: 'en-US' })
  watchPages(memberContext, problems)
  await memberContext.addCookies([{ name: mira.split('=')[0]!, value: mira.split('=')[1]!, url: server.url }])
  const member = await memberContext.newPage()
  await member.goto(`${server.url}/?room=lobby`)

  const guestContext = await browser.newContext({ viewport: { width: 1100, height: 800 }, locale: 'en-US' })
  // A name that passes for a member's is refused (400), as the story asks; a visitor's widget asks who they are (401).
  watchPages(guestContext, problems, { expected: [400, 401] })
  const guest = await guestContext.newPage()
  const widget = guest.locator('.shoutbox-widget')

  await t.test('a guest posts with the keyboard alone: a name, the shout, Enter; no puzzle', async t => {
    await guest.goto(`${server.url}/?room=lobby`)
    await widget.getByRole('textbox', { name: 'Your name' }).waitFor()
    await tabTo(guest, 'shoutbox-guest-name')
    await guest.keyboard.type('mіra')
    await guest.keyboard.press('Tab')
    t.equal(await guest.evaluate(() => document.activeElement?.id), 'shoutbox-guest-message')
    await guest.keyboard.type('Hello from a passer-by')
    await guest.keyboard.press('Enter')
    await widget.getByText('That name belongs to a member, or looks like one. Choose another.').waitFor({ timeout: 30_000 })
    t.equal(await guest.evaluate(() => document.activeElement?.id), 'shoutbox-guest-name', 'a refused name takes the focus back')
    await guest.keyboard.press('ControlOrMeta+a')
    await guest.keyboard.type('Passer-by')
    await guest.keyboard.press('Tab')
    await guest.keyboard.press('Enter')
    const item = widget.locator('.shoutbox-list > li').filter({ has: guest.locator('p.text', { hasText: 'Hello from a passer-by' }) })
    await item.waitFor({ timeout: 30_000 })
    t.equal(await item.locator('.shoutbox-guest').textContent(), 'guest', 'marked a guest\'s')
    await guest.screenshot({ path: path.join(shots, 'guest-posted.png'), fullPage: true })
    await member.locator('.shoutbox-list > li').filter({ hasText: 'Hello from a passer-by' }).waitFor({ timeout: 15_000 })
    t.pass('the member sees it live')
    t.same(await axeViolations(guest), [], 'axe: no violation on the guest\'s widget')
  })

  await t.test('"N here": the count, the names on demand, by keyboard', async t => {
    const button = widget.locator('.shoutbox-here-button')
    await button.filter({ hasText: /^[2-9] here$/ }).waitFor({ timeout: 20_000 })
    await button.focus()
    await guest.keyboard.press('Enter')
    t.equal(await button.getAttribute('aria-expanded'), 'true')
    await widget.locator('#shoutbox-here-names').getByText('mira').waitFor()
    await guest.screenshot({ path: path.join(shots, 'guest-presence.png'), fullPage: true })
    t.same(await axeViolations(guest), [], 'axe: no violation with the names shown')
    await guest.keyboard.press('Escape')
    t.equal(await button.getAttribute('aria-expanded'), 'false')
  })

  await t.test('the proof\'s cost in this browser, at the default guestProofCost', async t => {
    const tries = 8
    const took = await guest.evaluate(async tries => {
      const times: number[] = []
      for (let i = 0; i < tries; i++) {
        const { challenge } = await (await fetch('/api/shoutbox/guest-challenge')).json()
        const worker = new Worker('/addons/shoutbox/ui/guest-proof-worker.js', { type: 'module' })
        const started = performance.now()
        await new Promise(resolve => { worker.onmessage = resolve; worker.postMessage(challenge) })
        times.push(performance.now() - started)
        worker.terminate()
      }
      return times
    }, tries)
    const mean = took.reduce((a, b) => a + b, 0) / took.length
    t.comment(`guest proof at the default guestProofCost in Chromium here: mean ${mean.toFixed(0)} ms, each ${took.map(ms => ms.toFixed(0)).join(', ')} ms`)
    t.equal(took.length, tries)
  })

  t.same(problems, [], 'no script errors, no console errors')
}
