import t from 'tap'
import { ADMIN } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { freePort, http as request, serverStorage, startServer } from '../helpers/server.js'
import { resetToken, smtpServer } from '../helpers/smtp.js'
import { querySql } from '../helpers/storage-sql.js'

/**
 * A mail is never lost once its request was answered: the host is killed with SIGKILL
 * after answering a password reset and before the mail was sent (the SMTP server is down:
 * its one try failed); after a restart, with the server up, the mail arrives and its link
 * works.
 */
t.test('SIGKILL after the answer and before the send: the mail arrives after a restart', async t => {
  const storage = await serverStorage(t)
  const smtpPort = await freePort()
  const env = { ...storage.env, SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, PUBLIC_URL: 'http://shouts.example.test' }
  const first = await startServer(t, { env })
  t.equal((await request(first, 'POST', '/api/setup/finish', { body: ADMIN })).status, 200)

  const asked = await request(first, 'POST', '/api/auth/password-reset', { body: { email: ADMIN.email } })
  t.same([asked.status, asked.body], [200, { result: 'ok' }])
  first.child.kill('SIGKILL')
  t.equal(await first.exited, 'SIGKILL')

  const [row] = await querySql<{ status: string, sent: boolean }>(storage, "select status, body_text is null as sent from mail_outbox where kind = 'password-reset'")
  t.same(row, { status: 'pending', sent: false }, 'the killed process had not sent it')
  // Its failed try waits a minute for the next: that minute passes here at once.
  await querySql(storage, "update mail_outbox set next_attempt_at = 0, locked_until = null where status = 'pending'")

  const mailbox = await smtpServer(t, smtpPort)
  const second = await startServer(t, { env })
  t.teardown(() => { if (mailbox.received.length === 0) t.comment(second.stdout() + second.stderr()) })
  const [mail] = (await eventually(() => mailbox.to(ADMIN.email), mails => mails.length > 0, 30_000)).value
  const finished = await request(second, 'POST', '/api/auth/password-reset/finish', { body: { token: resetToken(mail!), password: 'the password after the crash' } })
  t.equal(finished.status, 200, 'its link works')
  t.equal(mailbox.received.length, 1, 'sent once')
})
