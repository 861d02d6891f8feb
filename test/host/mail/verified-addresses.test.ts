import t from 'tap'
import { ADMIN, build, sessionCookie, setUp, type App } from '../../helpers/app.js'
import { eventually } from '../../helpers/eventually.js'
import { ACCOUNT_PASSWORD, account, feed, signIn } from '../../helpers/identity.js'
import { answer, as, error } from '../../helpers/requests.js'
import { resetToken, smtpServer, type Mailbox, type ReceivedMail } from '../../helpers/smtp.js'

/**
 * Verified addresses (the site setting `verifyEmail`): a member who signs up may post only
 * once they followed the link mailed to them; the link asked for again; the e-mail change
 * and a password reset confirm an address too. Sent to a real SMTP server the test starts.
 */

const PUBLIC_URL = 'http://shouts.example.test'
let clients = 0
/** A fresh client address: each may ask for three links an hour and make a few accounts. */
const client = (): string => `10.53.0.${++clients}`

const arrived = async (mailbox: Mailbox, to: string, count: number): Promise<ReceivedMail[]> =>
  (await eventually(() => mailbox.to(to), mails => mails.length >= count)).value
const verifyToken = (mail: ReceivedMail): string => {
  const token = /\/verify-email#token=([A-Za-z0-9_-]{43})/.exec(mail.text)?.[1]
  if (token === undefined) throw new Error(`no verification link in: ${mail.text}`)
  return token
}
const finish = (app: App, token: string) => app.inject({ method: 'POST', url: '/api/auth/verify-email/finish', payload: { token } })
const resend = (app: App, payload: Record<string, unknown>, remoteAddress = client(), cookie?: string) =>
  app.inject({ method: 'POST', url: '/api/auth/verify-email/resend', remoteAddress, payload, headers: cookie === undefined ? {} : { cookie } })
const post = (app: App, cookie: string, message: string) => as(app, cookie).post('/api/shoutbox', { message })

