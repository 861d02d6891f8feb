import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { ADMIN } from '../../helpers/app.js'
import { http, serverStorage, startServer } from '../../helpers/server.js'
import { ensurePages, watchPages } from '../../helpers/browser.js'

/** CONTRACT §15 and §21 in a browser: a tab per room, unread counts, keys to move, the panel's Rooms page, the archive by room. */

const PASSWORD = 'a long password'

/** Rooms, in a real browser. */
export async function story (t: Test, browser: Browser): Promise<void> {
  await ensurePages('addon/shoutbox/ui/widget.js')
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: storage.env })
  const admin = (await http(server, 'POST', '/api/setup/finish', { body: ADMIN })).cookie!
  await http(server, 'PUT', '/api/panel/shoutbox/config', { body: { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 }, cookie: admin })
  for (const [slug, name, read] of [['members', 'Members', 'signed-in'], ['staff', 'Staff', 'panel.access']] as const) {
    t.equal((await http(server, 'POST', '/api/panel/shoutbox/rooms', { body: { slug, name, read, description: `For the ${name.toLowerCase()}` }, cookie: admin })).status, 200)
  }
  const roles = (await http(server, 'GET', '/api/panel/roles', { cookie: admin })).body as { roles: Array<{ id: number, name: string }> }
  const memberRole = roles.roles.find(role => role.name === 'member')!.id
  for (const username of ['ayse', 'bora']) {
    t.equal((await http(server, 'POST', '/api/panel/users', { body: { username, email: `${username}@example.org`, password: PASSWORD, roleId: memberRole }, cookie: admin })).status, 200)
  }
  const signIn = async (username: string, password = PASSWORD) => (await http(server, 'POST', '/api/auth/login', { body: { username, password } })).cookie!
  const ayse = await signIn('ayse')
  const bora = await signIn('bora')
  const postIn = async (cookie: string, room: string, message: string) => {
    t.equal((await http(server, 'POST', `/api/shoutbox/rooms/${room}/shouts`, { body: { message }, cookie })).status, 200, `posted in ${room}`)
  }
  await postIn(bora, 'general', 'Hello everyone in General')
  await postIn(bora, 'members', 'Members only: the meetup is on Saturday')
  await postIn(admin, 'staff', 'Staff: rotate the keys on Friday')

  const problems: string[] = []
  const keep = process.env.SHOUTBOX_SCREENSHOTS_DIR
  const shots = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'shoutbox-rooms-shots-'))
  if (keep === undefined) t.teardown(() => fs.rmSync(shots, { recursive: true, force: true }))
  else fs.mkdirSync(shots, { recursive: true })
  t.comment(`screenshots in ${shots}`)
  const context = async (cookie?: string, width = 1100, height = 800): Promise<BrowserContext> => {
    const created = await browser.newContext({ viewport: { width, height }, locale: 'en-US' })
    // Asked for: "who am I?" signed out (401); a room one may not read (404).
    watchPages(created, problems, { expected: [401, 404] })
    if (cookie !== undefined) await created.addCookies([{ name: cookie.split('=')[0]!, value: cookie.split('=')[1]!, url: server.url }])
    return created
  }
  const widgetOf = (page: Page) => page.locator('.shoutbox-widget')
  const tabsOf = (page: Page) => widgetOf(page).getByRole('tablist', { name: 'Rooms' })

  const member = await (await context(ayse)).newPage()
  const visitor = await (await context(undefined, 375, 740)).newPage()

  await t.test('a tab per room the reader may read, the default room first', async t => {
    await member.goto(`${server.url}/`)
    await widgetOf(member).getByText('Hello everyone in General').waitFor()
    t.same(await tabsOf(member).getByRole('tab').evaluateAll(tabs => tabs.map(tab => tab.getAttribute('data-room'))), ['general', 'members'], 'a member: not the staff room')
    // Bora's shout in Members, from before the page opened: counted by the server.
    await tabsOf(member).getByRole('tab', { name: /Members/ }).getByText('1 new shout').waitFor({ state: 'attached' })
    t.equal(await tabsOf(member).getByRole('tab', { name: 'General' }).getAttribute('aria-selected'), 'true')
    t.equal(await widgetOf(member).getByRole('tabpanel', { name: 'General' }).count(), 1, 'the room shown is the selected tab\'s panel')
    await visitor.goto(`${server.url}/`)
    await widgetOf(visitor).getByText('Hello everyone in General').waitFor()
    t.ok(await tabsOf(visitor).isHidden(), 'a visitor with one room sees no tabs')
    t.equal(await widgetOf(visitor).getByText('Members only').count(), 0)
    await member.screenshot({ path: path.join(shots, 'rooms-widget-member.png'), fullPage: true })
  })

  await t.test('shouts in another room count as unread on its tab, live; showing it clears them', async t => {
    await postIn(bora, 'members', 'Bora again in members')
    await postIn(bora, 'members', 'And once more in members')
    const membersTab = tabsOf(member).getByRole('tab', { name: /Members/ })
    await membersTab.getByText('3 new shouts').waitFor({ state: 'attached' })
    t.equal(await membersTab.locator('[aria-hidden="true"]').innerText(), '3', 'the count on the tab: the one from before, two heard live')
    await widgetOf(member).locator('.shoutbox-tabs').screenshot({ path: path.join(shots, 'rooms-tabs-unread.png') })
    t.equal(await widgetOf(member).getByText('Bora again in members').count(), 0, 'the room shown keeps to itself')
    await postIn(ayse, 'members', 'My own shout counts for nobody')
    await postIn(bora, 'general', 'A shout in the room shown')
    await widgetOf(member).getByText('A shout in the room shown').waitFor()
    t.equal(await membersTab.locator('[aria-hidden="true"]').innerText(), '3', 'one\'s own shout is not unread')
    await membersTab.click()
    await widgetOf(member).getByText('Bora again in members').waitFor()
    t.equal(await membersTab.getAttribute('aria-selected'), 'true')
    t.equal(await membersTab.locator('.shoutbox-unread').count(), 0, 'shown: nothing unread')
    t.equal(await widgetOf(member).getByText('Hello everyone in General').count(), 0, 'the default room\'s shouts are gone from view')
    t.same(await widgetOf(member).locator('.shoutbox-list li .text').allInnerTexts(),
      ['My own shout counts for nobody', 'And once more in members', 'Bora again in members', 'Members only: the meetup is on Saturday'])
  })

  await t.test('the keyboard: arrows move between tabs and show the room, Home and End go to the ends; the composer posts in the room shown', async t => {
    await tabsOf(member).getByRole('tab', { name: /Members/ }).focus()
    await member.keyboard.press('ArrowLeft')
    await widgetOf(member).getByText('Hello everyone in General').waitFor()
    t.equal(await member.evaluate(() => document.activeElement?.getAttribute('data-room')), 'general', 'the focus moves with the selection')
    t.same(await tabsOf(member).getByRole('tab').evaluateAll(tabs => tabs.map(tab => tab.getAttribute('tabindex'))), ['0', '-1'], 'one tab stop: the selected tab')
    await member.keyboard.press('End')
    await widgetOf(member).getByText('Bora again in members').waitFor()
    await member.keyboard.press('Home')
    await widgetOf(member).getByText('Hello everyone in General').waitFor()
    await member.keyboard.press('ArrowLeft')
    await widgetOf(member).getByText('Bora again in members').waitFor()
    t.pass('ArrowLeft from the first tab wraps to the last')
    const composer = member.getByRole('textbox', { name: 'Your shout' })
    await composer.fill('Said in the members room from the widget')
    await composer.press('Enter')
    await widgetOf(member).getByText('Said in the members room from the widget').waitFor()
    const stored = (await http(server, 'GET', '/api/shoutbox/rooms/members/shouts?limit=1', { cookie: ayse })).body as { shouts: Array<{ message: string }> }
    t.equal(stored.shouts[0]!.message, 'Said in the members room from the widget', 'stored in the room shown')
    await member.reload()
    await widgetOf(member).getByText('Said in the members room from the widget').waitFor()
    t.equal(await tabsOf(member).getByRole('tab', { name: /Members/ }).getAttribute('aria-selected'), 'true', 'the room chosen is remembered')
    await member.screenshot({ path: path.join(shots, 'rooms-widget-members-room.png'), fullPage: true })
  })

  await t.test('read markers: after a reload the server counts what is new in each room, and a line marks where the last visit ended', async t => {
    // Ayse reads Members now; she had read General to its newest shout.
    const newest = ((await http(server, 'GET', '/api/shoutbox/rooms/general/shouts?limit=1', { cookie: ayse })).body as { shouts: Array<{ id: number }> }).shouts[0]!.id
    t.equal((await http(server, 'PUT', '/api/shoutbox/rooms/general/read', { body: { lastReadId: newest }, cookie: ayse })).status, 200)
    await postIn(bora, 'general', 'Posted while ayse was away, one')
    await postIn(bora, 'general', 'Posted while ayse was away, two')
    await member.reload()
    const generalTab = tabsOf(member).getByRole('tab', { name: /General/ })
    await generalTab.getByText('2 new shouts').waitFor({ state: 'attached' })
    t.pass('the tab counts them from the server, after a reload')
    await generalTab.click()
    const line = widgetOf(member).locator('li.shoutbox-new-since')
    await line.waitFor()
    t.equal(await line.innerText(), 'NEW SINCE YOUR LAST VISIT')
    const texts = await widgetOf(member).locator('.shoutbox-list > li').evaluateAll(items => items.map(item => item.classList.contains('shoutbox-new-since') ? '—' : item.querySelector('.text')?.textContent ?? ''))
    t.same(texts.slice(0, 3), ['Posted while ayse was away, two', 'Posted while ayse was away, one', '—'], 'the line sits below what is new')
    await widgetOf(member).screenshot({ path: path.join(shots, 'rooms-new-since.png') })
    // Shown, it is read: the marker moves a second later, and the next visit has nothing new.
    await member.waitForResponse(response => response.url().endsWith('/api/shoutbox/rooms/general/read') && response.status() === 200)
    await tabsOf(member).getByRole('tab', { name: /Members/ }).click()
    await member.reload()
    await widgetOf(member).getByText('Said in the members room from the widget').waitFor()
    t.equal(await tabsOf(member).getByRole('tab', { name: /General/ }).locator('.shoutbox-unread').count(), 0, 'nothing unread in General any more')
  })

  await t.test('the archive filters by room; a permalink names its room', async t => {
    const page = await (await context(ayse)).newPage()
    await page.goto(`${server.url}/shouts?room=members`)
    await page.locator('ol.shoutbox-archive-list > li').first().getByText('Said in the members room').waitFor()
    t.equal(await page.getByLabel('Room', { exact: true }).inputValue(), 'members')
    t.equal(await page.locator('ol.shoutbox-archive-list').getByText('Hello everyone in General').count(), 0)
    await page.getByLabel('Room', { exact: true }).selectOption('general')
    await page.waitForURL(/\/shouts\?room=general/)
    await page.locator('ol.shoutbox-archive-list').getByText('Hello everyone in General').waitFor()
    await page.goto(`${server.url}/shouts?room=members`)
    await page.locator('ol.shoutbox-archive-list > li').first().locator('a.permalink, a').first().click()
    await page.getByText('in Members').waitFor()
    t.match(page.url(), /\/shouts\/\d+$/)
    await page.screenshot({ path: path.join(shots, 'rooms-permalink.png'), fullPage: true })
    const hidden = await (await context()).newPage()
    await hidden.goto(`${server.url}/shouts?room=staff`)
    await hidden.getByText('There is no such room.').waitFor()
    t.equal(await hidden.getByText('rotate the keys').count(), 0, 'a visitor asking for the staff room: no such room')
  })

  await t.test('the panel\'s Rooms page: make a room, rename it, move it, archive it; the widget follows', async t => {
    const page = await (await context(admin, 1280, 900)).newPage()
    await page.goto(`${server.url}/panel/#/shoutbox/rooms`)
    await page.getByRole('heading', { name: 'Rooms', level: 1 }).waitFor()
    const create = page.getByRole('form', { name: 'New room' })
    await create.getByLabel('Address name').fill('games')
    await create.getByLabel('Name', { exact: true }).fill('Games')
    await create.getByLabel('Who reads it').selectOption({ label: 'Everyone signed in' })
    await create.getByLabel('Slow mode (seconds)').fill('5')
    await create.getByRole('button', { name: 'Create room' }).click()
    await page.getByText('Games created.').waitFor()
    // The form starts over for the next room: nothing of the last one's.
    t.same(await create.evaluate(form => [...form.querySelectorAll<HTMLInputElement | HTMLSelectElement>('input, select')].map(field => field.value)),
      ['', '', '', 'everyone', 'addon.shoutbox.post', '0'], 'the new-room form is empty again, at its defaults')
    const games = page.getByRole('form', { name: /Games/ })
    await games.getByLabel('Name', { exact: true }).fill('Games night')
    await games.getByLabel('Slow mode (seconds)').fill('10')
    await games.getByRole('button', { name: 'Save' }).click()
    await page.getByText('Games night saved.').waitFor()
    await page.getByRole('button', { name: 'Move up: Games night' }).click()
    await page.getByText('Games night moved.').waitFor()
    t.equal(await page.evaluate(() => document.activeElement?.id), 'room-4-up', 'the focus stays on the button pressed')
    await page.screenshot({ path: path.join(shots, 'rooms-panel.png'), fullPage: true })
    const rooms = (await http(server, 'GET', '/api/panel/shoutbox/rooms', { cookie: admin })).body as { rooms: Array<{ slug: string, name: string, slowModeSeconds: number, read: string }> }
    t.same(rooms.rooms.map(room => room.slug), ['general', 'members', 'games', 'staff'])
    t.match(rooms.rooms.find(room => room.slug === 'games'), { name: 'Games night', slowModeSeconds: 10, read: 'signed-in' })
    await member.reload()
    await tabsOf(member).getByRole('tab', { name: 'Games night' }).waitFor()
    t.same(await tabsOf(member).getByRole('tab').evaluateAll(tabs => tabs.map(tab => tab.getAttribute('data-room'))), ['general', 'members', 'games'])
    await page.getByRole('form', { name: /Games night/ }).getByRole('button', { name: 'Archive' }).click()
    await page.getByText('Games night archived').waitFor()
    await member.reload()
    await tabsOf(member).getByRole('tab', { name: 'Members' }).waitFor()
    t.equal(await tabsOf(member).getByRole('tab', { name: 'Games night' }).count(), 0, 'an archived room has no tab')

    // The Shouts page reads and posts in the room chosen.
    await page.goto(`${server.url}/panel/#/shoutbox/shouts`)
    await page.getByLabel('Room', { exact: true }).selectOption('staff')
    await page.getByText('Staff: rotate the keys on Friday').waitFor()
    await page.getByLabel('Message').fill('Posted to staff from the panel')
    await page.getByRole('button', { name: 'Post shout' }).click()
    await page.getByText('Posted to staff from the panel').last().waitFor()
    const staff = (await http(server, 'GET', '/api/shoutbox/rooms/staff/shouts?limit=1', { cookie: admin })).body as { shouts: Array<{ message: string }> }
    t.equal(staff.shouts[0]!.message, 'Posted to staff from the panel')
  })

  t.same(problems, [], 'no script errors, no unexpected failed requests')
}
