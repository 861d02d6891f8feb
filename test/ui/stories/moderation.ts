import type { Test } from 'tap'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { ADMIN } from '../../helpers/app.js'
import { http, serverStorage, startServer } from '../../helpers/server.js'
import { ensurePages, watchPages } from '../../helpers/browser.js'

/** CONTRACT §13 in a real browser: a moderator mutes a member from the widget, lifts it on the Mutes page, and reads both in the feed. */

const PASSWORD = 'a long password'

/** Moderation, in a real browser. */
export async function story (t: Test, browser: Browser): Promise<void> {
  await ensurePages('ui/theme/account.js')
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: storage.env })
  const admin = (await http(server, 'POST', '/api/setup/finish', { body: ADMIN })).cookie!
  await http(server, 'PUT', '/api/panel/shoutbox/config', { body: { minSecondsBetweenShouts: 0 }, cookie: admin })
  const role = await http(server, 'POST', '/api/panel/roles', { body: { name: 'Moderators', permissions: ['panel.access', 'addon.shoutbox.manage.shoutbox', 'addon.shoutbox.post'] }, cookie: admin })
  const roles = (await http(server, 'GET', '/api/panel/roles', { cookie: admin })).body!.roles as Array<{ id: number, name: string }>
  for (const [username, roleId] of [['mod', (role.body!.role as { id: number }).id], ['ayse', roles.find(r => r.name === 'member')!.id]] as const) {
    await http(server, 'POST', '/api/panel/users', { body: { username, email: `${username}@example.org`, password: PASSWORD, roleId }, cookie: admin })
  }
  const ayseCookie = (await http(server, 'POST', '/api/auth/login', { body: { username: 'ayse', password: PASSWORD } })).cookie!
  await http(server, 'POST', '/api/shoutbox', { body: { message: 'BUY CHEAP WATCHES NOW' }, cookie: ayseCookie })
  await http(server, 'POST', '/api/shoutbox', { body: { message: 'a second one to delete' }, cookie: ayseCookie })
  await http(server, 'POST', '/api/shoutbox', { body: { message: 'my own words' }, cookie: ayseCookie })
  await http(server, 'POST', '/api/shoutbox', { body: { message: 'Welcome, from the administrator' }, cookie: admin })

  const problems: string[] = []
  const context = async (width: number, height: number): Promise<BrowserContext> => {
    const created = await browser.newContext({ viewport: { width, height }, locale: 'en-US' })
    // Answers this test asks for: "who am I?" signed out (401), the MUTED refusal (403).
    watchPages(created, problems, { expected: [401, 403], dialogs: true })
    return created
  }
  const signIn = async (page: Page, username: string): Promise<void> => {
    await page.goto(`${server.url}/#sign-in`)
    const form = page.getByRole('region', { name: 'Sign in' })
    await form.getByLabel('Username or e-mail').fill(username)
    await form.getByLabel('Password').fill(PASSWORD)
    await form.getByRole('button', { name: 'Sign in' }).click()
    await page.getByText(`Signed in as ${username}`).waitFor()
  }
  const widgetOf = (page: Page) => page.locator('.shoutbox-widget')
  const shoutIn = (page: Page, text: string | RegExp) => widgetOf(page).locator('li', { hasText: text })

  const moderator = await (await context(1280, 800)).newPage()
  const member = await (await context(375, 740)).newPage()
  await signIn(moderator, 'mod')
  await signIn(member, 'ayse')

  await t.test('a moderator sees Delete and Mute beside others\' shouts, named for screen readers; the member does not', async t => {
    const item = shoutIn(moderator, 'BUY CHEAP WATCHES NOW')
    await item.getByRole('button', { name: 'Mute — shout by ayse: BUY CHEAP WATCHES NOW' }).waitFor()
    t.equal(await item.getByRole('button', { name: 'Delete — shout by ayse: BUY CHEAP WATCHES NOW' }).count(), 1)
    await shoutIn(member, 'BUY CHEAP WATCHES NOW').waitFor()
    t.equal(await shoutIn(member, 'BUY CHEAP WATCHES NOW').getByRole('button', { name: /^Mute/ }).count(), 0, 'a member has no Mute')
    await shoutIn(member, 'my own words').getByRole('button', { name: /^Edit/ }).waitFor()
    const administrators = shoutIn(moderator, 'Welcome, from the administrator')
    await administrators.getByRole('button', { name: /^Delete/ }).waitFor()
    t.equal(await administrators.getByRole('button', { name: /^Mute/ }).count(), 0, 'no Mute on the shout of one who moderates: it could not work')
  })

  await t.test('the moderator deletes a shout with a confirmation, by keyboard', async t => {
    const item = shoutIn(moderator, 'a second one to delete')
    // By keyboard: Enter on Delete; the focus waits on Cancel, Shift+Tab reaches "Yes, delete".
    await item.getByRole('button', { name: /^Delete/ }).focus()
    await moderator.keyboard.press('Enter')
    await item.getByText('Delete this shout by ayse?').waitFor()
    t.equal(await moderator.evaluate(() => document.activeElement?.textContent), 'Cancel', 'the safe choice has the focus')
    await moderator.keyboard.press('Shift+Tab')
    await moderator.keyboard.press('Enter')
    await shoutIn(member, 'a second one to delete').waitFor({ state: 'detached' })
    t.pass('gone from the member\'s widget too')
  })

  await t.test('the moderator edits the member\'s shout in place by keyboard (at any time, logged); the member sees the new text', async t => {
    const item = shoutIn(moderator, 'BUY CHEAP WATCHES NOW')
    // By keyboard: Enter on Edit, the text replaced, Enter.
    await item.getByRole('button', { name: 'Edit — shout by ayse: BUY CHEAP WATCHES NOW' }).focus()
    await moderator.keyboard.press('Enter')
    await item.getByLabel('Edit the shout by ayse').waitFor()
    await moderator.keyboard.press('ControlOrMeta+A')
    await moderator.keyboard.type('[advertising removed]')
    await moderator.keyboard.press('Enter')
    await shoutIn(member, '[advertising removed]').waitFor()
    t.equal(await shoutIn(member, 'BUY CHEAP WATCHES NOW').count(), 0, 'the old text is gone from the member\'s widget')
    await widgetOf(moderator).getByText('ayse\'s shout was changed.').waitFor({ state: 'attached' })
    t.equal(await widgetOf(moderator).getByText('Your shout was changed.').count(), 0, 'the moderator is told whose shout changed, not "your"')
    await shoutIn(member, '[advertising removed]').getByText('(edited)').waitFor()
    t.equal(await shoutIn(moderator, '[advertising removed]').getByText('(edited)').count(), 1, 'marked edited on both pages')
    t.equal(await shoutIn(member, 'my own words').getByText('(edited)').count(), 0, 'an unchanged shout is not')
    const feed = (await http(server, 'GET', '/api/panel/logs/activity', { cookie: admin })).body!.logs as Array<{ type: string, username: string }>
    t.match(feed[0], { type: 'EDITED_SHOUT', username: 'mod' }, 'in the staff\'s record')
  })

  await t.test('the moderator mutes the member for 10 minutes, by keyboard', async t => {
    const item = shoutIn(moderator, '[advertising removed]')
    await item.getByRole('button', { name: /^Mute/ }).focus()
    await moderator.keyboard.press('Enter')
    const form = item.getByRole('form', { name: 'Mute ayse in the shoutbox' })
    await form.waitFor()
    t.equal(await moderator.evaluate(() => (document.activeElement as HTMLInputElement).value), '10', 'focus on the first length, 10 minutes, chosen')
    t.ok(await form.getByRole('radio', { name: '10 minutes' }).isChecked())
    t.equal(await form.getByRole('radio').count(), 5, '10 minutes, 1 hour, 1 day, 1 week, until lifted')
    await moderator.keyboard.press('Escape')
    await form.waitFor({ state: 'detached' })
    t.pass('Escape cancels')
    await item.getByRole('button', { name: /^Mute/ }).click()
    await form.getByLabel('Reason (optional, the member sees it)').fill('Spam')
    await form.getByRole('button', { name: 'Mute', exact: true }).click()
    await widgetOf(moderator).getByText(/^ayse is muted until .+\.$/).waitFor()
    await form.waitFor({ state: 'detached' })
    const mutes = (await http(server, 'GET', '/api/panel/shoutbox/mutes', { cookie: admin })).body!.mutes as Array<{ username: string, until: number, reason: string, by: string }>
    t.match(mutes, [{ username: 'ayse', reason: 'Spam', by: 'mod' }])
    t.ok(Math.abs(mutes[0]!.until - Date.now() - 600_000) < 60_000, 'ten minutes from now')
  })

  await t.test('the member\'s open page says at once they are muted, and until when', async t => {
    // No reload and no post: the mute reaches the page on the member's stream.
    const composer = member.getByRole('textbox', { name: 'Your shout' })
    const notice = widgetOf(member).locator('#shoutbox-muted')
    await notice.getByText(/^You are muted in the shoutbox until .+\. Reason: Spam$/).waitFor()
    t.equal(await composer.count(), 0, 'no composer while muted')
    t.equal(await shoutIn(member, 'my own words').getByRole('button', { name: /^Edit/ }).count(), 0, 'no Edit on one\'s own shout while muted: the server would refuse it')
    const until = (await http(server, 'GET', '/api/shoutbox/me', { cookie: ayseCookie })).body!.mute as { until: number }
    const shown = await member.evaluate(ms => new Date(ms).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' }), until.until)
    t.match(await notice.innerText(), shown, 'the time the mute ends')
    await member.reload()
    await widgetOf(member).getByText(/^You are muted in the shoutbox until /).waitFor()
    t.pass('a fresh page knows it too (GET /api/shoutbox/me)')
    t.ok(await member.evaluate(() => document.documentElement.scrollWidth) <= 375, 'no sideways scrolling on a 375-px phone')
  })

  await t.test('the moderator lifts it on the Mutes page; the member\'s open page may post again at once', async t => {
    await moderator.goto(`${server.url}/panel/`)
    await moderator.getByRole('link', { name: 'Mutes' }).click()
    const row = moderator.getByRole('row', { name: /ayse/ })
    await row.waitFor()
    t.match(await row.innerText(), /ayse[\s\S]*Spam[\s\S]*mod/, 'who, until when, why, by whom')
    await row.getByRole('button', { name: 'Lift the mute on ayse' }).click()
    await moderator.getByText('ayse may post again.').waitFor()
    await moderator.getByText('Nobody is muted.').waitFor()
    // The composer is back on the member's open page by itself.
    const composer = member.getByRole('textbox', { name: 'Your shout' })
    await composer.waitFor()
    await composer.fill('thank you')
    await composer.press('Enter')
    await shoutIn(member, 'thank you').waitFor()
    t.pass()
  })

  await t.test('the Activity page tells both, in English and in Turkish', async t => {
    await moderator.getByRole('link', { name: 'Activity' }).click()
    await moderator.getByText('mod muted ayse in the shoutbox for 10 minutes (reason: Spam)').waitFor()
    await moderator.getByText('mod lifted the mute on ayse in the shoutbox').waitFor()
    await moderator.locator('#language').selectOption('tr')
    await moderator.getByText('mod, ayse kullanıcısını duyuru panosunda 10 dakikalığına susturdu (sebep: Spam)').waitFor()
    await moderator.getByText('mod, ayse kullanıcısının duyuru panosundaki susturmasını kaldırdı').waitFor()
    t.pass()
  })

  await t.test('no console errors, no dialogs, on any page', async t => {
    t.same(problems, [])
  })
}
