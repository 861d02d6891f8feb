import fs from 'node:fs'
import type { Browser, BrowserContext } from 'playwright-core'
import { buildUi } from '../../scripts/build-ui.js'
import type { Tap } from './types.js'

/** Debian's Chromium (`apt-get install -y chromium`): the browser tests never download a browser. */
export const CHROMIUM = '/usr/bin/chromium'

const missing = !fs.existsSync(CHROMIUM)
if (missing && process.env.CI === 'true') throw new Error(`CI needs ${CHROMIUM} for the browser tests: apt-get install -y chromium`)

/** A browser test's `skip`: false, or why it cannot run on this machine. */
export const NO_BROWSER: string | false = missing && `Chromium is not installed (${CHROMIUM}): apt-get install -y chromium`

/** Builds the pages unless `built` (a file under dist/) is there already: before a server starts, so it serves them. */
export async function ensurePages (built: string): Promise<void> {
  if (!fs.existsSync(new URL(`../../dist/${built}`, import.meta.url))) await buildUi()
}

/** Headless Chromium, closed when `t` ends. */
export async function launchBrowser (t: Tap): Promise<Browser> {
  const { chromium } = await import('playwright-core')
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] })
  t.teardown(() => browser.close())
  return browser
}

/**
 * Records in `problems` what no page of `context` may do: a script error; a console error,
 * except Chromium's line for an answer whose status is in `expected` (it logs every 4xx as
 * one, and some are answers a test asks for); with `dialogs`, any dialog (dismissed).
 */
export function watchPages (context: BrowserContext, problems: string[], { expected = [], dialogs = false }: { expected?: readonly number[], dialogs?: boolean } = {}): void {
  const asked = new RegExp(`^Failed to load resource: the server responded with a status of (${expected.join('|')}) `)
  context.on('page', page => {
    page.on('console', message => {
      if (message.type() === 'error' && (expected.length === 0 || !asked.test(message.text()))) problems.push(`console: ${message.text()}`)
    })
    page.on('pageerror', error => problems.push(`page error: ${error.message}`))
    if (dialogs) {
      page.on('dialog', dialog => {
        problems.push(`a dialog opened: ${dialog.message()}`)
        void dialog.dismiss()
      })
    }
  })
}