t.test('verifyEmail: a newcomer posts once the mailed link is followed', async t => {
  const mailbox = await smtpServer(t)
  const app = await build(t, { config: { smtpUrl: mailbox.url, publicUrl: PUBLIC_URL }, mail: { pollMs: 20, retryDelayMs: () => 30 } })
  const admin = await setUp(app)
  await as(app, admin).put('/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 })
  const signUp = async (username: string, locale = 'en') => {
    const response = await app.inject({ method: 'POST', url: `/api/auth/signup?locale=${locale}`, remoteAddress: client(), payload: { username, email: `${username}@example.org`, password: ACCOUNT_PASSWORD } })
    if (response.statusCode !== 200) throw new Error(response.body)
    return sessionCookie(response, app)
  }

  t.test('off by default; the panel turns it on', async t => {
    t.equal((await as(app, admin).get('/api/panel/settings')).json().verifyEmail, false)
    const member = await account(app, admin, 'plain')
    t.same(answer(await as(app, member).put('/api/panel/settings', { verifyEmail: true })), [403, error('NO_PERMISSION')], 'a member cannot')
    t.same(answer(await as(app, admin).put('/api/panel/settings', { verifyEmail: 'yes' })).slice(0, 1), [400])
    const on = await as(app, admin).put('/api/panel/settings', { verifyEmail: true, signUp: true })
    t.same(answer(on), [200, { result: 'ok', signUp: true, defaultRoleId: 2, activityKeepDays: null, erasure: 'anonymise', verifyEmail: true }])
    t.equal((await post(app, member, 'made by the administrator: not asked')).statusCode, 200, 'an account the administrator made posts')
  })

  t.test('a new member is mailed a link, is told why they cannot post, and cannot post by any path', async t => {
    const ada = await signUp('ada')
    const [mail] = await arrived(mailbox, 'ada@example.org', 1)
    t.equal(mail!.subject, 'Confirm your address on shouts.example.test')
    t.match(mail!.text, 'Hello ada, welcome. To confirm this address and start posting')
    t.match(mail!.html, `<a href="${PUBLIC_URL}/verify-email#token=${verifyToken(mail!)}">`)
    const me = (await as(app, ada).get('/api/auth/me')).json().user
    t.equal(me.emailUnconfirmed, true, 'the widget learns why from /api/auth/me')
    t.same(answer(await post(app, ada, 'hello')), [403, error('EMAIL_NOT_VERIFIED')])
    t.same(answer(await as(app, ada).post('/api/shoutbox/rooms/general/shouts', { message: 'hello' })), [403, error('EMAIL_NOT_VERIFIED')])
    const { secret } = (await as(app, ada).post('/api/users/me/tokens', { name: 'script', permissions: ['addon.shoutbox.post'] })).json()
    const viaToken = await app.inject({ method: 'POST', url: '/api/shoutbox', headers: { authorization: `Bearer ${secret}` }, payload: { message: 'by token' } })
    t.same(answer(viaToken), [403, error('EMAIL_NOT_VERIFIED')], 'nor through an API token')
    t.same(answer(await as(app, ada).put('/api/users/me/preferences', { emailMentions: 'batched' })), [403, error('EMAIL_NOT_VERIFIED')], 'nor be mailed mentions at an unproven address')
    t.equal(Number((await app.db('shoutbox_shouts').where({ message: 'hello' }).count<Array<{ n: string }>>({ n: '*' }))[0]!.n), 0, 'nothing was stored')
  })

  t.test('following the link lets the same session post at once, once; logged CONFIRMED_EMAIL', async t => {
    const bea = await signUp('bea')
    const token = verifyToken((await arrived(mailbox, 'bea@example.org', 1))[0]!)
    t.same(answer(await post(app, bea, 'first try')), [403, error('EMAIL_NOT_VERIFIED')], 'the session is remembered as unconfirmed')
    t.same(answer(await finish(app, token)), [200, { result: 'ok' }], 'no session needed')
    t.equal((await post(app, bea, 'now I may')).statusCode, 200, 'the session remembered before posts now')
    t.notOk('emailUnconfirmed' in (await as(app, bea).get('/api/auth/me')).json().user)
    t.same(answer(await finish(app, token)), [400, error('INVALID_VERIFICATION_TOKEN')], 'a link works once')
    const logged = (await feed(app, admin, 5)).find(entry => entry.type === 'CONFIRMED_EMAIL')
    t.same(logged?.text, 'bea confirmed their e-mail address through a mailed link')
  })

  t.test('a wrong, short or expired token is refused and changes nothing', async t => {
    const cem = await signUp('cem')
    const token = verifyToken((await arrived(mailbox, 'cem@example.org', 1))[0]!)
    t.same(answer(await finish(app, 'A'.repeat(43))), [400, error('INVALID_VERIFICATION_TOKEN')])
    t.equal((await finish(app, 'short')).statusCode, 400)
    const row = await app.db('email_verifications').whereNot({ spent: true }).orderBy('created_at', 'desc').first('created_at', 'expires_at')
    t.equal(Number(row.expires_at) - Number(row.created_at), 7 * 24 * 60 * 60_000, 'a week')
    await app.db('email_verifications').where({ spent: false }).update({ expires_at: Date.now() - 1 })
    t.same(answer(await finish(app, token)), [400, error('INVALID_VERIFICATION_TOKEN')])
    t.same(answer(await post(app, cem, 'still not')), [403, error('EMAIL_NOT_VERIFIED')])
    t.notOk(await app.db('email_verifications').where({ token_hash: token }).first(), 'only the hash of a token is stored')
  })

  t.test('the link asked for again: the old one stops working, the new one works', async t => {
    const dan = await signUp('dan')
    const old = verifyToken((await arrived(mailbox, 'dan@example.org', 1))[0]!)
    t.same(answer(await resend(app, { email: 'DAN@example.org' })), [200, { result: 'ok' }])
    const fresh = verifyToken((await arrived(mailbox, 'dan@example.org', 2))[1]!)
    t.same(answer(await finish(app, old)), [400, error('INVALID_VERIFICATION_TOKEN')], 'a stolen older link is void')
    t.same(answer(await finish(app, fresh)), [200, { result: 'ok' }])
    t.equal((await post(app, dan, 'confirmed')).statusCode, 200)
  })

  t.test('signed in, the widget asks for its own link with no address', async t => {
    const eda = await signUp('eda', 'tr')
    const [first] = await arrived(mailbox, 'eda@example.org', 1)
    t.equal(first!.subject, 'shouts.example.test üzerindeki adresinizi onaylayın', 'in the language of the sign-up')
    t.same(answer(await resend(app, {}, client(), eda)), [200, { result: 'ok' }])
    await arrived(mailbox, 'eda@example.org', 2)
    t.same(answer(await resend(app, {})), [400, { ...error('BAD_REQUEST'), bodyValidationError: 'body/email is required without a session' }], 'a visitor must name an address')
  })

  t.test('the answer never tells whether an address is known or waiting, and runs the same statements', async t => {
    await signUp('fay')
    await arrived(mailbox, 'fay@example.org', 1)
    const statements = async (email: string) => {
      const seen: string[] = []
      const listen = (query: { sql: string }) => { seen.push(query.sql) }
      app.db.on('query', listen)
      const response = await resend(app, { email })
      app.db.off('query', listen)
      // The lookups of accounts and their links: the process's own beats (presence, the
      // outbox, the sweeps) read other tables meanwhile, whenever their timers fall.
      return { response: answer(response), reads: seen.filter(sql => /^\s*select/i.test(sql) && /"(users|email_verifications)"/.test(sql)) }
    }
    const before = await app.db('mail_outbox').count<Array<{ n: string }>>({ n: '*' })
    const unknown = await statements('nobody@example.org')
    const confirmed = await statements('admin@example.org')
    t.same(await app.db('mail_outbox').count<Array<{ n: string }>>({ n: '*' }), before, 'nothing written for an unknown or a confirmed address')
    const waiting = await statements('fay@example.org')
    t.same(unknown.response, [200, { result: 'ok' }])
    t.same(confirmed.response, unknown.response)
    t.same(waiting.response, unknown.response)
    t.same(unknown.reads, waiting.reads, 'the same lookups, in the same order')
    t.same(confirmed.reads, waiting.reads)
  })

  t.test('a flood of requests for one inbox sends three links an hour; one client asks three times, then 429', async t => {
    await signUp('gil')
    for (let i = 0; i < 5; i++) t.same(answer(await resend(app, { email: 'gil@example.org' })), [200, { result: 'ok' }], 'answered alike')
    await arrived(mailbox, 'gil@example.org', 3)
    t.equal((await app.db('mail_outbox').where({ to_address: 'gil@example.org', kind: 'verify-email' }).select('id')).length, 3, 'the sign-up and two more')
    const from = client()
    for (let i = 0; i < 3; i++) t.equal((await resend(app, { email: `x${i}@example.org` }, from)).statusCode, 200)
    const refused = await resend(app, { email: 'x4@example.org' }, from)
    t.same(answer(refused), [429, error('TOO_MANY_REQUESTS')])
    t.ok(Number(refused.headers['retry-after']) > 0)
  })

  t.test('a password reset, or an e-mail change, confirms the address too', async t => {
    await signUp('hal')
    await arrived(mailbox, 'hal@example.org', 1)
    await app.inject({ method: 'POST', url: '/api/auth/password-reset', remoteAddress: client(), payload: { email: 'hal@example.org' } })
    const reset = (await arrived(mailbox, 'hal@example.org', 2)).find(mail => mail.text.includes('/password-reset#'))!
    const done = await app.inject({ method: 'POST', url: '/api/auth/password-reset/finish', payload: { token: resetToken(reset), password: 'a new long password' } })
    t.equal(done.statusCode, 200)
    t.equal((await post(app, sessionCookie(done, app), 'after the reset')).statusCode, 200)

    const ivy = await signUp('ivy')
    await arrived(mailbox, 'ivy@example.org', 1)
    t.equal((await as(app, ivy).put('/api/users/me/email', { email: 'ivy@new.example.org', password: ACCOUNT_PASSWORD })).statusCode, 200)
    const link = /\/email-change#token=([A-Za-z0-9_-]{43})/.exec((await arrived(mailbox, 'ivy@new.example.org', 1))[0]!.text)![1]!
    t.equal((await app.inject({ method: 'POST', url: '/api/auth/email-change/finish', payload: { token: link } })).statusCode, 200)
    t.equal((await post(app, ivy, 'after the change')).statusCode, 200, 'the same session may post')
  })

  t.test('turned off, members still waiting may post', async t => {
    const jon = await signUp('jon')
    await arrived(mailbox, 'jon@example.org', 1)
    t.same(answer(await post(app, jon, 'waiting')), [403, error('EMAIL_NOT_VERIFIED')])
    t.equal((await as(app, admin).put('/api/panel/settings', { verifyEmail: false })).json().verifyEmail, false)
    t.equal((await post(app, jon, 'free now')).statusCode, 200)
    const kim = await signUp('kim')
    t.equal((await post(app, kim, 'a newcomer while it is off')).statusCode, 200)
    t.same(mailbox.to('kim@example.org'), [], 'and is mailed nothing')
  })

  t.test('a disabled account\'s link does nothing', async t => {
    await as(app, admin).put('/api/panel/settings', { verifyEmail: true })
    await signUp('lea')
    const token = verifyToken((await arrived(mailbox, 'lea@example.org', 1))[0]!)
    const id = (await app.db('users').where({ username: 'lea' }).first('id')).id
    await as(app, admin).put(`/api/panel/users/${id}`, { disabled: true })
    t.same(answer(await finish(app, token)), [400, error('INVALID_VERIFICATION_TOKEN')])
    t.same(answer(await resend(app, { email: 'lea@example.org' })), [200, { result: 'ok' }])
    t.equal(mailbox.to('lea@example.org').length, 1, 'a disabled account is sent nothing more')
  })

  t.test('the page that confirms is served', async t => {
    const page = await app.inject({ url: '/verify-email' })
    t.equal(page.statusCode, 200)
    t.match(page.headers['content-type'], 'text/html')
    t.match(page.body, 'verify-email.js')
  })

  t.test('erasing a member takes their links', async t => {
    const max = await signUp('max')
    await arrived(mailbox, 'max@example.org', 1)
    t.equal((await app.inject({ method: 'DELETE', url: '/api/users/me', headers: { cookie: max }, payload: { password: ACCOUNT_PASSWORD } })).statusCode, 200)
    t.same(await app.db('email_verifications').whereNotIn('user_id', app.db('users').select('id')).select('user_id'), [])
    t.same((await signIn(app, 'max', ACCOUNT_PASSWORD))[0], 401)
  })
})

t.test('without mail, verifyEmail cannot be turned on', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  t.same(answer(await as(app, admin).put('/api/panel/settings', { verifyEmail: true })), [503, error('MAIL_UNAVAILABLE')])
  t.equal((await as(app, admin).get('/api/panel/settings')).json().verifyEmail, false)
  t.same(answer(await app.inject({ method: 'POST', url: '/api/auth/verify-email/resend', payload: { email: ADMIN.email } })), [503, error('MAIL_UNAVAILABLE')])
})
