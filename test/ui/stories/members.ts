import type { Test } from 'tap'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { ADMIN } from '../../helpers/app.js'
import { http, serverStorage, startServer } from '../../helpers/server.js'
import { ensurePages, watchPages } from '../../helpers/browser.js'

/** CONTRACT §12 in a real browser: a visitor signs up on the home page and talks in the widget. */


const XSS = '<img src=x onerror=alert(1)>'

/** Members on the home page, in a real browser. */
export async function story (t: Test, browser: Browser): Promise<void> {
  await ensurePages('ui/theme/account.js')
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: storage.env })
  const admin = (await http(server, 'POST', '/api/setup/finish', { body: ADMIN })).cookie!
  const settings = (body: Record<string, unknown>) => http(server, 'PUT', '/api/panel/shoutbox/config', { body, cookie: admin })

  const problems: string[] = []
  const context = async (width: number, height: number): Promise<BrowserContext> => {
    const created = await browser.newContext({ viewport: { width, height }, locale: 'en-US' })
    // Answers this test asks for: "who am I?" signed out (401), a duplicate (409), flood control (429).
    watchPages(created, problems, { expected: [401, 409, 429], dialogs: true })
    // Links leave for example.org: answered here, so a click can be followed offline.
    await created.route('https://example.org/**', route => route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Example</title><p>elsewhere' }))
    return created
  }

  const member = await (await context(1280, 800)).newPage()
  const visitor = await (await context(375, 740)).newPage()
  const widgetOf = (page: Page) => page.locator('.shoutbox-widget')
  const shoutIn = (page: Page, text: string | RegExp) => widgetOf(page).locator('li', { hasText: text })

  await t.test('sign-up closed: visitors are asked to sign in only', async t => {
    await visitor.goto(`${server.url}/`)
    await widgetOf(visitor).getByText('Sign in to join the conversation.').waitFor()
    t.equal(await widgetOf(visitor).getByRole('link', { name: 'Create an account' }).count(), 0)
    t.equal(await visitor.getByRole('group', { name: 'Account' }).getByRole('button', { name: 'Sign up' }).count(), 0)
    t.equal(await visitor.getByLabel('Your shout').count(), 0, 'no composer for visitors')
  })

  await http(server, 'PUT', '/api/panel/settings', { body: { signUp: true }, cookie: admin })
  await settings({ minSecondsBetweenShouts: 0 })

  await t.test('a visitor signs up from the widget\'s prompt and lands in the composer', async t => {
    await member.goto(`${server.url}/`)
    await widgetOf(member).getByText('Sign in or create an account to join the conversation.').waitFor()
    await widgetOf(member).getByRole('link', { name: 'Create an account' }).click()
    const form = member.getByRole('region', { name: 'Create an account' })
    await form.getByLabel('Username').fill('ayse')
    await form.getByLabel('E-mail address').fill('ayse@example.org')
    await form.getByLabel('Password').fill('a long password')
    await form.getByRole('button', { name: 'Create account' }).click()
    await member.getByText('Signed in as ayse').waitFor()
    const composer = member.getByRole('textbox', { name: 'Your shout' })
    await composer.waitFor()
    await member.waitForFunction(() => document.activeElement?.id === 'shoutbox-message')
    t.pass('signed in, the composer has the focus')
    t.notMatch(member.url(), /#sign-up/, 'the address is clean again')
    t.match(await composer.getAttribute('aria-describedby'), /shoutbox-left/, 'the characters left are read with it')
    t.equal(await widgetOf(member).getByText('500 characters left').count(), 1)
    await composer.fill('x'.repeat(499))
    t.equal(await widgetOf(member).getByText('1 character left', { exact: true }).count(), 1, 'one left, in the singular')
    await composer.fill('')
  })

  await t.test('Enter sends, Shift+Enter makes a new line; the shout appears in another browser without a reload', async t => {
    const composer = member.getByRole('textbox', { name: 'Your shout' })
    await composer.pressSequentially('Hello from a member!')
    await composer.press('Shift+Enter')
    await composer.pressSequentially('Second line.')
    t.equal(await widgetOf(member).getByText('467 characters left').count(), 1, 'counts as you type')
    await composer.press('Enter')
    await shoutIn(member, 'Hello from a member!').waitFor()
    // The stream may show the shout before the POST's answer empties the composer: wait for the answer.
    await member.waitForFunction(() => (document.getElementById('shoutbox-message') as HTMLTextAreaElement | null)?.value === '')
    t.pass('the composer is emptied')
    t.equal(await member.evaluate(() => document.activeElement?.id), 'shoutbox-message', 'and keeps the focus')
    await shoutIn(visitor, 'Hello from a member!').waitFor()
    t.equal(await shoutIn(visitor, 'Hello from a member!').locator('.text').innerText(), 'Hello from a member!\nSecond line.')
    const log = widgetOf(visitor).getByRole('log', { name: 'Latest shouts' })
    t.same([await log.getAttribute('aria-live'), await log.getAttribute('aria-busy'), await log.locator('li', { hasText: 'Hello from a member!' }).count()], ['off', null, 1],
      'it arrives in the log, which is not read out shout by shout')
    // The one polite live region counts others' new shouts instead (at most once every 5 s).
    await widgetOf(visitor).getByRole('status').getByText('1 new shout in General').waitFor()
    t.equal(await widgetOf(visitor).locator('[aria-live="polite"]').count(), 1, 'one polite live region in the widget')
    t.equal(await widgetOf(member).getByRole('status').getByText(/new shout/).count(), 0, 'one\'s own shout is not announced as news')
    t.equal(await shoutIn(visitor, 'Hello from a member!').getByRole('button').count(), 0, 'no buttons on someone else\'s shout')
  })

  await t.test('edit it within the window: the other browser sees the new text', async t => {
    const item = shoutIn(member, 'Hello from a member!')
    await item.getByRole('button', { name: /^Edit/ }).click()
    const editor = item.getByRole('textbox', { name: 'Edit your shout' })
    t.equal(await member.evaluate(() => document.activeElement?.tagName), 'TEXTAREA', 'the editor has the focus')
    await editor.fill('Hello from a member, edited.')
    await editor.press('Enter')
    await shoutIn(member, 'Hello from a member, edited.').waitFor()
    // As with a new shout, the stream may bring the new text before the PUT's answer closes the editor.
    await member.waitForFunction(() => document.activeElement?.textContent?.startsWith('Edit') === true)
    t.pass('focus back on the Edit button')
    await shoutIn(visitor, 'Hello from a member, edited.').waitFor()
    t.equal(await shoutIn(visitor, 'Second line.').count(), 0, 'the old text is gone')

    await shoutIn(member, 'edited').getByRole('button', { name: /^Edit/ }).click()
    await member.keyboard.type(' and more')
    await member.keyboard.press('Escape')
    t.equal(await shoutIn(member, 'and more').count(), 0, 'Escape cancels')
  })

  await t.test('a link is a link with the right rel, and can be followed; @mentions of accounts are highlighted', async t => {
    await member.getByRole('textbox', { name: 'Your shout' }).fill('Rules at https://example.org/rules. Ask @admin or @nobody')
    await member.getByRole('button', { name: 'Shout', exact: true }).click()
    const item = shoutIn(visitor, 'Rules at')
    await item.waitFor()
    const link = item.getByRole('link', { name: 'https://example.org/rules' })
    t.equal(await link.getAttribute('href'), 'https://example.org/rules')
    t.equal(await link.getAttribute('rel'), 'nofollow ugc noopener noreferrer')
    await item.locator('.mention', { hasText: '@admin' }).waitFor()
    t.equal(await item.locator('.mention').count(), 1, '@nobody is not an account')
    const linkPage = await (await context(1280, 800)).newPage()
    await linkPage.goto(`${server.url}/`)
    await shoutIn(linkPage, 'Rules at').getByRole('link', { name: 'https://example.org/rules' }).click()
    await linkPage.waitForURL('https://example.org/rules')
    t.pass('clicking it goes there')
    await linkPage.close()
  })

  await t.test('an XSS payload and a javascript: address stay text', async t => {
    const composer = member.getByRole('textbox', { name: 'Your shout' })
    await composer.fill(`${XSS} javascript:alert(document.cookie) <a href="javascript:alert(1)">x</a>`)
    await composer.press('Enter')
    const item = shoutIn(visitor, '<img src=x')
    await item.waitFor()
    t.equal(await item.locator('.text').innerText(), `${XSS} javascript:alert(document.cookie) <a href="javascript:alert(1)">x</a>`, 'shown exactly as typed')
    for (const page of [member, visitor]) {
      t.equal(await page.locator('img[src="x"]').count(), 0, 'no image element')
      t.equal(await page.locator('a[href^="javascript" i]').count(), 0, 'no javascript: link')
      // Its time links to its permalink (/shouts/<id>); its text makes none.
      t.equal(await shoutIn(page, '<img src=x').locator('a:not(.permalink)').count(), 0, 'no link in it but its permalink')
      t.equal(await shoutIn(page, '<img src=x').locator('.text a').count(), 0, 'no link in its text')
    }
  })

  await t.test('errors in words: flood control says how long to wait', async t => {
    await settings({ minSecondsBetweenShouts: 30 })
    const composer = member.getByRole('textbox', { name: 'Your shout' })
    await composer.fill('Too fast?')
    await composer.press('Enter')
    const alert = widgetOf(member).locator('.shoutbox-composer [role=alert]')
    // 30 s from the member's previous post, less the time since (a slow machine's seconds too).
    await alert.getByText(/^You are posting too fast\. Wait (1 second|([2-9]|[12]\d|30) seconds)\.$/).waitFor()
    t.equal(await composer.inputValue(), 'Too fast?', 'the text is kept to send later')
    t.equal(await composer.getAttribute('aria-invalid'), 'true')
    await settings({ minSecondsBetweenShouts: 0 })
    await composer.fill('x'.repeat(501))
    await composer.press('Enter')
    await alert.getByText('The message is too long: at most 500 characters.').waitFor()
    await widgetOf(member).getByText('1 character too many', { exact: true }).waitFor()
    t.pass()
  })

  await t.test('delete it, with a confirmation; it leaves the other browser', async t => {
    const item = shoutIn(member, 'Hello from a member, edited.')
    await item.getByRole('button', { name: /^Delete/ }).click()
    await item.getByText('Delete this shout?').waitFor()
    t.equal(await member.evaluate(() => document.activeElement?.textContent), 'Cancel', 'the safe choice has the focus')
    await item.getByRole('button', { name: 'Yes, delete' }).click()
    await shoutIn(member, 'Hello from a member, edited.').waitFor({ state: 'detached' })
    await shoutIn(visitor, 'Hello from a member, edited.').waitFor({ state: 'detached' })
    t.equal(await member.evaluate(() => document.activeElement?.id), 'shoutbox-message', 'focus back in the composer')
  })

  await t.test('sign out on the home page: the widget asks to sign in again; sign in with the form', async t => {
    await member.getByRole('button', { name: 'Sign out' }).click()
    await widgetOf(member).getByText('Sign in or create an account to join the conversation.').waitFor()
    await member.getByRole('group', { name: 'Account' }).getByRole('button', { name: 'Sign in' }).click()
    const form = member.getByRole('region', { name: 'Sign in' })
    await form.getByLabel('Username or e-mail').fill('ayse')
    await form.getByLabel('Password').fill('wrong password')
    await form.getByRole('button', { name: 'Sign in' }).click()
    await form.getByText('The username or password is wrong.').waitFor()
    await form.getByLabel('Password').fill('a long password')
    await form.getByRole('button', { name: 'Sign in' }).click()
    await member.getByText('Signed in as ayse').waitFor()
    await member.getByRole('textbox', { name: 'Your shout' }).waitFor()
    t.pass()
  })

  await t.test('a member has no panel access, and the panel says so', async t => {
    await member.goto(`${server.url}/panel/`)
    await member.getByText('Your account has no access to the panel').waitFor()
    t.equal(await member.getByRole('navigation').count(), 0, 'no menu')
  })

  await t.test('on a 375-px phone: no sideways scrolling, the composer fits', async t => {
    const phone = await (await context(375, 740)).newPage()
    await phone.goto(`${server.url}/#sign-in`)
    const form = phone.getByRole('region', { name: 'Sign in' })
    await form.getByLabel('Username or e-mail').fill('ayse')
    await form.getByLabel('Password').fill('a long password')
    await form.getByRole('button', { name: 'Sign in' }).click()
    await phone.getByRole('textbox', { name: 'Your shout' }).waitFor()
    t.ok(await phone.evaluate(() => document.documentElement.scrollWidth) <= 375, 'no sideways scrolling')
    const box = await phone.getByRole('button', { name: 'Shout', exact: true }).boundingBox()
    t.ok(box !== null && box.x + box.width <= 375, 'the send button is on the screen')
  })

  await t.test('the member makes an API token in Preferences, sees its secret once, and revokes it', async t => {
    await member.goto(`${server.url}/`)
    await member.getByRole('button', { name: 'Preferences' }).click()
    await member.getByText('API tokens', { exact: true }).click()
    const box = member.locator('.account-tokens-box')
    await box.getByText('No token yet.').waitFor()
    await box.getByLabel('What it is for').fill('my script')
    t.ok(await box.getByLabel('addon.shoutbox.post').isChecked(), 'posting, ticked')
    await box.getByRole('button', { name: 'Make a token' }).click()
    t.match(await box.locator('.token-secret').textContent(), /^sbx_[A-Za-z0-9_-]{43}$/, 'its secret, once')
    await box.getByText(/addon\.shoutbox\.post · expires in 3 months · last used never/).waitFor()
    await box.getByRole('button', { name: 'Revoke my script' }).click()
    await box.getByText('my script is revoked.').waitFor()
    await box.getByText('No token yet.').waitFor()
  })

  await t.test('the member deletes their account from Preferences: signed out, their shouts under "deleted user"', async t => {
    await member.goto(`${server.url}/`)
    await member.getByRole('button', { name: 'Preferences' }).click()
    await member.getByText('Delete my account', { exact: true }).click()
    const form = member.locator('.account-danger form')
    await form.getByLabel('Password').fill('a long password')
    await form.getByRole('button', { name: 'Delete my account for good' }).click()
    await member.getByRole('button', { name: 'Sign in' }).waitFor()
    t.equal(await member.getByText('Signed in as ayse').count(), 0, 'signed out')
    await visitor.reload()
    await widgetOf(visitor).locator('.author', { hasText: 'deleted user' }).first().waitFor()
    t.equal(await widgetOf(visitor).getByText('ayse', { exact: true }).count(), 0, 'her name is on none of her shouts')
  })

  await t.test('no console errors, no dialogs, on any page', async t => {
    t.same(problems, [])
  })
}
