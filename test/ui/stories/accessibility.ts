import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { Test } from 'tap'
import type { Browser, Page } from 'playwright-core'
import { ADMIN } from '../../helpers/app.js'
import { http, serverStorage, startServer } from '../../helpers/server.js'
import { ensurePages, watchPages } from '../../helpers/browser.js'

/**
 * CONTRACT §20 in a browser: axe-core's WCAG 2.0, 2.1 and 2.2 A and AA rules over every
 * page in each state a person meets (visitor, member, muted member, moderator, each panel
 * page, the setup wizard, the archive, a permalink, the privacy page), in the light and
 * the dark theme, find nothing.
 */

const PASSWORD = 'a long password'
const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
const WCAG_A_AND_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa']

interface Violation { id: string, help: string, nodes: Array<{ target: string[], failureSummary?: string }> }

/** axe-core's violations on the page as it is now, each with the first few elements it names. */
export async function axeViolations (page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the pages' CSP does not stop.
  if (!await page.evaluate('typeof window.axe === "object"')) await page.evaluate(AXE_SOURCE)
  const violations = await page.evaluate(async tags => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: unknown) => Promise<{ violations: Violation[] }> } }).axe
    return (await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] })).violations
  }, WCAG_A_AND_AA) as Violation[]
  return violations.map(v => `${v.id} (${v.help}): ${v.nodes.slice(0, 4).map(n => `${n.target.join(' ')} — ${(n.failureSummary ?? '').replace(/\s+/g, ' ')}`).join(' | ')}`)
}

type Ready = (page: Page) => Promise<unknown>
interface State { name: string, url: string, cookie?: string, ready: Ready }

