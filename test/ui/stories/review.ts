import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { ADMIN } from '../../helpers/app.js'
import { http, serverStorage, startServer } from '../../helpers/server.js'
import { ensurePages, watchPages } from '../../helpers/browser.js'

/** CONTRACT §17 in a browser: Words in the panel, a member's Report by keyboard, a held shout waiting, the Review page deciding. */

const PASSWORD = 'a long password'

export async function story (t: Test, browser: Browser): Promise<void> {
  await ensurePages('addon/shoutbox/ui/widget.js')
  const storage = await serverStorage(t)
  // Reports count once per address: the second reporter comes through the (trusted) local proxy from another.
  const server = await startServer(t, { env: { ...storage.env, TRUST_PROXY: '127.0.0.1,::1' } })
  const admin = (await http(server, 'POST', '/api/setup/finish', { body: ADMIN })).cookie!
  await http(server, 'PUT', '/api/panel/shoutbox/config', { body: { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600, hideAfterReports: 2, reportMinAccountAgeHours: 0 }, cookie: admin })
  const roles = (await http(server, 'GET', '/api/panel/roles', { cookie: admin })).body as { roles: Array<{ id: number, name: string }> }
  const memberRole = roles.roles.find(role => role.name === 'member')!.id
  for (const username of ['ayse', 'bora', 'cem']) {
    t.equal((await http(server, 'POST', '/api/panel/users', { body: { username, email: `${username}@example.org`, password: PASSWORD, roleId: memberRole }, cookie: admin })).status, 200)
  }
  const signIn = async (username: string) => (await http(server, 'POST', '/api/auth/login', { body: { username, password: PASSWORD } })).cookie!
  const [ayse, bora, cem] = [await signIn('ayse'), await signIn('bora'), await signIn('cem')]
  await http(server, 'POST', '/api/shoutbox', { body: { message: 'Welcome to the board, everyone!' }, cookie: admin })
  await http(server, 'POST', '/api/shoutbox', { body: { message: 'Visit my shop for cheap watches, every day' }, cookie: cem })

  const problems: string[] = []
  const keep = process.env.SHOUTBOX_SCREENSHOTS_DIR
  const shots = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'shoutbox-review-shots-'))
  if (keep === undefined) t.teardown(() => fs.rmSync(shots, { recursive: true, force: true }))
  else fs.mkdirSync(shots, { recursive: true })
  const context = async (cookie: string, width = 1100, height = 800): Promise<BrowserContext> => {
    const created = await browser.newContext({ viewport: { width, height }, locale: 'en-US' })
    // A blocked shout is refused (400), as the story wants.
    watchPages(created, problems, { expected: [400] })
    await created.addCookies([{ name: cookie.split('=')[0]!, value: cookie.split('=')[1]!, url: server.url }])
    return created
  }
  const widgetOf = (page: Page) => page.locator('.shoutbox-widget')
  const itemOf = (page: Page, text: string) => widgetOf(page).locator('.shoutbox-list > li').filter({ has: page.locator('p.text', { hasText: text }) })

  const panel = await (await context(admin, 1280, 900)).newPage()
  const member = await (await context(ayse)).newPage()

  await t.test('Words: the moderator watches words by keyboard; the list follows', async t => {
    await panel.goto(`${server.url}/panel/#/shoutbox/words`)
    const pattern = panel.getByLabel('Word or phrase')
    await pattern.fill('cheap watches')
    await panel.getByRole('radio', { name: /^Hold/ }).check()
    await pattern.press('Enter')
    await panel.getByText('“cheap watches” is watched now').waitFor()
    t.equal(await panel.evaluate(() => document.activeElement?.id), 'word-pattern', 'the field is ready for the next word')
    for (const [word, action] of [['darn', /^Censor/], ['free money', /^Block/]] as const) {
      await pattern.fill(word)
      await panel.getByRole('radio', { name: action }).check()
      await panel.getByRole('button', { name: 'Watch it' }).click()
      await panel.getByText(`“${word}” is watched now`).waitFor()
    }
    // The list is read again after each word: wait for it to hold the third.
    await panel.getByText('3 words').waitFor()
    t.equal(await panel.locator('table.words tbody tr').count(), 3)
    await panel.screenshot({ path: path.join(shots, 'review-words.png'), fullPage: true })
  })

  await t.test('a member\'s shouts: a blocked word refused, a censored one starred, a held one waiting for them alone', async t => {
    await member.goto(`${server.url}/`)
    const composer = widgetOf(member).getByRole('textbox', { name: 'Your shout' })
    await composer.fill('FREE  MONEY for all')
    await composer.press('Enter')
    await widgetOf(member).getByText('Your shout holds a word this board does not allow.').waitFor()
    await composer.fill('darn, the picnic is off')
    await composer.press('Enter')
    await itemOf(member, '****, the picnic is off').waitFor()
    await composer.fill('Cheap wаtches here too')
    await composer.press('Enter')
    const held = itemOf(member, 'Cheap wаtches here too')
    await held.getByText('waiting for review: only you see it').waitFor()
    t.equal(await held.getByRole('button').count(), 0, 'nothing to do with it but wait')
    await member.screenshot({ path: path.join(shots, 'review-held.png') })
    const other = await (await context(bora)).newPage()
    await other.goto(`${server.url}/`)
    await itemOf(other, '****, the picnic is off').waitFor()
    t.equal(await itemOf(other, 'Cheap wаtches here too').count(), 0, 'another member does not see it')
    await other.close()
  })

  await t.test('Report, by keyboard: a reason, a note, sent; two reports take the shout off the board', async t => {
    const shop = itemOf(member, 'Visit my shop')
    const report = shop.getByRole('button', { name: /^Report — shout by cem/ })
    await report.focus()
    await member.keyboard.press('Enter')
    const form = widgetOf(member).getByRole('form', { name: 'Report cem\'s shout to the moderators' })
    await form.waitFor()
    t.equal(await member.evaluate(() => (document.activeElement as HTMLInputElement | null)?.value), 'spam', 'the first reason takes the focus')
    await member.keyboard.press('ArrowDown')
    t.equal(await member.evaluate(() => (document.activeElement as HTMLInputElement | null)?.value), 'abuse', 'arrows move between the reasons')
    await member.keyboard.press('ArrowUp')
    await form.getByLabel('Anything the moderators should know (optional)').fill('posted every hour')
    await member.screenshot({ path: path.join(shots, 'review-report-dialog.png') })
    await form.getByRole('button', { name: 'Send report' }).click()
    await form.waitFor({ state: 'detached' })
    t.equal(await member.evaluate(() => document.activeElement?.getAttribute('data-action')), 'report', 'the focus is back on Report')
    await widgetOf(member).getByText(/the moderators will look at cem's shout/).waitFor({ state: 'attached' })
    // Escape cancels without sending.
    await report.click()
    await member.keyboard.press('Escape')
    await form.waitFor({ state: 'detached' })
    const second = await http(server, 'POST', `/api/shoutbox/shouts/${await shop.getAttribute('data-id')}/report`, { body: { reason: 'spam' }, cookie: bora, headers: { 'x-forwarded-for': '198.51.100.7' } })
    t.equal(second.status, 200)
    await shop.waitFor({ state: 'detached' })
    t.pass('the second report took it off the board, live')
  })

  await t.test('Review: the queue shows why each waits; approve, and dismiss with a mute', async t => {
    await panel.goto(`${server.url}/panel/#/`)
    await panel.locator('#overview-review').getByText('2').waitFor()
    await panel.goto(`${server.url}/panel/#/shoutbox/review`)
    const held = panel.locator('li.review-item').filter({ hasText: 'Cheap wаtches here too' })
    const hidden = panel.locator('li.review-item').filter({ hasText: 'Visit my shop' })
    await held.getByText('It has a watched word that holds shouts.').waitFor()
    await hidden.getByText('Off the board after 2 reports.').waitFor()
    t.ok(await held.getByRole('heading', { name: / in General$/ }).count() === 1, 'the room by its name, not its slug')
    await hidden.getByText('ayse — spam: “posted every hour”').waitFor()
    t.equal(await held.getByRole('button', { name: 'Dismiss reports' }).count(), 0, 'a held shout has no reports to dismiss')
    await panel.screenshot({ path: path.join(shots, 'review-queue.png'), fullPage: true })
    // The panel follows a dark device too.
    await panel.emulateMedia({ colorScheme: 'dark' })
    t.equal(await panel.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(20, 23, 27)', 'dark, as the device')
    await panel.screenshot({ path: path.join(shots, 'review-queue-dark.png'), fullPage: true })
    await panel.emulateMedia({ colorScheme: 'light' })
    await held.getByRole('button', { name: 'Approve' }).click()
    await panel.getByText('ayse\'s shout is approved.').waitFor()
    await hidden.getByLabel('and mute its author').selectOption({ label: 'for a day' })
    await hidden.getByRole('button', { name: 'Delete' }).click()
    await panel.getByText('cem\'s shout is deleted.').waitFor()
    await panel.getByText('Nothing waits for review.').waitFor()
    await itemOf(member, 'Cheap wаtches here too').locator('.permalink').waitFor()
    t.pass('the approved shout reached the board, on the member\'s open page')
    const notified = (await http(server, 'GET', '/api/notifications', { cookie: ayse })).body as { notifications: Array<{ kind: string, data: { outcome: string } }> }
    t.match(notified.notifications, [{ kind: 'report-resolved', data: { outcome: 'removed' } }], 'the reporter is told')
    await widgetOf(member).getByRole('button', { name: 'Notifications, 1 unread' }).waitFor()
    await widgetOf(member).getByRole('button', { name: /^Notifications/ }).click()
    await widgetOf(member).getByText('Your report was reviewed: the shout was removed').waitFor()
    const mutes = (await http(server, 'GET', '/api/panel/shoutbox/mutes', { cookie: admin })).body as { mutes: Array<{ username: string }> }
    t.match(mutes.mutes, [{ username: 'cem' }], 'and its author is muted')
  })

  t.same(problems, [], 'no script errors, no unexpected failed requests')
}
