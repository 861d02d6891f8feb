import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { ADMIN } from '../../helpers/app.js'
import { http, serverStorage, startServer } from '../../helpers/server.js'
import { ensurePages, watchPages } from '../../helpers/browser.js'
import { axeViolations } from './accessibility.js'

/** CONTRACT §27 in a browser, by keyboard alone: write to a member from their shout, they read and answer with a quote, react; axe finds nothing. */

const PASSWORD = 'a long password'

export async function story (t: Test, browser: Browser): Promise<void> {
  await ensurePages('addon/shoutbox/ui/widget.js')
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: storage.env })
  const admin = (await http(server, 'POST', '/api/setup/finish', { body: ADMIN })).cookie!
  await http(server, 'PUT', '/api/panel/shoutbox/config', { body: { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 }, cookie: admin })
  const roles = (await http(server, 'GET', '/api/panel/roles', { cookie: admin })).body as { roles: Array<{ id: number, name: string }> }
  const memberRole = roles.roles.find(role => role.name === 'member')!.id
  for (const username of ['ayse', 'bora']) {
    t.equal((await http(server, 'POST', '/api/panel/users', { body: { username, email: `${username}@example.org`, password: PASSWORD, roleId: memberRole }, cookie: admin })).status, 200)
  }
  const signIn = async (username: string) => (await http(server, 'POST', '/api/auth/login', { body: { username, password: PASSWORD } })).cookie!
  const ayse = await signIn('ayse')
  const bora = await signIn('bora')
  await http(server, 'POST', '/api/shoutbox', { body: { message: 'Who is coming to the picnic on Sunday?' }, cookie: bora })

  const problems: string[] = []
  const keep = process.env.SHOUTBOX_SCREENSHOTS_DIR
  const shots = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'shoutbox-direct-shots-'))
  if (keep === undefined) t.teardown(() => fs.rmSync(shots, { recursive: true, force: true }))
  else fs.mkdirSync(shots, { recursive: true })
  t.comment(`screenshots in ${shots}`)
  const context = async (cookie: string): Promise<BrowserContext> => {
    const created = await browser.newContext({ viewport: { width: 1100, height: 900 }, locale: 'en-US' })
    watchPages(created, problems, { expected: [401] })
    await created.addCookies([{ name: cookie.split('=')[0]!, value: cookie.split('=')[1]!, url: server.url }])
    return created
  }
  const widgetOf = (page: Page) => page.locator('.shoutbox-widget')
  const messagesOf = (page: Page) => widgetOf(page).getByRole('region', { name: 'Messages' })
  const focused = (page: Page) => page.evaluate(() => document.activeElement?.id ?? document.activeElement?.getAttribute('aria-label') ?? '')

  const writer = await (await context(ayse)).newPage()
  const reader = await (await context(bora)).newPage()
  for (const page of [writer, reader]) {
    await page.goto(`${server.url}/`)
    await widgetOf(page).getByText('Who is coming to the picnic').waitFor()
  }

  await t.test('start a conversation from a shout, by keyboard', async t => {
    const shout = widgetOf(writer).locator('.shoutbox-list > li').filter({ hasText: 'Who is coming to the picnic' })
    await shout.getByRole('button', { name: 'Message bora' }).focus()
    await writer.keyboard.press('Enter')
    await messagesOf(writer).waitFor()
    t.equal(await messagesOf(writer).getByLabel('To (username)').inputValue(), 'bora', 'addressed to the shout\'s author')
    t.equal(await focused(writer), 'shoutbox-direct-message', 'the message takes the focus')
    await writer.keyboard.type('Hi Bora, may I bring my cousin?')
    await writer.keyboard.press('Enter')
    await messagesOf(writer).getByRole('heading', { name: 'Conversation with bora' }).waitFor()
    await messagesOf(writer).getByText('Hi Bora, may I bring my cousin?').waitFor()
    t.same(await axeViolations(writer), [], 'axe: the conversation, no violation')
    await writer.screenshot({ path: path.join(shots, 'direct-started.png') })
  })

  await t.test('the other member opens Messages, reads it, replies with a quote and reacts, by keyboard', async t => {
    const open = widgetOf(reader).getByRole('button', { name: /^Messages/ })
    await open.focus()
    await reader.keyboard.press('Enter')
    const conversation = messagesOf(reader).getByRole('button', { name: /^ayse\W*1 unread message$/ })
    await conversation.waitFor()
    t.same(await axeViolations(reader), [], 'axe: the list, no violation')
    await reader.screenshot({ path: path.join(shots, 'direct-list.png') })
    await conversation.focus()
    await reader.keyboard.press('Enter')
    const message = messagesOf(reader).locator('li').filter({ has: reader.locator('p.text', { hasText: 'may I bring my cousin' }) })
    await message.waitFor()
    await message.getByRole('button', { name: /^Reply/ }).focus()
    await reader.keyboard.press('Enter')
    await messagesOf(reader).getByText('Replying to ayse').waitFor()
    t.equal(await focused(reader), 'shoutbox-direct-message', 'the composer takes the focus')
    await reader.keyboard.type('Of course! The more the merrier.')
    await reader.keyboard.press('Enter')
    const reply = messagesOf(reader).locator('li').filter({ hasText: 'The more the merrier' })
    await reply.locator('.quote').getByText('may I bring my cousin').waitFor()
    await message.getByRole('button', { name: 'React with 👍' }).focus()
    await reader.keyboard.press('Enter')
    await message.getByRole('button', { name: 'Take back 👍 1' }).waitFor()
    t.equal(await message.getByRole('button', { name: 'Take back 👍 1' }).getAttribute('aria-pressed'), 'true', 'pressed: the reaction is theirs')
    t.same(await axeViolations(reader), [], 'axe: a reply and a reaction, no violation')
    await reader.screenshot({ path: path.join(shots, 'direct-reply.png') })
  })

  await t.test('the writer sees the reply and the reaction arrive live', async t => {
    const reply = messagesOf(writer).locator('li').filter({ hasText: 'The more the merrier' })
    await reply.waitFor({ timeout: 15_000 })
    await messagesOf(writer).locator('li').filter({ has: writer.locator('p.text', { hasText: 'may I bring my cousin' }) }).getByRole('button', { name: 'React with 👍 1' }).waitFor({ timeout: 15_000 })
    t.same(await axeViolations(writer), [], 'axe: no violation')
    await writer.screenshot({ path: path.join(shots, 'direct-live.png') })
  })

  t.same(problems, [], 'no page error, no failed request')
}
