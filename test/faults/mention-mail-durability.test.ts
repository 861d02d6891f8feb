import t from 'tap'
import { ADMIN } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { freePort, http as request, serverStorage, startServer } from '../helpers/server.js'
import { smtpServer } from '../helpers/smtp.js'
import { querySql } from '../helpers/storage-sql.js'

/**
 * A mention mail is decided once and never lost: the host is killed with SIGKILL before
 * its mailer ran; the next process decides (the mail and the mention it covers written
 * together), and is killed before the send (the SMTP server is down); a third, with the
 * server up, sends it — once, and decides nothing again.
 */
t.test('SIGKILL before the decision and after it: the mention mail arrives once', async t => {
  const storage = await serverStorage(t)
  const smtpPort = await freePort()
  const env = { ...storage.env, SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, PUBLIC_URL: 'http://shouts.example.test' }
  const first = await startServer(t, { env })
  const admin = (await request(first, 'POST', '/api/setup/finish', { body: ADMIN })).cookie!
  const made = await request(first, 'POST', '/api/panel/users', { cookie: admin, body: { username: 'omar', email: 'omar@example.org', password: 'a long password', roleId: 2 } })
  t.equal(made.status, 200)
  const omar = (await request(first, 'POST', '/api/auth/login', { body: { username: 'omar', password: 'a long password' } })).cookie!
  t.equal((await request(first, 'PUT', '/api/users/me/preferences', { cookie: omar, body: { emailMentions: 'batched' } })).status, 200)
  t.equal((await request(first, 'POST', '/api/shoutbox', { cookie: admin, body: { message: 'Hello @omar, the durable one' } })).status, 200)
  // The embedded database is read directly only while no process has it open: the API says when the mention is there.
  await eventually(async () => (await request(first, 'GET', '/api/notifications', { cookie: omar })).body as { unread: number }, body => body.unread === 1)
  first.child.kill('SIGKILL')
  t.equal(await first.exited, 'SIGKILL')
  // Fifteen minutes pass here at once.
  await querySql(storage, 'update notifications set created_at = created_at - 16 * 60000')

  const second = await startServer(t, { env })
  const outbox = async () => ((await request(second, 'GET', '/api/panel/mail', { cookie: admin })).body as { mails: Array<{ kind: string, status: string }> }).mails.filter(mail => mail.kind === 'mentions')
  const decided = await eventually(outbox, mails => mails.length === 1, 30_000)
  t.same(decided.value.map(mail => mail.status), ['pending'], 'decided: the mail is in the outbox, not sent (the mail server is down)')
  second.child.kill('SIGKILL')
  t.equal(await second.exited, 'SIGKILL')
  const [covered] = await querySql<{ through: string }>(storage, "select p.mentions_mailed_through::text as through from user_preferences p join users u on u.id = p.user_id where u.username = 'omar'")
  const [mention] = await querySql<{ id: string }>(storage, "select id::text as id from notifications where kind = 'mention'")
  t.equal(covered!.through, mention!.id, 'the mention it covers was written with it')
  await querySql(storage, "update mail_outbox set next_attempt_at = 0, locked_until = null where status = 'pending'")

  const mailbox = await smtpServer(t, smtpPort)
  const third = await startServer(t, { env })
  t.teardown(() => { if (mailbox.received.length === 0) t.comment(third.stdout() + third.stderr()) })
  const [mail] = (await eventually(() => mailbox.to('omar@example.org'), mails => mails.length > 0, 30_000)).value
  t.match(mail!.text, 'admin in general: Hello @omar, the durable one')
  t.equal(mail!.headers['list-unsubscribe-post'], 'List-Unsubscribe=One-Click')
  // The third process's first round (five seconds after it started) finds nothing left to decide.
  await new Promise(resolve => setTimeout(resolve, 7_000))
  const mails = ((await request(third, 'GET', '/api/panel/mail', { cookie: admin })).body as { mails: Array<{ kind: string, status: string }> }).mails
  t.same(mails.filter(mail => mail.kind === 'mentions').map(mail => mail.status), ['sent'], 'one mail, decided once')
  t.equal(mailbox.received.length, 1, 'sent once')
})
