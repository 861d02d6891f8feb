import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { ADMIN } from '../../helpers/app.js'
import { http, serverStorage, startServer } from '../../helpers/server.js'
import { ensurePages, watchPages } from '../../helpers/browser.js'
import { multipart, phoneJpeg, plainPicture } from '../../helpers/pictures.js'
import { axeViolations } from './accessibility.js'

/**
 * Pictures in a browser: a member attaches a photo by keyboard, is asked what it shows,
 * sends it; the thumbnail opens the picture full size and closes back to itself, by
 * keyboard; the archive and the permalink show it too; a new member's picture waits in the
 * review queue, shown there. axe finds nothing, the picture open or not.
 */

const PASSWORD = 'a long password'

export async function story (t: Test, browser: Browser): Promise<void> {
  await ensurePages('addon/shoutbox/ui/widget.js')
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: storage.env })
  const admin = (await http(server, 'POST', '/api/setup/finish', { body: ADMIN })).cookie!
  await http(server, 'PUT', '/api/panel/shoutbox/config', { body: { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600, holdUploads: false }, cookie: admin })
  const roles = (await http(server, 'GET', '/api/panel/roles', { cookie: admin })).body as { roles: Array<{ id: number, name: string }> }
  const memberRole = roles.roles.find(role => role.name === 'member')!.id
  for (const username of ['ayse', 'bora']) {
    t.equal((await http(server, 'POST', '/api/panel/users', { body: { username, email: `${username}@example.org`, password: PASSWORD, roleId: memberRole }, cookie: admin })).status, 200)
  }
  const signIn = async (username: string) => (await http(server, 'POST', '/api/auth/login', { body: { username, password: PASSWORD } })).cookie!
  const [ayse, bora] = [await signIn('ayse'), await signIn('bora')]

  const problems: string[] = []
  const keep = process.env.SHOUTBOX_SCREENSHOTS_DIR
  const shots = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'shoutbox-pictures-shots-'))
  if (keep === undefined) t.teardown(() => fs.rmSync(shots, { recursive: true, force: true }))
  else fs.mkdirSync(shots, { recursive: true })
  const photo = path.join(shots, 'lighthouse.jpg')
  fs.writeFileSync(photo, await phoneJpeg())
  const context = async (cookie: string | undefined, width = 1100, height = 850): Promise<BrowserContext> => {
    const created = await browser.newContext({ viewport: { width, height }, locale: 'en-US' })
    // A visitor's page asks who is signed in, and is told nobody (401).
    watchPages(created, problems, cookie === undefined ? { expected: [401] } : {})
    if (cookie !== undefined) await created.addCookies([{ name: cookie.split('=')[0]!, value: cookie.split('=')[1]!, url: server.url }])
    return created
  }
  const widgetOf = (page: Page) => page.locator('.shoutbox-widget')
  const focusedName = (page: Page) => page.evaluate(() => {
    const active = document.activeElement
    return active === null ? '' : `${active.tagName.toLowerCase()}:${active.getAttribute('aria-label') ?? active.id ?? ''}`
  })
  const ALT = 'A red wall with a blue stripe along its top'
  let shoutId = 0

  const member = await (await context(ayse)).newPage()

  await t.test('attach by keyboard: the picture is uploaded, its alt text asked for, the shout sent with it', async t => {
    // Waited for before the page loads: the browser is told to hand the chooser to the test
    // while the page loads, not in a race with the key press (which, lost, opens a chooser
    // nobody sees).
    const chooser = member.waitForEvent('filechooser', { timeout: 60_000 })
    await member.goto(`${server.url}/`)
    const composer = widgetOf(member).getByRole('textbox', { name: 'Your shout' })
    await composer.fill('The lighthouse, from my phone')
    const add = widgetOf(member).getByRole('button', { name: 'Add a picture' })
    await add.focus()
    await member.keyboard.press('Enter')
    await (await chooser).setFiles(photo)
    const alt = widgetOf(member).getByRole('textbox', { name: 'What does it show?' })
    await alt.waitFor()
    t.equal(await alt.evaluate(element => element === document.activeElement), true, 'once uploaded, its alt text has the focus')
    t.same(await axeViolations(member), [], 'axe: the composer with a picture attached')
    await composer.focus()
    await member.keyboard.press('Enter')
    await widgetOf(member).getByText('Say what each picture shows before you send it.').waitFor()
    t.equal(await alt.evaluate(element => element === document.activeElement && element.getAttribute('aria-invalid') === 'true'), true, 'sent without alt text: refused, the field marked and focused')
    await alt.fill(ALT)
    await composer.focus()
    await member.keyboard.press('Enter')
    const thumb = widgetOf(member).getByRole('button', { name: `Open the picture: ${ALT}` })
    await thumb.waitFor()
    t.equal(await widgetOf(member).getByRole('textbox', { name: 'What does it show?' }).count(), 0, 'sent: nothing attached any more')
    const shown = (await http(server, 'GET', '/api/shoutbox/latest', { cookie: ayse })).body as { shouts: Array<{ id: number, uploads?: Array<{ alt: string, width: number, height: number }> }> }
    const sent = shown.shouts.find(shout => shout.uploads !== undefined)!
    shoutId = sent.id
    t.match(sent.uploads, [{ alt: ALT, width: 200, height: 400 }], 'stored upright, with its alt text')
    await member.screenshot({ path: path.join(shots, 'pictures-widget.png') })
  })

  await t.test('the thumbnail opens the picture full size and closes back to itself, by keyboard', async t => {
    const thumb = widgetOf(member).getByRole('button', { name: `Open the picture: ${ALT}` })
    await thumb.focus()
    await member.keyboard.press('Enter')
    const dialog = member.getByRole('dialog', { name: ALT })
    await dialog.waitFor()
    const full = dialog.getByRole('img', { name: ALT })
    await full.waitFor()
    t.ok(await full.evaluate(img => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth === 200), 'the picture itself, full size (200 × 400)')
    t.equal(await focusedName(member), 'button:', 'the focus is in the dialog, on Close')
    t.equal(await dialog.getByRole('button', { name: 'Close' }).evaluate(element => element === document.activeElement), true)
    t.same(await axeViolations(member), [], 'axe: the picture open')
    await member.screenshot({ path: path.join(shots, 'pictures-open.png') })
    await member.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    t.equal(await thumb.evaluate(element => element === document.activeElement), true, 'Escape: closed, the focus back on the thumbnail')
    await member.keyboard.press('Enter')
    await dialog.waitFor()
    await member.keyboard.press('Enter')
    await dialog.waitFor({ state: 'detached' })
    t.equal(await thumb.evaluate(element => element === document.activeElement), true, 'Close (Enter on it): closed, the focus back')
  })

  await t.test('the archive and the permalink show it, and open it, to a visitor', async t => {
    const visitor = await (await context(undefined)).newPage()
    await visitor.goto(`${server.url}/shouts`)
    const thumb = visitor.getByRole('button', { name: `Open the picture: ${ALT}` })
    await thumb.waitFor()
    t.same(await axeViolations(visitor), [], 'axe: the archive')
    await visitor.goto(`${server.url}/shouts/${shoutId}`)
    await thumb.waitFor()
    await thumb.focus()
    await visitor.keyboard.press('Enter')
    await visitor.getByRole('dialog', { name: ALT }).waitFor()
    t.same(await axeViolations(visitor), [], 'axe: the permalink, the picture open')
    await visitor.screenshot({ path: path.join(shots, 'pictures-permalink-open.png') })
    await visitor.keyboard.press('Escape')
    await visitor.close()
  })

  await t.test('a new member\'s picture waits in the review queue, shown there', async t => {
    await http(server, 'PUT', '/api/panel/shoutbox/config', { body: { holdUploads: true }, cookie: admin })
    const body = multipart(await plainPicture('png', 120, 90), 'cat.png', 'image/png')
    const uploaded = await fetch(`${server.url}/api/shoutbox/uploads`, { method: 'POST', headers: { ...body.headers, cookie: bora }, body: new Uint8Array(body.payload) })
    const { upload } = await uploaded.json() as { upload: { id: number } }
    const held = await http(server, 'POST', '/api/shoutbox', { body: { message: 'my cat', uploads: [{ id: upload.id, alt: 'A grey cat asleep' }] }, cookie: bora })
    t.match(held.body, { shout: { held: true } }, 'held')
    const panel = await (await context(admin, 1280, 900)).newPage()
    await panel.goto(`${server.url}/panel/#/shoutbox/review`)
    const item = panel.locator('.review-item').filter({ hasText: 'my cat' })
    await item.getByText('Pictures from a new member.').waitFor()
    const thumb = item.getByRole('button', { name: 'Open the picture: A grey cat asleep' })
    await thumb.waitFor()
    t.ok(await thumb.locator('img').evaluate(img => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0), 'its thumbnail, served to staff')
    t.same(await axeViolations(panel), [], 'axe: the review queue with a picture')
    await panel.screenshot({ path: path.join(shots, 'pictures-review.png'), fullPage: true })
  })

  t.same(problems, [], `no script errors, no failed requests ${problems.join(' | ')}`)
}
