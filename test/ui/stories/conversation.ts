import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { ADMIN } from '../../helpers/app.js'
import { http, serverStorage, startServer } from '../../helpers/server.js'
import { ensurePages, watchPages } from '../../helpers/browser.js'

/** CONTRACT §16 in a browser: reply to a shout and see the quote; react by mouse and by keyboard, and see the counts arrive on another page. */

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
  const said = await http(server, 'POST', '/api/shoutbox', { body: { message: 'Who is coming to the picnic on Sunday? Bring something to share, and a blanket.' }, cookie: bora })
  const picnic = (said.body as { shout: { id: number } }).shout.id
  for (let i = 1; i <= 3; i++) await http(server, 'POST', '/api/shoutbox', { body: { message: `Unrelated chatter ${i}` }, cookie: admin })

  const problems: string[] = []
  const keep = process.env.SHOUTBOX_SCREENSHOTS_DIR
  const shots = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'shoutbox-conversation-shots-'))
  if (keep === undefined) t.teardown(() => fs.rmSync(shots, { recursive: true, force: true }))
  else fs.mkdirSync(shots, { recursive: true })
  t.comment(`screenshots in ${shots}`)
  const context = async (cookie?: string, width = 1100, height = 800): Promise<BrowserContext> => {
    const created = await browser.newContext({ viewport: { width, height }, locale: 'en-US' })
    watchPages(created, problems, { expected: [401] })
    if (cookie !== undefined) await created.addCookies([{ name: cookie.split('=')[0]!, value: cookie.split('=')[1]!, url: server.url }])
    return created
  }
  const widgetOf = (page: Page) => page.locator('.shoutbox-widget')
  const itemOf = (page: Page, text: string) => widgetOf(page).locator('.shoutbox-list > li').filter({ has: page.locator('p.text', { hasText: text }) })

  const member = await (await context(ayse)).newPage()
  const watcher = await (await context(bora)).newPage()
  const visitor = await (await context(undefined, 375, 740)).newPage()
  for (const page of [member, watcher, visitor]) {
    await page.goto(`${server.url}/`)
    await itemOf(page, 'Who is coming to the picnic').waitFor()
  }

  await t.test('reply: the composer shows what it answers; the reply quotes it, everywhere', async t => {
    await itemOf(member, 'Who is coming to the picnic').getByRole('button', { name: /^Reply/ }).click()
    const replying = widgetOf(member).locator('#shoutbox-replying')
    await replying.getByText('Replying to bora').waitFor()
    t.equal(await member.evaluate(() => document.activeElement?.id), 'shoutbox-message', 'the composer takes the focus')
    t.match(await widgetOf(member).getByLabel('Your shout').getAttribute('aria-describedby'), /shoutbox-replying/, 'a screen reader hears what it answers')
    // Escape stops answering; Reply again and send, by keyboard alone: Enter on Reply, type, Enter.
    await member.keyboard.press('Escape')
    await replying.waitFor({ state: 'hidden' })
    await itemOf(member, 'Who is coming to the picnic').getByRole('button', { name: /^Reply/ }).focus()
    await member.keyboard.press('Enter')
    await replying.getByText('Replying to bora').waitFor()
    await member.keyboard.type('I am! I will bring lemonade.')
    await member.keyboard.press('Enter')
    const reply = itemOf(member, 'I will bring lemonade')
    await reply.locator('.quote').getByText('In reply to bora').waitFor()
    t.match(await reply.locator('.quote q').textContent(), /^Who is coming to the picnic on Sunday\?/)
    t.ok(await replying.isHidden(), 'the composer answers nothing any more')
    // On another member's page it arrives with its quote, live.
    const heard = itemOf(watcher, 'I will bring lemonade')
    await heard.locator('.quote').getByText('In reply to bora').waitFor()
    // A click on the quote shows the original in the list.
    await heard.locator('.quote a').click()
    await watcher.waitForFunction(() => document.activeElement?.textContent?.includes('Who is coming to the picnic') === true)
    t.equal(new URL(watcher.url()).pathname, '/', 'the original was in the list: no page change')
    await member.screenshot({ path: path.join(shots, 'conversation-reply.png') })
  })

  await t.test('react: by mouse and by keyboard; the counts arrive on every page, a visitor sees them', async t => {
    const original = itemOf(member, 'Who is coming to the picnic')
    await original.getByRole('button', { name: 'React to the shout by bora' }).click()
    const picker = original.getByRole('group', { name: 'Reactions to choose from' })
    await picker.waitFor()
    t.equal(await member.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'React with 👍', 'the first emoji takes the focus')
    // The open picker covers nothing of the shout: not its text, not its author.
    const pickerBox = await picker.boundingBox()
    for (const [part, name] of [['p.text', 'text'], ['p.meta', 'author and time']] as const) {
      const box = await original.locator(part).first().boundingBox()
      t.ok(pickerBox !== null && box !== null && (pickerBox.y >= box.y + box.height || pickerBox.y + pickerBox.height <= box.y),
        `the picker does not cover the shout's ${name}`)
    }
    await picker.getByRole('button', { name: 'React with 🎉' }).click()
    const mine = original.getByRole('button', { name: '🎉 1 reaction, yours' })
    await mine.waitFor()
    t.equal(await mine.getAttribute('aria-pressed'), 'true')
    // By keyboard: open, arrow to the second emoji, Enter.
    await original.getByRole('button', { name: 'React to the shout by bora' }).focus()
    await member.keyboard.press('Enter')
    await member.keyboard.press('ArrowRight')
    t.equal(await member.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'React with ❤️')
    await member.screenshot({ path: path.join(shots, 'conversation-picker.png') })
    await member.keyboard.press('Enter')
    await original.getByRole('button', { name: '❤️ 1 reaction, yours' }).waitFor()
    t.equal(await member.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'React to the shout by bora', 'the focus goes back to React')
    // Escape closes the picker without reacting.
    await member.keyboard.press('Enter')
    await member.keyboard.press('Escape')
    await picker.waitFor({ state: 'hidden' })

    // Another member's page hears the counts; pressing one adds theirs.
    const theirs = itemOf(watcher, 'Who is coming to the picnic')
    await theirs.getByRole('button', { name: '🎉 1 reaction', exact: true }).waitFor()
    await theirs.getByRole('button', { name: '🎉 1 reaction', exact: true }).click()
    await theirs.getByRole('button', { name: '🎉 2 reactions, yours among them' }).waitFor()
    await original.getByRole('button', { name: '🎉 2 reactions, yours among them' }).waitFor()
    // Pressing one's own takes it back.
    await original.getByRole('button', { name: '❤️ 1 reaction, yours' }).click()
    await original.getByRole('button', { name: /❤️/ }).waitFor({ state: 'detached' })
    await theirs.getByRole('button', { name: /❤️/ }).waitFor({ state: 'detached' })
    // A visitor reads the counts, and has no buttons.
    const seen = itemOf(visitor, 'Who is coming to the picnic')
    await seen.getByRole('img', { name: '🎉 2 reactions' }).waitFor()
    t.equal(await seen.getByRole('button', { name: /React/ }).count(), 0, 'a visitor cannot react')
    t.equal(await seen.getByRole('button', { name: /Reply/ }).count(), 0, 'nor reply')
    await member.screenshot({ path: path.join(shots, 'conversation-reactions.png') })
    await visitor.screenshot({ path: path.join(shots, 'conversation-visitor.png') })
    const stored = await http(server, 'GET', `/api/shoutbox/shouts/${picnic}`)
    t.same((stored.body as { shout: { reactions: unknown } }).shout.reactions, [{ emoji: '🎉', count: 2 }])
  })

  await t.test('mention: the one named sees a count on the bell, opens the list, follows the link', async t => {
    const bell = widgetOf(member).getByRole('button', { name: /^Notifications/ })
    t.equal(await bell.getAttribute('aria-label'), 'Notifications', 'nothing unread yet')
    t.equal(await widgetOf(visitor).getByRole('button', { name: /^Notifications/ }).count(), 0, 'a visitor has no bell')
    await http(server, 'POST', '/api/shoutbox', { body: { message: '@ayse thanks for the lemonade, see you at noon' }, cookie: bora })
    await widgetOf(member).getByRole('button', { name: 'Notifications, 1 unread' }).waitFor()
    await bell.click()
    const region = widgetOf(member).getByRole('region', { name: 'Notifications' })
    const item = region.getByRole('link', { name: /bora mentioned you in General/ })
    await item.waitFor()
    t.match(await item.textContent(), /thanks for the lemonade/)
    await member.screenshot({ path: path.join(shots, 'conversation-notifications.png') })
    // Escape closes the list and goes back to the bell.
    await member.keyboard.press('Escape')
    await region.waitFor({ state: 'hidden' })

    t.equal(await member.evaluate(() => document.activeElement?.getAttribute('aria-controls')), 'shoutbox-notifications', 'the focus is back on the bell')
    await bell.click()
    await item.click()
    await member.waitForURL(/\/shouts\/\d+$/)
    await member.getByText('thanks for the lemonade').first().waitFor()
    const after = await http(server, 'GET', '/api/notifications', { cookie: ayse })
    t.equal((after.body as { unread: number }).unread, 0, 'following it marked it read')
    await member.goto(`${server.url}/`)
    await widgetOf(member).getByRole('button', { name: 'Notifications' }).waitFor()
  })

  await t.test('ignore: a member hides another\'s shouts, live and on reload, and takes it back', async t => {
    await itemOf(member, 'Who is coming to the picnic').getByRole('button', { name: /^Ignore/ }).click()
    await widgetOf(member).getByText('You ignore bora now: their shouts are hidden.').waitFor()
    await itemOf(member, 'Who is coming to the picnic').waitFor({ state: 'detached' })
    t.equal(await itemOf(member, 'thanks for the lemonade').count(), 0, 'every shout of theirs hidden')
    await itemOf(member, 'I will bring lemonade').getByText('In reply to a member you ignore').waitFor()
    // Live: a new shout of theirs does not show; another member's does.
    await http(server, 'POST', '/api/shoutbox', { body: { message: 'Bora again, unseen' }, cookie: bora })
    await http(server, 'POST', '/api/shoutbox', { body: { message: 'Admin says hi' }, cookie: admin })
    await itemOf(member, 'Admin says hi').waitFor()
    t.equal(await itemOf(member, 'Bora again, unseen').count(), 0, 'their new shout is hidden as it arrives')
    await itemOf(watcher, 'Bora again, unseen').waitFor()
    t.pass('others still see them')
    await member.reload()
    await itemOf(member, 'Admin says hi').waitFor()
    t.equal(await itemOf(member, 'Bora again, unseen').count(), 0, 'after a reload too (the server leaves them out)')
    const box = widgetOf(member).locator('details.shoutbox-ignored')
    await box.locator('summary').click()
    t.equal(await box.locator('summary').textContent(), 'You ignore 1 member')
    await member.screenshot({ path: path.join(shots, 'conversation-ignored.png') })
    await box.getByRole('button', { name: 'Stop ignoring — bora' }).click()
    await itemOf(member, 'Bora again, unseen').waitFor()
    await itemOf(member, 'I will bring lemonade').locator('.quote').getByText('In reply to bora').waitFor()
    t.ok(await box.isHidden(), 'nobody ignored: no box')
    // A moderator's shout offers no Ignore to a member.
    t.equal(await itemOf(member, 'Admin says hi').getByRole('button', { name: /^Ignore/ }).count(), 1, 'the admin is offered (the server refuses, and says so)')
    await itemOf(member, 'Admin says hi').getByRole('button', { name: /^Ignore/ }).click()
    await widgetOf(member).getByText('admin moderates the shoutbox and cannot be ignored.').waitFor()
  })

  await t.test('emoji: the picker by keyboard, a search, and :shortcodes: turned into emoji as the shout goes', async t => {
    const composer = widgetOf(member).getByRole('textbox', { name: 'Your shout' })
    await composer.fill('Count me in ')
    const open = widgetOf(member).getByRole('button', { name: 'Insert an emoji' })
    await open.focus()
    await member.keyboard.press('Enter')
    const picker = widgetOf(member).getByRole('dialog', { name: 'Emoji' })
    await picker.getByRole('heading', { name: 'Smileys & Emotion' }).waitFor()
    t.equal(await member.evaluate(() => document.activeElement?.id), 'shoutbox-emoji-search', 'the search box takes the focus')
    t.equal(await open.getAttribute('aria-expanded'), 'true')
    t.ok(await picker.getByRole('button', { name: 'grinning face', exact: true }).isVisible(), 'the whole set, grouped, from the page itself')
    await member.screenshot({ path: path.join(shots, 'conversation-emoji-picker.png') })
    await member.keyboard.type('sun')
    await picker.getByRole('group', { name: 'Emoji found' }).waitFor()
    // ArrowDown into the emoji, ArrowRight to the second, Enter inserts it at the caret.
    await member.keyboard.press('ArrowDown')
    const first = await member.evaluate(() => document.activeElement?.textContent)
    await member.keyboard.press('ArrowRight')
    const second = await member.evaluate(() => document.activeElement?.getAttribute('aria-label'))
    t.not(second, null, 'a choice is named for a screen reader')
    const inserted = await member.evaluate(() => document.activeElement?.textContent)
    t.not(inserted, first)
    await member.keyboard.press('Enter')
    await picker.waitFor({ state: 'hidden' })
    t.equal(await member.evaluate(() => document.activeElement?.id), 'shoutbox-message', 'back in the composer')
    t.equal(await composer.inputValue(), `Count me in ${inserted!}`)
    // Escape closes it without inserting anything.
    await open.click()
    await picker.waitFor()
    await member.keyboard.press('Escape')
    await picker.waitFor({ state: 'hidden' })
    t.equal(await member.evaluate(() => document.activeElement?.id), 'shoutbox-message', 'Escape: back in the composer')
    await member.keyboard.type(' :+1: see you at 12:30:00 :tada: :nothing:')
    await member.keyboard.press('Enter')
    const sent = `Count me in ${inserted!} 👍 see you at 12:30:00 🎉 :nothing:`
    await itemOf(watcher, sent).waitFor()
    t.pass('the shortcodes the set knows became emoji; a time and an unknown name stayed as written')
  })

  await t.test('preferences: a chime and a desktop notification on a mention; the dark theme, chosen or the device\'s', async t => {
    // Stand-ins for the browser's notifications and sound, which a headless browser does not show.
    // (A string: tsx's compiled functions name helpers the page does not have.)
    await member.addInitScript({
      content: `
        const seen = { shown: [], tones: 0 }
        window.seen = seen
        window.Notification = class { constructor (title) { seen.shown.push(title) } static permission = 'granted'; static async requestPermission () { return 'granted' } }
        const create = AudioContext.prototype.createOscillator
        AudioContext.prototype.createOscillator = function () { seen.tones++; return create.call(this) }`
    })
    await member.reload()
    await widgetOf(member).getByRole('button', { name: 'Notifications' }).waitFor()
    const seen = () => member.evaluate(() => (window as unknown as { seen: { shown: string[], tones: number } }).seen)
    await member.getByRole('button', { name: 'Preferences' }).click()
    const form = member.getByRole('region', { name: 'Your preferences' })
    await form.getByLabel('Play a sound').check()
    await form.getByLabel('Show a desktop notification').check()
    await form.getByLabel('Dark', { exact: true }).check()
    await form.getByRole('button', { name: 'Save preferences' }).click()
    await form.getByText('Preferences saved.').waitFor()
    t.equal(await member.evaluate(() => document.documentElement.dataset.theme), 'dark', 'the page turns dark at once')
    t.same((await http(server, 'GET', '/api/users/me/preferences', { cookie: ayse })).body, { result: 'ok', preferences: { sound: true, desktopNotifications: true, theme: 'dark', locale: null, emailMentions: 'off' } })
    const background = () => member.evaluate(() => getComputedStyle(document.body).backgroundColor)
    t.equal(await background(), 'rgb(20, 23, 27)')
    t.equal(await widgetOf(member).evaluate(element => getComputedStyle(element).backgroundColor), 'rgb(29, 34, 40)', 'the widget follows')
    await member.screenshot({ path: path.join(shots, 'conversation-preferences-dark.png') })
    await member.keyboard.press('Escape')

    await http(server, 'POST', '/api/shoutbox', { body: { message: '@ayse the dark theme suits the board' }, cookie: bora })
    await widgetOf(member).getByRole('button', { name: 'Notifications, 1 unread' }).waitFor()
    await member.waitForFunction(() => (window as unknown as { seen: { shown: string[] } }).seen.shown.length === 1)
    t.same((await seen()).shown, ['bora mentioned you in General'], 'a desktop notification')
    t.equal((await seen()).tones, 2, 'and a chime of two notes')

    await member.reload()
    t.equal(await member.evaluate(() => document.documentElement.dataset.theme), 'dark', 'still dark on the next page')
    // Sound off: the next mention is silent, and shows on the desktop still.
    await http(server, 'PUT', '/api/users/me/preferences', { body: { sound: false }, cookie: ayse })
    await member.reload()
    await widgetOf(member).getByRole('button', { name: /^Notifications/ }).waitFor()
    await http(server, 'POST', '/api/shoutbox', { body: { message: '@ayse quietly now' }, cookie: bora })
    await member.waitForFunction(() => (window as unknown as { seen: { shown: string[] } }).seen.shown.length === 1)
    t.equal((await seen()).tones, 0, 'no chime')

    // A visitor whose device is dark gets the dark theme with no preference at all; light is light.
    const dark = await (await browser.newContext({ colorScheme: 'dark' })).newPage()
    await dark.goto(`${server.url}/`)
    await itemOf(dark, 'Who is coming to the picnic').waitFor()
    t.equal(await dark.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(20, 23, 27)', 'prefers-color-scheme: dark')
    t.equal(await visitor.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(251, 250, 247)', 'light')
    await http(server, 'PUT', '/api/users/me/preferences', { body: { theme: 'system' }, cookie: ayse })
  })

  await t.test('the archive and the permalink show the quote and the counts', async t => {
    const page = await (await context()).newPage()
    await page.goto(`${server.url}/shouts`)
    const reply = page.locator('ol.shoutbox-archive-list > li').filter({ hasText: 'I will bring lemonade' })
    await reply.locator('.quote').getByText('In reply to bora').waitFor()
    t.equal(await reply.locator('.quote a').getAttribute('href'), `/shouts/${picnic}`, 'the quote links to the original')
    await reply.locator('.quote a').click()
    await page.waitForURL(new RegExp(`/shouts/${picnic}$`))
    await page.getByRole('list', { name: 'Reactions' }).getByText('🎉 2 reactions').waitFor()
    t.match(await page.locator('.shoutbox-permalink .text').textContent(), /^Who is coming to the picnic/, 'the original, on its own page')
    await page.screenshot({ path: path.join(shots, 'conversation-permalink.png'), fullPage: true })
  })

  t.same(problems, [], 'no script errors, no unexpected failed requests')
}
