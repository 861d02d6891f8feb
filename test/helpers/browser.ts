import fs from 'node:fs'
import type { Browser } from 'playwright-core'
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
