import t from 'tap'
import { build, setUp, type App } from '../../helpers/app.js'
import { eventually } from '../../helpers/eventually.js'
import { ACCOUNT_PASSWORD, account, feed, roleWith } from '../../helpers/identity.js'
import { answer, as, error } from '../../helpers/requests.js'
import { smtpServer, type Mailbox, type ReceivedMail } from '../../helpers/smtp.js'
import { Mentions } from '../../../src/shoutbox/mentions.js'

/**
 * Mention mails (the preference `emailMentions`): unread mentions mailed after 15 minutes
 * in one mail, or in a daily digest, each mail with RFC 8058's one-click unsubscribe; what
 * a mail lists is asked of the access policy when it is written. The mailer's clock is the
 * test's (`now`), so no test waits 15 minutes; mails go to a real SMTP server.
 */

const PUBLIC_URL = 'http://shouts.example.test'
const MINUTE = 60_000
const DEFAULTS = { sound: false, desktopNotifications: false, theme: 'system', locale: null, emailMentions: 'off' }

const arrived = async (mailbox: Mailbox, to: string, count: number): Promise<ReceivedMail[]> =>
  (await eventually(() => mailbox.to(to), mails => mails.length >= count)).value
const unsubscribeUrl = (mail: ReceivedMail): string => {
  const url = /^<(.+)>$/.exec(mail.headers['list-unsubscribe'] ?? '')?.[1]
  if (url === undefined) throw new Error(`no List-Unsubscribe in ${JSON.stringify(mail.headers)}`)
  return url.slice(PUBLIC_URL.length)
}
/** What a mail client sends for a one-click unsubscribe (RFC 8058 §3.1). */
const oneClick = (app: App, url: string, headers: Record<string, string> = {}) => app.inject({
  method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, payload: 'List-Unsubscribe=One-Click'
})

