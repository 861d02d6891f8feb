import type { Test } from 'tap'
import type { Browser } from 'playwright-core'
import { ADMIN } from '../../helpers/app.js'
import { ensurePages, watchPages } from '../../helpers/browser.js'
import { eventually } from '../../helpers/eventually.js'
import { freePort, http, serverStorage, startServer } from '../../helpers/server.js'
import { smtpServer } from '../../helpers/smtp.js'

/** CONTRACT §24 in a real browser: forgot password → the mail → its link → a new password → signed in. */
export async function story (t: Test, browser: Browser): Promise<void> {
  await ensurePages('ui/theme/password-reset.js')
  const mailbox = await smtpServer(t)
  const storage = await serverStorage(t)
  const port = await freePort()
  const server = await startServer(t, { port, env: { ...storage.env, SMTP_URL: mailbox.url, PUBLIC_URL: `http://127.0.0.1:${port}` } })
  await http(server, 'POST', '/api/setup/finish', { body: ADMIN })

  const problems: string[] = []
  const context = await browser.newContext({ viewport: { width: 1024, height: 768 }, locale: 'en-US' })
  // Signed out, "who am I?" answers 401.
  watchPages(context, problems, { expected: [401], dialogs: true })
  const page = await context.newPage()

  await t.test('"Forgot your password?" under the sign-in form asks for a link', async t => {
    await page.goto(`${server.url}/`)
    await page.getByRole('group', { name: 'Account' }).getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('link', { name: 'Forgot your password?' }).click()
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor()
    await page.getByLabel('E-mail address').fill(ADMIN.email)
    await page.getByRole('button', { name: 'Send the link' }).click()
    await page.getByText('If that address belongs to an account, a mail with a link is on its way.').waitFor()
    t.pass('the page says the same whatever the address')
  })

  const mail = (await eventually(() => mailbox.to(ADMIN.email), mails => mails.length === 1, 30_000)).value[0]!
  const link = /http:\/\/\S+\/password-reset#token=[A-Za-z0-9_-]{43}/.exec(mail.text)?.[0]

  await t.test('the link opens a form for the new password; saving it signs in', async t => {
    t.ok(link, 'the mail holds the link')
    await page.goto(link!)
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor()
    t.notMatch(page.url(), /token/, 'the token leaves the address bar')
    await page.getByLabel('New password').fill('a fresh new password')
    await page.screenshot({ path: '/tmp/shoutbox-password-reset.png' })
    await page.getByRole('button', { name: 'Set the new password' }).click()
    await page.getByText('Your password is set, and you are signed in.').waitFor()
    await page.getByRole('link', { name: 'Back to the home page' }).click()
    await page.getByText(`Signed in as ${ADMIN.username}`).waitFor()
    t.pass('signed in with the new password\'s session')
  })

  await t.test('the same link a second time says it no longer works', async t => {
    await page.goto(link!)
    await page.getByLabel('New password').fill('yet another password')
    await page.getByRole('button', { name: 'Set the new password' }).click()
    await page.getByText('This link has been used, replaced by a newer one, or is over 30 minutes old.').waitFor()
    t.pass()
  })

  const signIn = await http(server, 'POST', '/api/auth/login', { body: { username: ADMIN.username, password: 'a fresh new password' } })
  t.equal(signIn.status, 200, 'the new password signs in')
  t.same(problems.filter(p => !/status of 400/.test(p)), [], 'no script error, no unexpected console error')
}