/** Accessibility, in a real browser. */
export async function story (t: Test, browser: Browser): Promise<void> {
  await ensurePages('addon/shoutbox/ui/widget.js')
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: storage.env })
  const problems: string[] = []
  // SHOUTBOX_SCREENSHOTS_DIR=<dir> also keeps a screenshot of each page at 360, 768 and
  // 1280 px in both themes (and checks each of them); without it, each page is checked
  // light at 1280 px and dark at a phone's 360 px: both themes, both ends of the widths.
  const shots = process.env.SHOUTBOX_SCREENSHOTS_DIR
  if (shots !== undefined) fs.mkdirSync(shots, { recursive: true })
  const views = shots === undefined
    ? [['light', 1280], ['dark', 360]] as const
    : (['light', 'dark'] as const).flatMap(scheme => [360, 768, 1280].map(width => [scheme, width] as const))
  const check = async (t: Test, state: State): Promise<void> => {
    for (const [colorScheme, width] of views) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'en-US', colorScheme })
      // Asked for: "who am I?" signed out (401); the muted member's refusal (403).
      watchPages(context, problems, { expected: [401, 403] })
      if (state.cookie !== undefined) await context.addCookies([{ name: state.cookie.split('=')[0]!, value: state.cookie.split('=')[1]!, url: server.url }])
      const page = await context.newPage()
      await page.goto(server.url + state.url)
      await state.ready(page)
      t.same(await axeViolations(page), [], `${state.name}, ${colorScheme}, ${width} px: no violation`)
      t.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= width, `${state.name}, ${width} px: no sideways scrolling`)
      if (shots !== undefined) {
        const file = `${state.name.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '').toLowerCase()}-${width}-${colorScheme}.png`
        await page.screenshot({ path: path.join(shots, file), fullPage: !state.url.startsWith('/docs/') })
      }
      await context.close()
    }
  }

  await t.test('the setup wizard', t => check(t, { name: 'setup', url: '/panel/', ready: page => page.getByRole('heading', { name: /set up/i }).waitFor() }))

  const admin = (await http(server, 'POST', '/api/setup/finish', { body: ADMIN })).cookie!
  /** The board as a site has it after a while: each call must succeed. */
  const call = async (method: string, url: string, body?: Record<string, unknown>, cookie = admin): Promise<Record<string, unknown>> => {
    const answer = await http(server, method, url, { body, cookie })
    t.equal(answer.status, 200, `${method} ${url}`)
    return answer.body!
  }
  await call('PUT', '/api/panel/settings', { signUp: true })
  await call('PUT', '/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 })
  // Two rooms besides General, so the panel's Rooms page has buttons to move them.
  await call('POST', '/api/panel/shoutbox/rooms', { slug: 'members', name: 'Members', read: 'signed-in', description: 'For the members' })
  await call('POST', '/api/panel/shoutbox/rooms', { slug: 'games', name: 'Games', read: 'everyone' })
  const { roles } = await call('GET', '/api/panel/roles') as { roles: Array<{ id: number, name: string }> }
  const roleId = roles.find(role => role.name === 'member')!.id
  const users: Record<string, number> = {}
  for (const username of ['ayse', 'bora', 'loud_larry']) {
    users[username] = (await call('POST', '/api/panel/users', { username, email: `${username}@example.org`, password: PASSWORD, roleId }) as { user: { id: number } }).user.id
  }
  const signIn = async (username: string): Promise<string> => (await http(server, 'POST', '/api/auth/login', { body: { username, password: PASSWORD } })).cookie!
  const ayse = await signIn('ayse')
  const bora = await signIn('bora')
  const larry = await signIn('loud_larry')
  const post = async (cookie: string, message: string, replyTo?: number): Promise<number> =>
    (await call('POST', '/api/shoutbox', { message, ...(replyTo === undefined ? {} : { replyTo }) }, cookie) as { shout: { id: number } }).shout.id
  // From the panel, so the activity feed has it.
  await call('POST', '/api/panel/shoutbox', { message: 'Server maintenance tonight from 23:00.' })
  const welcome = await post(admin, 'Welcome to the new site! Say hello in the forum.')
  const picnic = await post(bora, 'Who is coming to the picnic on Sunday? https://example.org/picnic')
  await post(ayse, '@bora count me in, I will bring lemonade :tada:', picnic)
  await post(larry, 'BUY CHEAP WATCHES NOW')
  await call('PUT', `/api/panel/shoutbox/${welcome}/pin`, { pinned: true })
  await call('PUT', `/api/shoutbox/shouts/${picnic}/reactions/${encodeURIComponent('👍')}`, undefined, ayse)
  await call('POST', '/api/panel/shoutbox/mutes', { userId: users.loud_larry, minutes: 1440, reason: 'Posting the same link over and over' })
  await call('POST', '/api/panel/shoutbox/words', { pattern: 'cheap watches here', action: 'hold' })
  await call('POST', '/api/shoutbox', { message: 'cheap watches here, and more' }, bora)
  await call('POST', '/api/panel/webhooks', { url: 'https://example.org/hook', events: ['shout.created'] })
  // A bridge: a shout through an incoming hook, marked "via" on every page that shows it.
  const incoming = await call('POST', '/api/panel/shoutbox/incoming', { room: 'general', name: 'Discord #lobby' }) as { url: string }
  t.equal((await http(server, 'POST', new URL(incoming.url).pathname, { body: { content: 'Hello from the Discord side', username: 'grace' } })).status, 200)

  const widget = (text: string): Ready => page => page.locator('.shoutbox-widget').getByText(text).first().waitFor()
  /** The shout that says `text` (not a reply that quotes it). */
  const item = (page: Page, text: string) => page.locator('.shoutbox-widget li', { has: page.locator('p.text', { hasText: text }) })
  const site: State[] = [
    { name: 'the home page, a visitor', url: '/', ready: widget('Who is coming to the picnic') },
    { name: 'the sign-in form', url: '/#sign-in', ready: page => page.getByRole('region', { name: 'Sign in' }).waitFor() },
    { name: 'the sign-up form', url: '/#sign-up', ready: page => page.getByRole('region', { name: 'Create an account' }).waitFor() },
    { name: 'the home page, a member', url: '/', cookie: ayse, ready: page => page.getByRole('textbox', { name: 'Your shout' }).waitFor() },
    {
      name: 'the home page, a member\'s preferences open',
      url: '/',
      cookie: ayse,
      ready: async page => {
        await page.getByRole('button', { name: 'Preferences' }).click()
        await page.getByRole('region', { name: 'Preferences' }).waitFor()
      }
    },
    { name: 'the home page, a member replying', url: '/', cookie: ayse, ready: async page => {
      await item(page, 'Who is coming to the picnic').getByRole('button', { name: /^Reply/ }).click()
      await page.locator('#shoutbox-replying').getByText('Replying to bora').waitFor()
    } },
    { name: 'the home page, a member choosing a reaction', url: '/', cookie: ayse, ready: async page => {
      await item(page, 'Who is coming to the picnic').getByRole('button', { name: 'React to the shout by bora' }).click()
      await page.getByRole('group', { name: 'Reactions to choose from' }).waitFor()
    } },
    { name: 'the home page, the emoji picker open', url: '/', cookie: ayse, ready: async page => {
      await page.getByRole('button', { name: 'Insert an emoji' }).click()
      await page.getByRole('dialog', { name: 'Emoji' }).getByRole('heading', { name: 'Smileys & Emotion' }).waitFor()
    } },
    { name: 'the home page, a member reporting a shout', url: '/', cookie: ayse, ready: async page => {
      await item(page, 'BUY CHEAP WATCHES').getByRole('button', { name: /^Report/ }).click()
      await page.getByRole('form', { name: /^Report loud_larry/ }).waitFor()
    } },
    { name: 'the home page, a member\'s notifications open', url: '/', cookie: bora, ready: async page => {
      await page.getByRole('button', { name: /^Notifications, 1 unread/ }).click()
      await page.getByRole('region', { name: 'Notifications' }).getByRole('link').first().waitFor()
    } },
    { name: 'the home page, a muted member', url: '/', cookie: larry, ready: page => page.locator('.shoutbox-widget').getByText(/muted/i).first().waitFor() },
    { name: 'the home page, a moderator', url: '/', cookie: admin, ready: page => page.getByRole('button', { name: /^Mute — shout by bora/ }).first().waitFor() },
    { name: 'the home page, a moderator muting a member', url: '/', cookie: admin, ready: async page => {
      await item(page, 'Who is coming to the picnic').getByRole('button', { name: /^Mute/ }).click()
      await page.getByRole('form', { name: 'Mute bora in the shoutbox' }).waitFor()
    } },
    { name: 'the archive', url: '/shouts', ready: page => page.getByText('Who is coming to the picnic').first().waitFor() },
    { name: 'a shout\'s own page', url: `/shouts/${picnic}`, ready: page => page.getByText('Who is coming to the picnic').first().waitFor() },
    { name: 'the privacy page', url: '/privacy', ready: page => page.getByRole('heading', { level: 1 }).waitFor() },
    { name: 'the password reset page', url: '/password-reset', ready: page => page.getByLabel('E-mail address').waitFor() },
    { name: 'the password reset page, from a mailed link', url: `/password-reset#token=${'A'.repeat(43)}`, ready: page => page.getByLabel('New password').waitFor() },
    { name: 'the e-mail change page, from a mailed link', url: `/email-change#token=${'A'.repeat(43)}`, ready: page => page.getByRole('button', { name: 'Confirm the new address' }).waitFor() },
    { name: 'the address confirmation page, from a mailed link', url: `/verify-email#token=${'A'.repeat(43)}`, ready: page => page.getByRole('button', { name: 'Confirm my address' }).waitFor() },
    { name: 'the address confirmation page, asking for the link again', url: '/verify-email', ready: page => page.getByLabel('E-mail address').waitFor() },
    { name: 'the unsubscribe page, from a mention mail', url: `/unsubscribe#user=2&token=${'A'.repeat(43)}`, ready: page => page.getByRole('button', { name: 'Stop mailing me mentions' }).waitFor() },
    { name: 'the panel\'s sign-in', url: '/panel/', ready: page => page.getByRole('heading', { name: 'Sign in' }).waitFor() },
    { name: 'the API reference', url: '/docs/api', ready: page => page.locator('section.op').first().waitFor() }
  ]
  const panel = (key: string, ready: Ready): State => ({ name: `the panel's ${key}`, url: `/panel/#/${key}`, cookie: admin, ready })
  const pages: State[] = [
    panel('overview', page => page.locator('svg.chart rect').last().waitFor()),
    panel('shoutbox/shouts', page => page.getByText('Who is coming to the picnic').first().waitFor()),
    panel('shoutbox/rooms', page => page.getByRole('form', { name: /Members/ }).waitFor()),
    panel('shoutbox/mutes', page => page.getByText('loud_larry').first().waitFor()),
    panel('shoutbox/review', page => page.getByText('cheap watches here, and more').first().waitFor()),
    panel('shoutbox/words', page => page.getByText('cheap watches here').first().waitFor()),
    panel('shoutbox/settings', page => page.getByLabel('Longest message (characters)').waitFor()),
    panel('activity', page => page.getByText('admin posted a shout').first().waitFor()),
    panel('roles', page => page.getByRole('heading', { name: 'member' }).first().waitFor()),
    panel('users', page => page.getByText('bora@example.org').waitFor()),
    panel('addons', page => page.getByText('Shoutbox 0.1.0').waitFor()),
    panel('settings', page => page.getByLabel('Role of new accounts').waitFor()),
    panel('webhooks', page => page.getByText('https://example.org/hook').first().waitFor()),
    panel('shoutbox/incoming', page => page.getByText('Discord #lobby').first().waitFor()),
    panel('mail', page => page.getByText('No mail yet.').waitFor()),
    panel('password', page => page.getByLabel('Current password').waitFor())
  ]
  for (const state of [...site, ...pages]) await t.test(state.name, t => check(t, state))

  await t.test('less motion when the reader asks for it: following a quote jumps to the shout and marks it without an animation', async t => {
    for (const reducedMotion of ['reduce', 'no-preference'] as const) {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US', reducedMotion })).newPage()
      await page.goto(`${server.url}/`)
      await page.locator('.shoutbox-widget .quote a').first().click()
      const original = item(page, 'Who is coming to the picnic')
      await page.waitForFunction(() => document.activeElement?.classList.contains('shoutbox-flash') === true)
      const animation = await original.evaluate(element => getComputedStyle(element).animationName)
      if (reducedMotion === 'reduce') t.equal(animation, 'none', 'no animation: a still outline marks it')
      else t.equal(animation, 'shoutbox-flash', 'otherwise it flashes')
      await page.context().close()
    }
  })

  await t.test('what only a screen reader hears is not drawn: a reaction\'s words on the archive and a shout\'s page', async t => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' })).newPage()
    for (const url of ['/shouts', `/shouts/${picnic}`]) {
      await page.goto(server.url + url)
      const words = page.locator('.reactions .sr', { hasText: '1 reaction' }).first()
      await words.waitFor({ state: 'attached' })
      // The page adds its stylesheet as it starts; on a busy machine the shouts can be drawn before it applies.
      await page.waitForFunction(() => [...document.styleSheets].some(sheet => sheet.href?.endsWith('/history.css') === true))
      const box = await words.boundingBox()
      t.ok(box !== null && box.width <= 1 && box.height <= 1, `${url}: "1 reaction" is for screen readers only`)
    }
    await page.context().close()
  })

  t.same(problems, [], 'no script error, no console error')
}
