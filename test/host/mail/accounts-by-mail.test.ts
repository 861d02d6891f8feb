import { Writable } from 'node:stream'
import t from 'tap'
import { ADMIN, build, setUp, type App } from '../../helpers/app.js'
import { eventually } from '../../helpers/eventually.js'
import { ACCOUNT_PASSWORD, account, feed, signIn } from '../../helpers/identity.js'
import { answer, as, error } from '../../helpers/requests.js'
import { resetToken, smtpServer, type Mailbox } from '../../helpers/smtp.js'

/** Accounts by e-mail (contract §24): password reset, e-mail change, the panel's mail, sent to a real SMTP server the test starts. */

const PUBLIC_URL = 'http://shouts.example.test'
let clients = 0
/** A fresh client address: each asks three resets an hour at most. */
const client = (): string => `10.52.0.${++clients}`

const ask = (app: App, email: string, remoteAddress = client(), locale = 'en') =>
  app.inject({ method: 'POST', url: `/api/auth/password-reset?locale=${locale}`, remoteAddress, payload: { email } })
const finish = (app: App, token: string, password: string) =>
  app.inject({ method: 'POST', url: '/api/auth/password-reset/finish', payload: { token, password } })
const arrived = async (mailbox: Mailbox, to: string, count: number) =>
  (await eventually(() => mailbox.to(to), mails => mails.length >= count)).value
const count = async (app: App, table: string): Promise<number> => Number((await app.db(table).count<Array<{ n: string }>>({ n: '*' }))[0]!.n)

