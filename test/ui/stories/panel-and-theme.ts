import type { Test } from 'tap'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { SETUP_TOKEN } from '../../helpers/app.js'
import { serverStorage, startServer } from '../../helpers/server.js'
import { ensurePages, watchPages } from '../../helpers/browser.js'


/** A shout that would run script if any page rendered it as HTML. */
const XSS = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script> & "quotes"'

/** The panel and the theme, in a real browser. */
export async function story (t: Test, browser: Browser): Promise<void> {
  await ensurePages('ui/panel/panel.js')
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: storage.env })
  const problems: string[] = []
  const context = async (width = 1280, height = 800): Promise<BrowserContext> => {
    const created = await browser.newContext({ viewport: { width, height }, locale: 'en-US' })
    // 400/401/403 are answers this test asks for (a wrong password, a too-long shout, a
    // forced request, "who am I?" signed out). Everything else — script errors, CSP
    // refusals, 404s, 500s — counts.
    watchPages(created, problems, { expected: [400, 401, 403] })
    return created
  }
  const admin = await context()
  const panel = await admin.newPage()

  // One story, told in order: each step builds on the ones before it (the administrator
  // the wizard creates, the shouts, roles and users made on the way, the pages left
  // open), so they are steps of this one test rather than sibling subtests that tap's
  // --grep or a reordering could run alone. Each step's name is printed before its checks.
  const step = async (name: string, run: () => Promise<void>): Promise<void> => {
    t.comment(name)
    await run()
  }

  await step('before setup, the home page says the site is being set up (no sign-in, no "no shouts yet")', async () => {
    const visitorProblems: string[] = []
    const visiting = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' })
    // Every call answers 503 INSTALLATION_REQUIRED before setup: those are asked for here.
    watchPages(visiting, visitorProblems, { expected: [503] })
    const home = await visiting.newPage()
    await home.goto(`${server.url}/`)
    await home.getByText('The shoutbox opens once this site is set up.').waitFor()
    await home.getByText('This site is being set up.').waitFor()
    t.equal(await home.getByRole('button', { name: 'Sign in' }).count(), 0, 'no sign-in to offer')
    t.equal(await home.getByText('No shouts yet').count(), 0)
    t.same(visitorProblems.filter(problem => !problem.includes('EventSource')), [])
    await visiting.close()
  })

  await step('the setup wizard, opened from the link the host prints, creates the administrator and signs them in', async () => {
    await panel.goto(`${server.url}/panel/#/setup?token=${encodeURIComponent(SETUP_TOKEN)}`)
    await panel.getByRole('heading', { name: 'Set up your site' }).waitFor()
    await panel.getByLabel('Username').fill('admin')
    await panel.getByLabel('E-mail address').fill('admin@example.org')
    await panel.getByLabel('Password', { exact: true }).fill('a long password')
    await panel.getByLabel('Password again').fill('a long password')
    await panel.getByRole('button', { name: 'Finish setup' }).click()
    await panel.getByText('Signed in as admin').waitFor()
    t.pass('signed in after setup')
    t.notMatch(panel.url(), /token/, 'the spent token is gone from the address bar')
  })

  await step('the wizard goes on: how many shouts the list shows, 50 filled in; a reload keeps the question', async () => {
    await panel.getByRole('heading', { name: 'Your shout board' }).waitFor()
    await panel.getByText('Step 2 of 2').waitFor()
    t.equal(await panel.getByLabel('Shouts shown in the list').inputValue(), '50')
    await panel.reload()
    await panel.getByRole('heading', { name: 'Your shout board' }).waitFor()
    await panel.getByLabel('Shouts shown in the list').fill('40')
    await panel.getByRole('button', { name: 'Save and continue' }).click()
    await panel.getByRole('navigation', { name: 'Menu' }).waitFor()
    const config = await panel.evaluate(async () => (await fetch('/panel/api/shoutbox/config')).json() as Promise<{ maxShouts: number | null }>)
    t.equal(config.maxShouts, 40, 'the answer is the setting')
    await panel.reload()
    await panel.getByRole('navigation', { name: 'Menu' }).waitFor()
    t.equal(await panel.getByRole('heading', { name: 'Your shout board' }).count(), 0, 'asked once')
  })

  await step('sign out, then sign in with the form', async () => {
    await panel.getByRole('button', { name: 'Sign out' }).click()
    await panel.getByRole('heading', { name: 'Sign in' }).waitFor()
    await panel.getByLabel('Username or e-mail').fill('admin')
    await panel.getByLabel('Password').fill('wrong password')
    await panel.getByRole('button', { name: 'Sign in' }).click()
    await panel.getByText('The username or password is wrong.').waitFor()
    await panel.getByLabel('Password').fill('a long password')
    await panel.getByRole('button', { name: 'Sign in' }).click()
    await panel.getByText('Signed in as admin').waitFor()
    t.pass('errors in words, then in')
  })

  const theme = await (await context()).newPage()
  await theme.goto(`${server.url}/`)
  await theme.getByRole('heading', { name: 'Latest shouts' }).waitFor()

  await step('post a shout; the home page shows it without a reload', async () => {
    await panel.getByRole('link', { name: 'Shouts', exact: true }).click()
    await panel.getByLabel('Message').fill('Welcome to the new site!')
    await panel.getByRole('button', { name: 'Post shout' }).click()
    await panel.getByText('Shout posted.').waitFor()
    await panel.locator('ul.items').getByText('Welcome to the new site!').waitFor()
    await theme.locator('.shoutbox-widget').getByText('Welcome to the new site!').waitFor()
    t.match(await theme.locator('.shoutbox-widget [role="log"] li').first().innerText(), /Welcome to the new site!\s+admin · (now|\d+ seconds? ago)/)
  })

  await step('errors from the API are shown in words', async () => {
    await panel.getByLabel('Message').fill('x'.repeat(501))
    await panel.getByRole('button', { name: 'Post shout' }).click()
    await panel.getByText('The message is too long: at most 500 characters.').waitFor()
    t.pass()
  })

  await step('the activity feed in English, then in Turkish', async () => {
    await panel.getByRole('link', { name: 'Activity' }).click()
    await panel.getByText('admin posted a shout: Welcome to the new site!').waitFor()
    await panel.getByLabel('Language').selectOption('tr')
    await panel.getByRole('link', { name: 'Etkinlik' }).waitFor()
    await panel.getByText('admin bir duyuru paylaştı: Welcome to the new site!').waitFor()
    await panel.getByLabel('Dil').selectOption('en')
    await panel.getByRole('link', { name: 'Activity' }).waitFor()
    t.pass()
  })

  await step('create a role granting "Manage shoutbox", and a user with it', async () => {
    await panel.getByRole('link', { name: 'Roles' }).click()
    const create = panel.getByRole('form', { name: 'Create role' })
    await create.getByLabel('Name').fill('Moderators')
    await create.getByLabel('Panel access').check()
    await create.getByLabel('Manage shoutbox').check()
    await create.getByRole('button', { name: 'Create role' }).click()
    await panel.getByText('Role created.').waitFor()
    const helpers = panel.getByRole('form', { name: 'Create role' })
    await helpers.getByLabel('Name').fill('Helpers')
    await helpers.getByLabel('Panel access').check()
    await helpers.getByRole('button', { name: 'Create role' }).click()
    await panel.getByRole('heading', { name: 'Helpers' }).waitFor()

    await panel.getByRole('link', { name: 'Users' }).click()
    const user = panel.getByRole('form', { name: 'Create user' })
    await user.getByLabel('Username').waitFor()
    t.equal(await user.getByLabel('Role').evaluate(select => (select as HTMLSelectElement).selectedOptions[0]?.textContent), 'member', 'a new account is a member\'s unless chosen otherwise')
    t.notOk(await user.getByLabel('Bot account').isChecked(), 'and a person\'s')
    await user.getByLabel('Username').fill('mod')
    await user.getByLabel('E-mail address').fill('mod@example.org')
    await user.getByLabel('Password').fill('moderator password')
    await user.getByLabel('Role').selectOption({ label: 'Moderators' })
    await user.getByRole('button', { name: 'Create user' }).click()
    await panel.getByText('User created.').waitFor()
    await user.getByLabel('Username').fill('helper')
    await user.getByLabel('E-mail address').fill('helper@example.org')
    await user.getByLabel('Password').fill('helper password')
    await user.getByLabel('Role').selectOption({ label: 'Helpers' })
    await user.getByRole('button', { name: 'Create user' }).click()
    await panel.getByText('helper@example.org · Helpers').waitFor()
    t.pass()
  })

  await step('a bot account gets a token, its shout shows a badge; a webhook shows its secret once and logs a ping', async () => {
    const user = panel.getByRole('form', { name: 'Create user' })
    await user.getByLabel('Username').fill('deploybot')
    await user.getByLabel('E-mail address').fill('deploybot@example.org')
    await user.getByLabel('Bot account').check()
    t.ok(await user.getByLabel('Password').isHidden(), 'a bot account has no password to give')
    await user.getByLabel('Role').selectOption({ label: 'member' })
    await user.getByRole('button', { name: 'Create user' }).click()
    const tokens = panel.getByRole('form', { name: 'API tokens of deploybot' })
    await tokens.getByLabel('Token name').fill('deploys')
    // The permissions by their titles, as on the Roles page; posting ticked.
    t.ok(await tokens.getByRole('checkbox', { name: /^Post shouts/ }).isChecked(), 'Post shouts, ticked')
    t.notOk(await tokens.getByRole('checkbox', { name: /^Manage shoutbox/ }).isChecked(), 'the rest offered by name, unticked')
    await tokens.getByRole('button', { name: 'Make a token' }).click()
    const secret = await panel.locator('.bot-tokens .secret-value').textContent()
    t.match(secret, /^sbx_[A-Za-z0-9_-]{43}$/, 'its secret, shown once')
    await panel.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url })
    await panel.locator('.bot-tokens').getByRole('button', { name: 'Copy' }).click()
    await panel.locator('.bot-tokens').getByText('Copied.').waitFor()
    t.equal(await panel.evaluate(() => navigator.clipboard.readText()), secret, 'Copy puts the secret on the clipboard')
    await panel.locator('.bot-tokens li', { hasText: 'last used never' }).waitFor()
    const posted = await fetch(`${server.url}/api/shoutbox`, {
      method: 'POST', headers: { authorization: `Bearer ${secret!}`, 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Release 2.3 is out' })
    })
    t.equal(posted.status, 200, 'the bot posts with it')
    await theme.locator('.shoutbox-widget li', { hasText: 'Release 2.3 is out' }).locator('.shoutbox-bot').waitFor()
    t.pass('the widget shows the bot badge, live')

    await panel.getByRole('link', { name: 'Webhooks' }).click()
    await panel.getByText(/^https:\/\/ only/).waitFor()
    t.pass('the hint says what this server takes: https:// only (WEBHOOKS_ALLOW_HTTP unset)')
    await panel.getByLabel('URL').fill('http://chat.example.org/hooks/shoutbox')
    await panel.getByRole('button', { name: 'Add a webhook' }).click()
    await panel.getByText('(url must be https:// (http:// needs WEBHOOKS_ALLOW_HTTP=1))', { exact: false }).waitFor()
    t.pass('a refused URL says why, in the API\'s words')
    await panel.getByLabel('URL').fill('https://chat.example.org/hooks/shoutbox')
    await panel.getByRole('button', { name: 'Add a webhook' }).click()
    await panel.getByText('Webhook added.').waitFor()
    t.match(await panel.locator('.secret .secret-value').textContent(), /^whsec_/, 'its signing secret, shown once')
    await panel.getByRole('button', { name: 'Send a ping' }).click()
    await panel.getByText('Ping sent').waitFor()
    await panel.getByRole('button', { name: 'Refresh deliveries' }).click()
    await panel.locator('table.deliveries td', { hasText: 'ping' }).waitFor()
    t.pass('the ping is in its deliveries')
    await panel.getByRole('link', { name: 'Users' }).click()
  })

  const signIn = async (username: string, password: string): Promise<Page> => {
    const page = await (await context(375, 740)).newPage()
    await page.goto(`${server.url}/panel/`)
    await page.getByLabel('Username or e-mail').fill(username)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByText(`Signed in as ${username}`).waitFor()
    return page
  }

  await step('the moderator signs in (on a phone-sized screen) and posts', async () => {
    const mod = await signIn('mod', 'moderator password')
    t.same(await mod.locator('nav.menu a').allInnerTexts(), ['Overview', 'Shouts', 'Rooms', 'Mutes', 'Review', 'Words', 'Shoutbox settings', 'Activity', 'My password'], 'only the pages the role allows')
    await mod.getByRole('link', { name: 'Shouts', exact: true }).click()
    await mod.getByLabel('Message').fill(XSS)
    await mod.getByRole('button', { name: 'Post shout' }).click()
    await mod.getByText('Shout posted.').waitFor()
    await mod.locator('ul.items .text', { hasText: '<img src=x' }).waitFor()
    const scrollWidth = await mod.evaluate(() => document.documentElement.scrollWidth)
    t.ok(scrollWidth <= 375, `no sideways scrolling at 375 px (${scrollWidth})`)
  })

  await step('a user without the permission sees no Shouts page, and a forced request is refused', async () => {
    const helper = await signIn('helper', 'helper password')
    t.same(await helper.locator('nav.menu a').allInnerTexts(), ['Overview', 'Activity', 'My password'])
    await helper.goto(`${server.url}/panel/#/shoutbox/shouts`)
    // A page this user may not open is, for them, no page: it says so, rather than showing Overview as if it were that one.
    await helper.getByRole('heading', { name: 'Page not found' }).waitFor()
    t.equal(await helper.getByLabel('Message').count(), 0, 'no shout form, even by address')
    const forced = await helper.evaluate(async () => {
      const response = await fetch('/panel/api/shoutbox', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":"sneaky"}' })
      return [response.status, await response.json()]
    })
    t.same(forced, [403, { result: 'error', error: 'NO_PERMISSION' }])
  })

  await step('the XSS payload is inert on every page', async () => {
    await theme.locator('.shoutbox-widget').getByText('<img src=x', { exact: false }).waitFor()
    await panel.getByRole('link', { name: 'Activity' }).click()
    await panel.getByText(`mod posted a shout: ${XSS}`).waitFor()
    await panel.getByRole('link', { name: 'Shouts', exact: true }).click()
    await panel.locator('ul.items .text', { hasText: '<img src=x' }).waitFor()
    for (const page of [theme, panel]) {
      t.equal(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss), undefined, 'no script ran')
      t.equal(await page.evaluate(() => document.querySelectorAll('img[src="x"]').length +
        [...document.querySelectorAll('script')].filter(s => s.textContent?.includes('__xss')).length), 0, 'no element was made from it')
    }
    const csp = (await fetch(`${server.url}/panel/`)).headers
    t.match(csp.get('content-security-policy'), /script-src 'self'/)
    t.match(csp.get('content-security-policy'), /frame-ancestors 'none'/)
    t.equal(csp.get('x-frame-options'), 'DENY')
  })

  await step('delete with confirmation', async () => {
    const item = panel.locator('ul.items li', { hasText: 'Welcome to the new site!' })
    await item.getByRole('button', { name: /^Delete/ }).click()
    await item.getByText('Delete this shout?').waitFor()
    await item.getByRole('button', { name: 'Cancel' }).click()
    await item.getByRole('button', { name: /^Delete/ }).click()
    await item.getByRole('button', { name: 'Yes, delete' }).click()
    await panel.getByText('Shout deleted.').waitFor()
    await theme.locator('.shoutbox-widget').getByText('Welcome to the new site!').waitFor({ state: 'detached' })
    t.pass('gone from the panel and the home page')
  })

  await step('a manager changes a user\'s role, disables them and deletes them; each outcome in words', async () => {
    const helper = await signIn('helper', 'helper password')
    await panel.getByRole('link', { name: 'Users' }).click()
    const item = panel.locator('ul.items li', { hasText: 'helper@example.org' })
    const role = panel.getByRole('form', { name: 'Role of helper' })
    await role.getByLabel('Role').selectOption({ label: 'Moderators' })
    await role.getByRole('button', { name: 'Change role' }).click()
    await item.getByText('helper now has the role Moderators. Their sessions have ended.').waitFor()
    await item.getByText('helper@example.org · Moderators').waitFor()
    t.equal(await panel.evaluate(() => document.activeElement?.textContent), 'Change role', 'the focus stays on the button')
    await helper.reload()
    await helper.getByRole('heading', { name: 'Sign in' }).waitFor()

    await panel.getByRole('button', { name: 'Disable helper' }).click()
    await item.getByText('helper is disabled: they cannot sign in, and their sessions have ended.').waitFor()
    await item.getByText('Disabled', { exact: true }).waitFor()
    t.equal(await panel.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Enable helper', 'focus stays on the button, now Enable')
    await helper.getByLabel('Username or e-mail').fill('helper')
    await helper.getByLabel('Password').fill('helper password')
    await helper.getByRole('button', { name: 'Sign in' }).click()
    await helper.getByText('The username or password is wrong.').waitFor()

    await panel.getByRole('button', { name: 'Delete helper' }).click()
    await item.getByText('Delete helper? The account, its sessions and tokens go; its shouts stay under the name “deleted user” or are deleted, as the site\'s settings say. The name can never be taken again.').waitFor()
    t.equal(await panel.evaluate(() => document.activeElement?.textContent), 'Cancel', 'focus on the safe choice')
    await item.getByRole('button', { name: 'Cancel' }).click()
    t.equal(await panel.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Delete helper', 'and back')
    await panel.getByRole('button', { name: 'Delete helper' }).click()
    await item.getByRole('button', { name: 'Yes, delete' }).click()
    await panel.getByText('helper was deleted.').waitFor()
    await item.waitFor({ state: 'detached' })
    await panel.getByRole('link', { name: 'Activity' }).click()
    // Erased, the account is named nowhere: its entries stay, under `deleted user`.
    await panel.getByText(/^admin deleted an account \(#\d+\)$/).waitFor()
    await panel.getByText('admin disabled the user deleted user').waitFor()
    await panel.getByText('admin gave deleted user the role Moderators (was Helpers)').waitFor()
    t.pass()
  })

  await step('a user changes their own password; their other sessions end, this one stays', async () => {
    const elsewhere = await signIn('mod', 'moderator password')
    const mod = await signIn('mod', 'moderator password')
    await mod.getByRole('link', { name: 'My password' }).click()
    const form = mod.getByRole('form', { name: 'My password' })
    await form.getByLabel('Current password').fill('not my password')
    await form.getByLabel('New password', { exact: true }).fill('a brand new password')
    await form.getByLabel('New password again').fill('a brand new password')
    await form.getByRole('button', { name: 'Change password' }).click()
    await form.getByText('The current password is wrong.').waitFor()
    await form.getByLabel('Current password').fill('moderator password')
    await form.getByLabel('New password again').fill('a different one')
    await form.getByRole('button', { name: 'Change password' }).click()
    await form.getByText('The two passwords are not the same.').waitFor()
    await form.getByLabel('New password again').fill('a brand new password')
    await form.getByRole('button', { name: 'Change password' }).click()
    await form.getByText('Password changed. You stay signed in here; your other sessions have ended.').waitFor()
    t.equal(await form.getByLabel('Current password').inputValue(), '', 'the fields are emptied')
    await mod.reload()
    await mod.getByText('Signed in as mod').waitFor()
    await elsewhere.reload()
    await elsewhere.getByRole('heading', { name: 'Sign in' }).waitFor()
    await elsewhere.getByLabel('Username or e-mail').fill('mod')
    await elsewhere.getByLabel('Password').fill('a brand new password')
    await elsewhere.getByRole('button', { name: 'Sign in' }).click()
    await elsewhere.getByText('Signed in as mod').waitFor()
    t.pass()
  })

  await step('no console errors on any page', async () => {
    t.same(problems, [])
  })
}
