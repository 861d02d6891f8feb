import type { Test } from 'tap'
import type { Browser } from 'playwright-core'
import { ADMIN } from '../../helpers/app.js'
import { ensurePages, watchPages } from '../../helpers/browser.js'
import { eventually } from '../../helpers/eventually.js'
import { freePort, http, serverStorage, startServer } from '../../helpers/server.js'
import { smtpServer } from '../../helpers/smtp.js'

/**
 * Verified addresses in a real browser: a newcomer signs up, the widget says why they
 * cannot post yet and sends the link again; the link's page confirms; they post. Then the
 * Preferences: mention mails, and a change of address by link.
 */
export async function story (t: Test, browser: Browser): Promise<void> {
  await ensurePages('ui/theme/verify-email.js')
  const mailbox = await smtpServer(t)
  const storage = await serverStorage(t)
  const port = await freePort()
  const server = await startServer(t, { port, env: { ...storage.env, SMTP_URL: mailbox.url, PUBLIC_URL: `http://127.0.0.1:${port}` } })
  const admin = (await http(server, 'POST', '/api/setup/finish', { body: ADMIN })).cookie!
  t.equal((await http(server, 'PUT', '/api/panel/settings', { body: { signUp: true, verifyEmail: true }, cookie: admin })).status, 200)
  await http(server, 'PUT', '/api/panel/shoutbox/config', { body: { minSecondsBetweenShouts: 0 }, cookie: admin })

  const problems: string[] = []
  const context = await browser.newContext({ viewport: { width: 1024, height: 800 }, locale: 'en-US' })
  watchPages(context, problems, { expected: [401], dialogs: true })
  const page = await context.newPage()
  const widget = page.locator('.shoutbox-widget')

  await t.test('a newcomer is told why they cannot post, and may ask for the link again', async t => {
    await page.goto(`${server.url}/`)
    await widget.getByRole('link', { name: 'Create an account' }).click()
    const form = page.getByRole('region', { name: 'Create an account' })
    await form.getByLabel('Username').fill('nora')
    await form.getByLabel('E-mail address').fill('nora@example.org')
    await form.getByLabel('Password').fill('a long password')
    await form.getByRole('button', { name: 'Create account' }).click()
    await page.getByText('Signed in as nora').waitFor()
    await widget.getByText('Confirm your e-mail address to post: follow the link mailed to you when you signed up.').waitFor()
    t.equal(await page.getByLabel('Your shout').count(), 0, 'no composer yet')
    await widget.getByRole('button', { name: 'Send the link again' }).click()
    await widget.getByText('A new link is on its way to your address.').waitFor()
    await page.screenshot({ path: '/tmp/shoutbox-verify-widget.png' })
    t.pass()
  })

  const mails = (await eventually(() => mailbox.to('nora@example.org'), found => found.length === 2, 30_000)).value
  const link = /http:\/\/\S+\/verify-email#token=[A-Za-z0-9_-]{43}/.exec(mails[1]!.text)?.[0]

  await t.test('the newest link confirms the address; the composer appears', async t => {
    t.ok(link, 'the mail holds the link')
    await page.goto(link!)
    await page.getByRole('heading', { name: 'Confirm your address' }).waitFor()
    t.notMatch(page.url(), /token/, 'the token leaves the address bar')
    await page.getByRole('button', { name: 'Confirm my address' }).click()
    await page.getByText('Your address is confirmed: you may post now.').waitFor()
    await page.screenshot({ path: '/tmp/shoutbox-verify-page.png' })
    await page.getByRole('link', { name: 'Back to the home page' }).click()
    const composer = page.getByRole('textbox', { name: 'Your shout' })
    await composer.waitFor()
    await composer.fill('Confirmed, hello!')
    await composer.press('Enter')
    await widget.locator('li', { hasText: 'Confirmed, hello!' }).waitFor()
    t.pass('posted')
  })

  await t.test('the Preferences: mention mails, and a new address by link', async t => {
    await page.getByRole('button', { name: 'Preferences' }).click()
    const form = page.getByRole('region', { name: 'Your preferences' })
    await form.getByLabel('Once a day, in a digest').check()
    await form.getByRole('button', { name: 'Save preferences' }).click()
    await form.getByText('Preferences saved.').waitFor()
    await form.getByText('E-mail address').click()
    await form.getByLabel('New address').fill('nora@new.example.org')
    await form.getByLabel('Your password').fill('a long password')
    await form.getByRole('button', { name: 'Send the link' }).click()
    await form.getByText('A link is on its way to the new address; your address changes when you follow it.').waitFor()
    await page.screenshot({ path: '/tmp/shoutbox-preferences-mail.png', fullPage: true })
    t.pass()
  })
  const preferences = await http(server, 'GET', '/api/users/me/preferences', { cookie: (await http(server, 'POST', '/api/auth/login', { body: { username: 'nora', password: 'a long password' } })).cookie! })
  t.equal((preferences.body as { preferences: { emailMentions: string } }).preferences.emailMentions, 'daily')
  await eventually(() => mailbox.to('nora@new.example.org'), found => found.length === 1, 30_000)
  t.equal(mailbox.to('nora@new.example.org').length, 1, 'the link went to the new address')
  t.same(problems, [], 'no script error, no unexpected console error')
}