t.test('mention mails', async t => {
  const mailbox = await smtpServer(t)
  let later = 0
  const app = await build(t, {
    config: { smtpUrl: mailbox.url, publicUrl: PUBLIC_URL },
    mail: { pollMs: 20, retryDelayMs: () => 30, now: () => Date.now() + later }
  })
  const admin = await setUp(app)
  await as(app, admin).put('/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 })
  const made = await as(app, admin).post('/api/panel/shoutbox/rooms', { slug: 'staff', name: 'Staff', read: 'panel.access', post: 'panel.access' })
  if (made.statusCode !== 200) throw new Error(made.body)
  const mira = await account(app, admin, 'mira')
  const say = async (cookie: string, message: string, room = 'general'): Promise<number> => {
    const posted = await as(app, cookie).post(`/api/shoutbox/rooms/${room}/shouts`, { message })
    if (posted.statusCode !== 200) throw new Error(posted.body)
    await Mentions.of(app.addons.runtimes.get('shoutbox')!.ctx).settled()
    return posted.json().shout.id
  }
  /** Lets `ms` pass on the mailer's clock, then runs one round of this process's mailer. */
  const after = async (ms: number): Promise<number> => {
    later += ms
    return await app.mail.mentions.round()
  }
  const choose = async (cookie: string, emailMentions: string, locale = 'en') => as(app, cookie).put(`/api/users/me/preferences?locale=${locale}`, { emailMentions })

  t.test('off by default; a member chooses batched or daily; anything else is refused', async t => {
    const omar = await account(app, admin, 'omar')
    t.same(answer(await as(app, omar).get('/api/users/me/preferences')), [200, { result: 'ok', preferences: DEFAULTS }])
    t.equal((await choose(omar, 'hourly')).statusCode, 400)
    t.same(answer(await choose(omar, 'batched')), [200, { result: 'ok', preferences: { ...DEFAULTS, emailMentions: 'batched' } }])
    t.same(answer(await as(app, omar).put('/api/users/me/preferences', { sound: true })), [200, { result: 'ok', preferences: { ...DEFAULTS, sound: true, emailMentions: 'batched' } }], 'other fields leave it as it is')
  })

  t.test('batched: a mention still unread after 15 minutes is mailed once, with every other unread one', async t => {
    const pia = await account(app, admin, 'pia')
    const piaId = (await app.db('users').where({ username: 'pia' }).first('id')).id
    await choose(pia, 'batched')
    const first = await say(mira, 'Hey @pia, lunch?')
    t.equal(await after(0), 0, 'not before 15 minutes')
    t.equal(await after(14 * MINUTE), 0, 'nor at 14')
    const second = await say(mira, '@pia and the report too')
    t.equal(await after(2 * MINUTE), 1, 'at 16 minutes, one mail')
    const [mail] = await arrived(mailbox, 'pia@example.org', 1)
    t.equal(mail!.subject, '2 mentions waiting for you on shouts.example.test')
    t.match(mail!.text, 'Hello pia, you were mentioned and have not read it yet:')
    t.match(mail!.text, `mira in general: Hey @pia, lunch?\n${PUBLIC_URL}/shouts/${first}`)
    t.match(mail!.text, `mira in general: @pia and the report too\n${PUBLIC_URL}/shouts/${second}`, 'the younger one rides along')
    t.match(mail!.html, `<a href="${PUBLIC_URL}/shouts/${first}">mira in general: Hey @pia, lunch?</a>`)
    t.match(mail!.headers['list-unsubscribe'], new RegExp(`^<${PUBLIC_URL}/api/mail/unsubscribe\\?user=${piaId}&token=[A-Za-z0-9_-]{43}>$`))
    t.equal(mail!.headers['list-unsubscribe-post'], 'List-Unsubscribe=One-Click')
    t.match(mail!.text, `${PUBLIC_URL}/unsubscribe#user=${piaId}&token=`, 'and a link in the text for people')
    t.equal(await after(60 * MINUTE), 0, 'the same mentions are never mailed twice')
    await say(mira, 'one more, @pia')
    t.equal(await after(16 * MINUTE), 1, 'a later one is mailed on its own')
    const [, next] = await arrived(mailbox, 'pia@example.org', 2)
    t.equal(next!.subject, '1 mention waiting for you on shouts.example.test')
  })

  t.test('a mention read within 15 minutes is not mailed; off mails nothing', async t => {
    const rex = await account(app, admin, 'rex')
    await account(app, admin, 'sam')
    await choose(rex, 'batched')
    await say(mira, '@rex did you see?')
    await say(mira, '@sam did you see?')
    t.same(answer(await as(app, rex).post('/api/notifications/read', { all: true })).slice(0, 1), [200])
    t.equal(await after(16 * MINUTE), 0)
    t.same(mailbox.to('rex@example.org'), [])
    t.same(mailbox.to('sam@example.org'), [], 'a member who left it off')
  })

  t.test('turned on later, the mentions already there are not mailed', async t => {
    const tom = await account(app, admin, 'tom')
    await say(mira, '@tom from before')
    await choose(tom, 'batched')
    t.equal(await after(16 * MINUTE), 0)
  })

  t.test('the access policy is asked when the mail is written: a room its reader lost is left out', async t => {
    const clerks = await roleWith(app, admin, 'clerks', ['panel.access'])
    const uma = await account(app, admin, 'uma', clerks)
    const umaId = (await app.db('users').where({ username: 'uma' }).first('id')).id
    await choose(uma, 'batched')
    await say(admin, '@uma the staff secret: launch code 1234', 'staff')
    t.equal((await as(app, admin).put(`/api/panel/users/${umaId}`, { roleId: 2 })).statusCode, 200, 'uma is a plain member now')
    t.equal(await after(16 * MINUTE), 0, 'nothing she may read: no mail')
    await say(mira, '@uma in general, which she reads', 'general')
    t.equal(await after(16 * MINUTE), 1)
    const [mail] = await arrived(mailbox, 'uma@example.org', 1)
    t.notMatch(mail!.text + mail!.html, 'launch code', 'the staff room\'s mention is not in it')
    t.match(mail!.text, 'in general, which she reads')
  })

  t.test('daily: one digest a day, in the language it was chosen in', async t => {
    const vur = await account(app, admin, 'vur')
    await choose(vur, 'daily', 'tr')
    await say(mira, '@vur günaydın')
    t.equal(await after(16 * MINUTE), 0, 'no mail before the day is over')
    t.equal(await after(24 * 60 * MINUTE), 1)
    const [mail] = await arrived(mailbox, 'vur@example.org', 1)
    t.equal(mail!.subject, 'shouts.example.test üzerinde bugünkü anılmalarınız')
    t.match(mail!.text, 'general içinde mira: @vur günaydın')
    t.match(mail!.text, 'Durdurmak için bu bağlantıyı izleyin')
    await say(mira, '@vur again')
    t.equal(await after(60 * MINUTE), 0, 'the next digest waits for the next day')
    t.equal(await after(24 * 60 * MINUTE), 1)
  })

  t.test('one-click unsubscribe: one POST without a session turns them off, logged; a second changes nothing', async t => {
    const wes = await account(app, admin, 'wes')
    await choose(wes, 'batched')
    await say(mira, '@wes hello')
    await after(16 * MINUTE)
    const [mail] = await arrived(mailbox, 'wes@example.org', 1)
    const url = unsubscribeUrl(mail!)
    t.equal((await app.inject({ url })).statusCode, 404, 'a GET (a link scanner) unsubscribes nobody')
    t.equal((await as(app, wes).get('/api/users/me/preferences')).json().preferences.emailMentions, 'batched')
    t.same(answer(await oneClick(app, url)), [200, { result: 'ok' }])
    t.equal((await as(app, wes).get('/api/users/me/preferences')).json().preferences.emailMentions, 'off')
    t.same((await feed(app, admin, 1))[0]?.text, 'wes stopped mention mails from the link in one')
    t.same(answer(await oneClick(app, url)), [200, { result: 'ok' }], 'again: the same answer')
    await say(mira, '@wes still there?')
    t.equal(await after(16 * MINUTE), 0, 'no more mails')
    const multipart = await app.inject({ method: 'POST', url, headers: { 'content-type': 'multipart/form-data; boundary=x' }, payload: '--x\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--x--\r\n' })
    t.equal(multipart.statusCode, 200, 'multipart/form-data too (RFC 8058 allows either)')
    t.equal((await as(app, wes).post(url, {})).statusCode, 200, 'and the page\'s JSON POST')
  })

  t.test('attacks on the unsubscribe link: forged, another account\'s, a burst, another site, forms elsewhere', async t => {
    const xia = await account(app, admin, 'xia')
    const yan = await account(app, admin, 'yan')
    await choose(xia, 'batched')
    await choose(yan, 'batched')
    await say(mira, '@xia hello')
    await after(16 * MINUTE)
    const url = unsubscribeUrl((await arrived(mailbox, 'xia@example.org', 1))[0]!)
    const xiaId = Number(/user=(\d+)/.exec(url)![1])
    const yanId = (await app.db('users').where({ username: 'yan' }).first('id')).id
    const token = /token=([A-Za-z0-9_-]{43})/.exec(url)![1]!
    t.same(answer(await oneClick(app, `/api/mail/unsubscribe?user=${yanId}&token=${token}`)), [400, error('INVALID_UNSUBSCRIBE_LINK')], 'xia\'s signature does not work for yan')
    t.same(answer(await oneClick(app, `/api/mail/unsubscribe?user=999999&token=${token}`)), [400, error('INVALID_UNSUBSCRIBE_LINK')], 'an unknown account: the same answer')
    for (let i = 0; i < 30; i++) {
      const forged = Buffer.from(`forged ${i} ${'x'.repeat(20)}`).toString('base64url').slice(0, 43).padEnd(43, 'A')
      t.same(answer(await oneClick(app, `/api/mail/unsubscribe?user=${yanId}&token=${forged}`)), [400, error('INVALID_UNSUBSCRIBE_LINK')])
    }
    t.equal((await oneClick(app, `/api/mail/unsubscribe?user=${xiaId}`)).statusCode, 400, 'no token')
    t.equal((await oneClick(app, `/api/mail/unsubscribe?user=abc&token=${token}`)).statusCode, 400)
    t.same(answer(await oneClick(app, url, { origin: 'https://evil.example' })), [403, error('INVALID_ORIGIN')], 'a form on another site')
    t.equal((await as(app, yan).get('/api/users/me/preferences')).json().preferences.emailMentions, 'batched', 'yan is still subscribed')
    t.equal((await as(app, xia).get('/api/users/me/preferences')).json().preferences.emailMentions, 'batched', 'and so is xia')
    const form = await app.inject({ method: 'POST', url: '/api/auth/login', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'username=xia&password=x' })
    t.equal(form.statusCode, 400, 'no other path takes a form')
    t.equal(form.json().error, 'BAD_REQUEST')
  })

  t.test('erasing a member takes their pending mention mails', async t => {
    const zed = await account(app, admin, 'zed')
    await choose(zed, 'batched')
    await say(mira, '@zed bye')
    mailbox.refusing = true
    t.teardown(() => { mailbox.refusing = false })
    await after(16 * MINUTE)
    t.equal((await app.db('mail_outbox').where({ to_address: 'zed@example.org', status: 'pending' }).select('id')).length, 1)
    t.equal((await app.inject({ method: 'DELETE', url: '/api/users/me', headers: { cookie: zed }, payload: { password: ACCOUNT_PASSWORD } })).statusCode, 200)
    t.same(await app.db('mail_outbox').where({ to_address: 'zed@example.org' }).select('id'), [])
    mailbox.refusing = false
  })

  t.test('the decision and its mail commit together: a failure between them leaves both undone', async t => {
    const ann = await account(app, admin, 'ann')
    await choose(ann, 'batched')
    await say(mira, '@ann one')
    const through = async () => Number((await app.db('user_preferences').join('users', 'users.id', 'user_preferences.user_id').where({ username: 'ann' }).first('mentions_mailed_through')).mentions_mailed_through)
    const before = await through()
    // The outbox refuses the next insert inside the mailer's transaction (a crash at that point, as the database sees it).
    await app.db.raw(`create or replace function refuse_mail () returns trigger language plpgsql as $$ begin raise exception 'refused'; end $$`)
    await app.db.raw('create trigger refuse_mail before insert on mail_outbox for each row execute function refuse_mail()')
    later += 16 * MINUTE
    await t.rejects(app.mail.mentions.round())
    t.equal(await through(), before, 'the decision was not kept')
    await app.db.raw('drop trigger refuse_mail on mail_outbox')
    t.equal(await after(0), 1, 'the next round mails it')
    await arrived(mailbox, 'ann@example.org', 1)
    t.ok(await through() > before)
  })
})

t.test('without mail, mention mails cannot be chosen; the unsubscribe page is served', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  t.same(answer(await as(app, admin).put('/api/users/me/preferences', { emailMentions: 'daily' })), [503, error('MAIL_UNAVAILABLE')])
  t.same(answer(await as(app, admin).put('/api/users/me/preferences', { emailMentions: 'off' })), [200, { result: 'ok', preferences: DEFAULTS }])
  const page = await app.inject({ url: '/unsubscribe' })
  t.equal(page.statusCode, 200)
  t.match(page.body, 'unsubscribe.js')
})