t.test('password reset, e-mail change and the panel\'s mail', async t => {
  const mailbox = await smtpServer(t)
  const app = await build(t, { config: { smtpUrl: mailbox.url, publicUrl: PUBLIC_URL, mailFrom: 'Shouts <mail@shouts.example.test>' }, mail: { pollMs: 20, retryDelayMs: () => 30, maxAttempts: 3 } })
  const admin = await setUp(app)

  t.test('a known address is mailed a link, in text and HTML, from MAIL_FROM', async t => {
    await account(app, admin, 'ada')
    t.same(answer(await ask(app, 'ADA@example.org')), [200, { result: 'ok' }])
    const [mail] = await arrived(mailbox, 'ada@example.org', 1)
    const token = resetToken(mail!)
    t.equal(mail!.from, 'mail@shouts.example.test')
    t.equal(mail!.subject, 'Reset your password on shouts.example.test')
    t.match(mail!.text, `Hello ada, someone asked to reset the password of your account`)
    t.match(mail!.text, `${PUBLIC_URL}/password-reset#token=${token}`)
    t.match(mail!.html, `<a href="${PUBLIC_URL}/password-reset#token=${token}">`)
    const rows = await app.db('password_resets').select('token_hash')
    t.notOk(rows.some(row => row.token_hash === token), 'only the hash of the token is stored')
    const sent = await eventually(() => app.db('mail_outbox').where({ kind: 'password-reset' }).select('status', 'body_text', 'body_html'), rows => rows[0]?.status === 'sent')
    t.same(sent.value, [{ status: 'sent', body_text: null, body_html: null }], 'a sent mail keeps no body')
  })

  t.test('in the language of the request', async t => {
    await account(app, admin, 'ayse')
    await ask(app, 'ayse@example.org', client(), 'tr')
    const [mail] = await arrived(mailbox, 'ayse@example.org', 1)
    t.equal(mail!.subject, 'shouts.example.test üzerindeki parolanızı sıfırlayın')
    t.match(mail!.text, 'Merhaba ayse, biri hesabınızın parolasını sıfırlamak istedi')
  })

  t.test('an unknown address gets the same answer, does the same lookups, and writes nothing', async t => {
    await account(app, admin, 'bea')
    const statements = async (email: string) => {
      const seen: string[] = []
      const listen = (query: { sql: string }) => { seen.push(query.sql) }
      app.db.on('query', listen)
      const response = await ask(app, email)
      app.db.off('query', listen)
      // The lookups of accounts and their resets: the process's own beats (the outbox, the
      // sweeps) read other tables meanwhile, whenever their timers fall.
      return { response: answer(response), reads: seen.filter(sql => /^\s*select/i.test(sql) && /"(users|password_resets)"/.test(sql)) }
    }
    const before = { mails: await count(app, 'mail_outbox'), resets: await count(app, 'password_resets') }
    const unknown = await statements('nobody@example.org')
    t.same({ mails: await count(app, 'mail_outbox'), resets: await count(app, 'password_resets') }, before, 'nothing is written for an unknown address')
    const known = await statements('bea@example.org')
    t.same(unknown.response, known.response, 'the same status and body')
    t.same(unknown.response, [200, { result: 'ok' }])
    t.same(unknown.reads, known.reads, 'the same lookups, in the same order')
    t.equal(await count(app, 'mail_outbox'), before.mails + 1)
  })

  t.test('the link sets the password, ends every session and token, logs PASSWORD_RESET, and signs in', async t => {
    const cara = await account(app, admin, 'cara')
    const { secret } = (await as(app, cara).post('/api/users/me/tokens', { name: 'script', permissions: ['addon.shoutbox.post'] })).json()
    await ask(app, 'cara@example.org')
    const token = resetToken((await arrived(mailbox, 'cara@example.org', 1))[0]!)
    const done = await finish(app, token, 'a brand new password')
    t.same(answer(done), [200, { result: 'ok', user: { id: done.json().user.id, username: 'cara', role: { id: 2, name: 'member' } } }])
    t.ok(done.cookies.some(c => c.name === 'shoutbox_session'), 'this browser is signed in')
    t.equal((await as(app, cara).get('/api/auth/me')).statusCode, 401, 'the old session has ended')
    t.equal((await app.inject({ url: '/api/auth/me', headers: { authorization: `Bearer ${secret}` } })).statusCode, 401, 'the API token has ended')
    t.same((await signIn(app, 'cara', ACCOUNT_PASSWORD))[0], 401, 'the old password no longer works')
    t.same((await signIn(app, 'cara', 'a brand new password'))[0], 200)
    t.same((await feed(app, admin, 1))[0], { type: 'PASSWORD_RESET', userId: done.json().user.id, username: 'cara', addonId: null, details: {}, text: 'cara set a new password through a mailed link' })
  })

  t.test('a token works once', async t => {
    await account(app, admin, 'dan')
    await ask(app, 'dan@example.org')
    const token = resetToken((await arrived(mailbox, 'dan@example.org', 1))[0]!)
    t.equal((await finish(app, token, 'first new password')).statusCode, 200)
    t.same(answer(await finish(app, token, 'second new password')), [400, error('INVALID_RESET_TOKEN')])
    t.same((await signIn(app, 'dan', 'first new password'))[0], 200, 'the second use changed nothing')
  })

  t.test('a link stolen from an older mail stops working when a new one is asked for', async t => {
    await account(app, admin, 'eve')
    await ask(app, 'eve@example.org')
    const stolen = resetToken((await arrived(mailbox, 'eve@example.org', 1))[0]!)
    await ask(app, 'eve@example.org')
    const fresh = resetToken((await arrived(mailbox, 'eve@example.org', 2))[1]!)
    t.same(answer(await finish(app, stolen, 'the thief password')), [400, error('INVALID_RESET_TOKEN')])
    t.equal((await finish(app, fresh, 'the owner password')).statusCode, 200)
  })

  t.test('a link over 30 minutes old does not work', async t => {
    await account(app, admin, 'finn')
    await ask(app, 'finn@example.org')
    const token = resetToken((await arrived(mailbox, 'finn@example.org', 1))[0]!)
    const row = await app.db('password_resets').where({ spent: false }).orderBy('created_at', 'desc').first('created_at', 'expires_at')
    t.equal(Number(row.expires_at) - Number(row.created_at), 30 * 60_000)
    await app.db('password_resets').where({ spent: false }).update({ expires_at: Date.now() - 1 })
    t.same(answer(await finish(app, token, 'too late password')), [400, error('INVALID_RESET_TOKEN')])
    t.same((await signIn(app, 'finn', ACCOUNT_PASSWORD))[0], 200)
  })

  t.test('a wrong token is refused before any password is hashed', async t => {
    const hashes = app.identity.passwords.hashesRun
    t.same(answer(await finish(app, 'A'.repeat(43), 'a guessing password')), [400, error('INVALID_RESET_TOKEN')])
    t.same(answer(await finish(app, 'short', 'a guessing password')), [400, { ...error('BAD_REQUEST'), bodyValidationError: (await finish(app, 'short', 'a guessing password')).json().bodyValidationError }])
    t.equal(app.identity.passwords.hashesRun, hashes)
  })

  t.test('one inbox gets at most three resets an hour, however many clients ask', async t => {
    await account(app, admin, 'gil')
    for (let i = 0; i < 5; i++) t.same(answer(await ask(app, 'gil@example.org')), [200, { result: 'ok' }], 'every answer alike')
    await arrived(mailbox, 'gil@example.org', 3)
    t.equal((await app.db('mail_outbox').where({ to_address: 'gil@example.org' }).select('id')).length, 3, 'three written')
    t.equal(mailbox.to('gil@example.org').length, 3)
  })

  t.test('one client asks three times an hour, then 429 whatever the address', async t => {
    const from = client()
    for (const email of ['x1@example.org', 'x2@example.org', 'x3@example.org']) t.same(answer(await ask(app, email, from)), [200, { result: 'ok' }])
    const refused = await ask(app, 'x4@example.org', from)
    t.same(answer(refused), [429, error('TOO_MANY_REQUESTS')])
    t.ok(Number(refused.headers['retry-after']) > 0)
  })

  t.test('a mail the server refuses is tried again until it is accepted', async t => {
    await account(app, admin, 'hal')
    mailbox.refusing = true
    await ask(app, 'hal@example.org')
    await eventually(() => app.db('mail_outbox').where({ to_address: 'hal@example.org' }).first('attempts', 'last_error'), row => row?.attempts >= 2)
    mailbox.refusing = false
    await arrived(mailbox, 'hal@example.org', 1)
    const row = (await eventually(() => app.db('mail_outbox').where({ to_address: 'hal@example.org' }).first('status', 'attempts'), row => row.status !== 'pending')).value
    t.equal(row.status, 'sent')
    t.ok(row.attempts >= 2)
    t.equal(mailbox.to('hal@example.org').length, 1, 'sent once')
  })

  t.test('erasing a member removes their pending mails', async t => {
    const ivy = await account(app, admin, 'ivy')
    mailbox.refusing = true
    await ask(app, 'ivy@example.org')
    t.equal(Number((await app.db('mail_outbox').where({ to_address: 'ivy@example.org' }).count<Array<{ n: string }>>({ n: '*' }))[0]!.n), 1)
    const erased = await app.inject({ method: 'DELETE', url: '/api/users/me', headers: { cookie: ivy }, payload: { password: ACCOUNT_PASSWORD } })
    t.equal(erased.statusCode, 200)
    mailbox.refusing = false
    t.same(await app.db('mail_outbox').where({ to_address: 'ivy@example.org' }).select('id'), [])
    t.same(await app.db('password_resets').whereNotIn('user_id', app.db('users').select('id')).select('user_id'), [])
  })

  t.test('a disabled account is mailed nothing, with the same answer', async t => {
    await account(app, admin, 'jon')
    const id = (await app.db('users').where({ username: 'jon' }).first('id')).id
    await as(app, admin).put(`/api/panel/users/${id}`, { disabled: true })
    t.same(answer(await ask(app, 'jon@example.org')), [200, { result: 'ok' }])
    t.same(await app.db('mail_outbox').where({ to_address: 'jon@example.org' }).select('id'), [])
  })

  t.test('an e-mail change: a link to the new address, a notice to the old, applied when followed', async t => {
    const lea = await account(app, admin, 'lea')
    const change = (payload: Record<string, unknown>, cookie = lea) => as(app, cookie).put('/api/users/me/email', payload)
    t.same(answer(await change({ email: 'lea@new.example.org', password: 'not her password' })), [401, error('INVALID_CREDENTIALS')])
    t.same(answer(await change({ email: 'ADA@example.org', password: ACCOUNT_PASSWORD })), [409, error('EMAIL_TAKEN')])
    t.same(await app.db('mail_outbox').whereIn('kind', ['email-change', 'email-change-notice']).select('id'), [], 'refusals mail nothing')
    t.same(answer(await change({ email: 'lea@new.example.org', password: ACCOUNT_PASSWORD })), [200, { result: 'ok' }])
    const [link] = await arrived(mailbox, 'lea@new.example.org', 1)
    const [notice] = await arrived(mailbox, 'lea@example.org', 1)
    t.equal(notice!.subject, 'A change of your address was asked for on shouts.example.test')
    t.notMatch(notice!.text, 'lea@new.example.org', 'the notice does not tell the new address')
    t.equal((await app.db('users').where({ username: 'lea' }).first('email')).email, 'lea@example.org', 'nothing changes before the link is followed')
    const token = /\/email-change#token=([A-Za-z0-9_-]{43})/.exec(link!.text)![1]!
    t.same(answer(await app.inject({ method: 'POST', url: '/api/auth/email-change/finish', payload: { token } })), [200, { result: 'ok', email: 'lea@new.example.org' }])
    t.equal((await app.db('users').where({ username: 'lea' }).first('email')).email, 'lea@new.example.org')
    t.same(answer(await app.inject({ method: 'POST', url: '/api/auth/email-change/finish', payload: { token } })), [400, error('INVALID_EMAIL_CHANGE_TOKEN')], 'the link works once')
    t.same((await feed(app, admin, 1))[0], { type: 'CHANGED_EMAIL', userId: (await app.db('users').where({ username: 'lea' }).first('id')).id, username: 'lea', addonId: null, details: {}, text: 'lea changed their e-mail address through a mailed link' })
    t.same((await signIn(app, 'lea@new.example.org', ACCOUNT_PASSWORD))[0], 200, 'the new address signs in')
  })

  t.test('an e-mail change link stops working when a newer one is asked for, or when its address was taken meanwhile', async t => {
    const max = await account(app, admin, 'max')
    await as(app, max).put('/api/users/me/email', { email: 'max@one.example.org', password: ACCOUNT_PASSWORD })
    const first = /\/email-change#token=([A-Za-z0-9_-]{43})/.exec((await arrived(mailbox, 'max@one.example.org', 1))[0]!.text)![1]!
    await as(app, max).put('/api/users/me/email', { email: 'max@two.example.org', password: ACCOUNT_PASSWORD })
    const second = /\/email-change#token=([A-Za-z0-9_-]{43})/.exec((await arrived(mailbox, 'max@two.example.org', 1))[0]!.text)![1]!
    t.same(answer(await app.inject({ method: 'POST', url: '/api/auth/email-change/finish', payload: { token: first } })), [400, error('INVALID_EMAIL_CHANGE_TOKEN')])
    await account(app, admin, 'squatter')
    await app.db('users').where({ username: 'squatter' }).update({ email: 'max@two.example.org' })
    t.same(answer(await app.inject({ method: 'POST', url: '/api/auth/email-change/finish', payload: { token: second } })), [409, error('EMAIL_TAKEN')])
    t.equal((await app.db('users').where({ username: 'max' }).first('email')).email, 'max@example.org')
  })

  t.test('an e-mail change is asked at most three times an hour', async t => {
    const ned = await account(app, admin, 'ned')
    for (let i = 1; i <= 3; i++) t.equal((await as(app, ned).put('/api/users/me/email', { email: `ned${i}@example.org`, password: ACCOUNT_PASSWORD })).statusCode, 200)
    const refused = await as(app, ned).put('/api/users/me/email', { email: 'ned4@example.org', password: ACCOUNT_PASSWORD })
    t.same(answer(refused), [429, error('TOO_MANY_REQUESTS')])
  })

  t.test('the panel shows the settings and the outbox, and sends a test mail to the administrator', async t => {
    const queued = await as(app, admin).post('/api/panel/mail/test', {})
    const mail = queued.json().mail
    t.same(answer(queued), [200, { result: 'ok', mail: { id: mail.id, kind: 'test', to: 'admin@example.org', subject: 'A test mail from shouts.example.test', status: 'pending', attempts: 0, lastError: null, nextAttemptAt: mail.nextAttemptAt, createdAt: mail.createdAt } }])
    const [received] = await arrived(mailbox, 'admin@example.org', 1)
    t.match(received!.text, 'This mail was sent from the panel to see that mail works.')
    const overview = (await eventually(async () => (await as(app, admin).get('/api/panel/mail')).json(), body => body.mails[0].status === 'sent')).value
    t.same(overview.settings, { available: true, transport: 'smtp', server: mailbox.url, from: 'Shouts <mail@shouts.example.test>' })
    t.same(overview.mails[0], { ...mail, status: 'sent', attempts: 1, nextAttemptAt: null }, 'listed without its body')
    t.same((await feed(app, admin, 1))[0], { type: 'SENT_TEST_MAIL', userId: 1, username: 'admin', addonId: null, details: {}, text: 'admin sent a test mail' })
    const member = await account(app, admin, 'kim')
    t.same(answer(await as(app, member).get('/api/panel/mail')), [403, error('NO_PERMISSION')])
    t.same(answer(await as(app, member).post('/api/panel/mail/test', {})), [403, error('NO_PERMISSION')])
  })
})

