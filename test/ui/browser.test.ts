/**
 * The pages in a real browser: one Chromium for every story (starting it and a test
 * process costs seconds each). Each story starts a host of its own on fresh storage, as a
 * site owner would, and closes the windows it opened when it ends.
 */
import t from 'tap'
import { NO_BROWSER, launchBrowser } from '../helpers/browser.js'
import { story as archiveAndPins } from './stories/archive-and-pins.js'
import { story as bridges } from './stories/bridges.js'
import { story as conversation } from './stories/conversation.js'
import { story as directMessages } from './stories/direct-messages.js'
import { story as guests } from './stories/guests.js'
import { story as liveWidget } from './stories/live-widget.js'
import { story as languages } from './stories/languages.js'
import { story as members } from './stories/members.js'
import { story as moderation } from './stories/moderation.js'
import { story as overviewAndDocs } from './stories/overview-and-docs.js'
import { story as panelAndTheme } from './stories/panel-and-theme.js'
import { story as passwordReset } from './stories/password-reset.js'
import { story as pictures } from './stories/pictures.js'
import { story as review } from './stories/review.js'
import { story as rooms } from './stories/rooms.js'
import { story as verifiedAddresses } from './stories/verified-addresses.js'

const stories = [
  ['the panel and the theme, in a real browser', panelAndTheme],
  ['the archive, permalinks and pinned shouts, in a real browser', archiveAndPins],
  ['members on the home page, in a real browser', members],
  ['the widget lives on the stream: every kind of event, no list request, one load per reset', liveWidget],
  ['moderation, in a real browser', moderation],
  ['/docs/api and the Overview page, in a real browser', overviewAndDocs],
  ['rooms: a tab each, unread counts, the keyboard, the panel\'s Rooms page, the archive by room', rooms],
  ['conversation: reply with a quote, react by mouse and keyboard, counts live on every page', conversation],
  ['review: watched words, a report by keyboard, a held shout, the review queue', review],
  ['password reset: forgot password, the mail, its link, a new password, signed in', passwordReset],
  ['languages: a German and an Arabic browser see their language on every page; Arabic right to left, axe clean', languages],
  ['bridges: the Incoming hooks page, a shout via a hook, the Webhooks formats', bridges],
  ['guests and presence: a guest posts by keyboard, "N here"', guests],
  ['verified addresses: the widget says why, the link confirms, the preferences mail', verifiedAddresses],
  ['direct messages: start a conversation from a shout, reply, react, by keyboard; axe', directMessages],
  ['pictures: attach with alt text, the thumbnail opened and closed by keyboard, archive, permalink, review queue', pictures]
] as const

/** A story takes 10–40 s here, alone; three minutes leaves room for a machine busy with other tests. */
const STORY_TIMEOUT_MS = 180_000
// The file's limit is tap's three minutes a file, which five stories can pass together.
t.setTimeout(stories.length * STORY_TIMEOUT_MS)

t.test('the pages, in a real browser', { skip: NO_BROWSER }, async t => {
  const browser = await launchBrowser(t)
  // SHOUTBOX_STORY=<words> runs only the stories whose names hold them (while working on one).
  const only = process.env.SHOUTBOX_STORY
  for (const [name, story] of stories.filter(([name]) => only === undefined || name.includes(only))) {
    await t.test(name, { timeout: STORY_TIMEOUT_MS }, async t => {
      t.teardown(async () => { for (const context of browser.contexts()) await context.close() })
      await story(t, browser)
    })
  }
})
