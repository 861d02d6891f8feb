import t from 'tap'
import { build, setUp } from '../helpers/app.js'
import { as } from '../helpers/requests.js'

/** `GET /api/privacy` (drawn by the `/privacy` page): what is stored, why, for how long — from the settings as they are now. */

t.test('the privacy notes follow the settings', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const notes = async (locale = 'en') => (await as(app, undefined).get(`/api/privacy?locale=${locale}`)).json().notes as Array<{ what: string, why: string, kept: string }>
  const keptFor = async (what: RegExp, locale = 'en') => (await notes(locale)).find(note => what.test(note.what))?.kept

  const first = await notes()
  t.ok(first.length >= 11, `${first.length} rows: the host's and the board's`)
  t.ok(first.every(note => note.what !== '' && note.why !== '' && note.kept !== '' && !note.kept.includes('{')), 'each filled in, no placeholder left')
  t.match(await keptFor(/^The activity log/), /no limit/)
  t.match(await keptFor(/^Your shouts/), /no age limit/)
  t.match(await keptFor(/internet address/), /an hour at most.*kept outside the database/)
  t.match(await keptFor(/^A session/), /^30 days/)
  t.match(await keptFor(/^When you delete your account/), /^Your shouts stay, under the name “deleted user”.*the reports you filed stay, without their note and without your name/,
    'what erasure does to shouts and reports, under the site\'s erasure (anonymise by default)')
  t.match(await keptFor(/^Your reactions, the reports you file/), /a deleted account's reports stay, without their note/)

  await as(app, admin).put('/api/panel/settings', { activityKeepDays: 90 })
  await as(app, admin).put('/api/panel/shoutbox/config', { keepDays: 7 })
  t.equal(await keptFor(/^The activity log/), '90 days', 'the activity log\'s retention, as set now')
  t.match(await keptFor(/^Your shouts/), /^7 days/, 'and the board\'s')
  t.match(await keptFor(/^Mesajlarınız/, 'tr'), /^7 gün/, 'in Turkish too')
  await as(app, admin).put('/api/panel/settings', { erasure: 'delete' })
  t.match(await keptFor(/^When you delete your account/), /^Your shouts are deleted with the account/, 'and as it is set now')

  const page = await app.inject({ url: '/privacy' })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /text\/html/)
  t.match(page.body, /<script type="module" src="\/theme\/privacy.js">/)
  t.match(page.headers['content-security-policy'], /script-src 'self'/)
})