t.test('the panel never shows the password of SMTP_URL', async t => {
  const app = await build(t, { config: { smtpUrl: 'smtp://shouts:hunter2-secret@127.0.0.1:9', publicUrl: PUBLIC_URL }, mail: { pollMs: 60_000 } })
  const admin = await setUp(app)
  const body = (await as(app, admin).get('/api/panel/mail')).json()
  t.same(body.settings, { available: true, transport: 'smtp', server: 'smtp://shouts:***@127.0.0.1:9', from: 'Shoutbox <no-reply@shouts.example.test>' })
  t.notMatch(JSON.stringify(body), 'hunter2')
})

t.test('without SMTP_URL, outside --dev, the reset says mail is unavailable', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  t.same(answer(await ask(app, 'admin@example.org')), [503, error('MAIL_UNAVAILABLE')])
  t.same(await app.db('mail_outbox').select('id'), [])
  t.same(answer(await as(app, admin).post('/api/panel/mail/test', {})), [503, error('MAIL_UNAVAILABLE')])
  t.same(answer(await as(app, admin).put('/api/users/me/email', { email: 'new@example.org', password: ADMIN.password })), [503, error('MAIL_UNAVAILABLE')])
  t.same((await as(app, admin).get('/api/panel/mail')).json().settings, { available: false, transport: 'none', server: null, from: 'Shoutbox <no-reply@localhost>' })
})

t.test('with --dev and no SMTP_URL, a mail is written to the log, its link with it', async t => {
  const lines: string[] = []
  const stream = new Writable({ write (chunk: Buffer, _encoding, done) { lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)); done() } })
  const app = await build(t, { config: { dev: true }, logger: { level: 'info', stream }, mail: { pollMs: 20 } })
  const admin = await setUp(app)
  t.same(answer(await ask(app, ADMIN.email)), [200, { result: 'ok' }])
  const { value: line } = await eventually(() => lines.find(l => l.includes('written to the log')), found => found !== undefined)
  const mail = JSON.parse(line!).mail as { to: string, subject: string, text: string }
  t.equal(mail.to, ADMIN.email)
  t.equal(mail.subject, 'Reset your password on localhost')
  t.match(mail.text, /http:\/\/localhost:80\/password-reset#token=[A-Za-z0-9_-]{43}/)
  t.same((await as(app, admin).get('/api/panel/mail')).json().settings, { available: true, transport: 'log', server: null, from: 'Shoutbox <no-reply@localhost>' })
})
