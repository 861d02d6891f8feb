/**
 * axe-core over every page and state, in both themes (CONTRACT §20). The pages are the
 * same whichever database serves them, so this runs once, on the embedded one.
 */
import t from 'tap'
import { NO_BROWSER, launchBrowser } from '../helpers/browser.js'
import { DB_KIND } from '../helpers/database.js'
import { story } from './stories/accessibility.js'

// About 100 s here alone, 365 s on 2026-11-27 beside other tests on a slow machine: room
// for that, within the test runner's own limit for a file run alone (180 + 900 s).
t.setTimeout(900_000)

t.test('accessibility: axe-core over every page and state, light and dark, in a real browser', {
  skip: NO_BROWSER || (DB_KIND === 'postgres' && 'the pages do not depend on the database: checked on the embedded run')
}, async t => {
  await story(t, await launchBrowser(t))
})
