import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { clientKey } from '../../../src/sdk/client-address.js'
import { LoginThrottle } from '../../../src/host/identity/login-throttle.js'
import { isPlatformError } from '../../../src/sdk/index.js'
import { ADMIN, build, setUp } from '../../helpers/app.js'

const TOO_MANY = { result: 'error', error: 'TOO_MANY_REQUESTS' }
const INVALID = { result: 'error', error: 'INVALID_CREDENTIALS' }

const policy = {
  freeAttempts: 5,
  freeAttemptsPerAddress: 20,
  firstDelayMs: 1000,
  maxDelayMs: 8000,
  forgetAfterMs: 60 * 60_000,
  purgeEveryMs: 60_000
}

/** The throttle's clock: it moves only when a test moves it, so no answer depends on how fast the machine is. */
let clock = 1_800_000_000_000
const now = (): number => clock

const attempt = (app: FastifyInstance, username: string, password: string, remoteAddress: string) =>
  app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password }, remoteAddress })

/** How many answers had each status. */
function tally (responses: LightMyRequestResponse[]): Record<number, number> {
  const counts: Record<number, number> = {}
  for (const r of responses) counts[r.statusCode] = (counts[r.statusCode] ?? 0) + 1
  return counts
}

const rows = async (app: FastifyInstance): Promise<number> => Number((await app.db('sign_in_attempts').count({ n: '*' }))[0]!.n)

t.test('sign-in throttling', async t => {
  // Room for every hash these bursts may start: here the throttle alone decides.
  const app = await build(t, { throttle: { ...policy, now }, hashing: { concurrency: 2, queue: 64 } })
  await setUp(app)
  const { passwords } = app.identity

  t.test('40 wrong passwords at once for one login from one address: the free ones are hashed, the rest refused unhashed', async t => {
    const hashesBefore = passwords.hashesRun
    const [owner, ...burst] = await Promise.all([
      // The owner signs in from home while the burst is under way.
      attempt(app, ADMIN.username, ADMIN.password, '10.1.0.1'),
      ...Array.from({ length: 40 }, () => attempt(app, ADMIN.username, 'wrong password', '10.6.6.6'))
    ])
    t.strictSame(tally(burst), { 401: policy.freeAttempts, 429: 40 - policy.freeAttempts })
    for (const r of burst) t.strictSame(r.json(), r.statusCode === 401 ? INVALID : TOO_MANY)
    t.equal(burst.find(r => r.statusCode === 429)?.headers['retry-after'], '1')
    t.equal(passwords.hashesRun - hashesBefore, policy.freeAttempts + 1,
      'one hash per free attempt of the burst, one for the owner; none for the refused')
    t.strictSame([owner!.statusCode, owner!.json().user.username], [200, ADMIN.username], 'the owner got in during the burst')

    const fromAttacker = await attempt(app, ADMIN.username, ADMIN.password, '10.6.6.6')
    t.strictSame([fromAttacker.statusCode, fromAttacker.json()], [429, TOO_MANY],
      'from the burst\'s address even the right password waits, so guessing learns nothing')
    const elsewhere = await attempt(app, ADMIN.username, ADMIN.password, '10.1.0.2')
    t.equal(elsewhere.statusCode, 200, 'and from any other address the owner still signs in')
  })

  t.test('strangers typing wrong passwords for the admin\'s public username never lock the admin out', async t => {
    for (let address = 0; address < 10; address++) {
      for (let i = 0; i < policy.freeAttempts; i++) {
        t.equal((await attempt(app, ADMIN.username, 'wrong password', `10.2.0.${address}`)).statusCode, 401)
      }
      t.equal((await attempt(app, ADMIN.username, 'wrong password', `10.2.0.${address}`)).statusCode, 429)
    }
    const owner = await attempt(app, ADMIN.username, ADMIN.password, '10.1.0.3')
    t.strictSame([owner.statusCode, owner.json().user.username], [200, ADMIN.username])
  })

  t.test('one address trying many logins: the per-address key', async t => {
    const hashesBefore = passwords.hashesRun
    const burst = await Promise.all(Array.from({ length: 40 }, (_, i) => attempt(app, `user${i}`, 'wrong password', '10.3.0.1')))
    t.strictSame(tally(burst), { 401: policy.freeAttemptsPerAddress, 429: 40 - policy.freeAttemptsPerAddress })
    for (const r of burst) t.strictSame(r.json(), r.statusCode === 401 ? INVALID : TOO_MANY)
    t.equal(passwords.hashesRun - hashesBefore, policy.freeAttemptsPerAddress)
    const refused = burst.findIndex(r => r.statusCode === 429)
    t.equal((await attempt(app, `user${refused}`, 'wrong password', '10.3.0.2')).statusCode, 401, 'other addresses are not held back')
  })

  t.test('growing delays: each counted attempt past the free ones doubles the wait, up to the maximum', async t => {
    const from = '10.4.0.1'
    const wrong = () => attempt(app, ADMIN.username, 'wrong password', from)
    for (let i = 0; i < policy.freeAttempts; i++) t.equal((await wrong()).statusCode, 401, `free attempt ${i + 1}`)
    const waits: string[] = []
    for (const delay of [1000, 2000, 4000, 8000, 8000]) {
      const early = await wrong()
      t.strictSame([early.statusCode, early.json()], [429, TOO_MANY])
      waits.push(String(early.headers['retry-after']))
      clock += delay - 1
      t.equal((await wrong()).statusCode, 429, 'a millisecond early is still early')
      clock += 1
      t.equal((await wrong()).statusCode, 401, `allowed after ${delay} ms`)
    }
    t.strictSame(waits, ['1', '2', '4', '8', '8'])
    clock += 3000
    t.equal((await wrong()).headers['retry-after'], '5', 'Retry-After is what is left of the wait')

    clock += policy.forgetAfterMs + 5000
    for (let i = 0; i < policy.freeAttempts; i++) t.equal((await wrong()).statusCode, 401, 'an hour later the key starts afresh')
    t.equal((await wrong()).headers['retry-after'], '1')
  })

  t.test('a success clears the count of its login from its address, no other', async t => {
    for (let i = 0; i < policy.freeAttempts; i++) await attempt(app, ADMIN.username, 'wrong password', '10.5.0.1')
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < policy.freeAttempts - 1; i++) {
        t.equal((await attempt(app, ADMIN.username, 'wrong password', '10.5.0.2')).statusCode, 401)
      }
      t.equal((await attempt(app, ADMIN.username, ADMIN.password, '10.5.0.2')).statusCode, 200, `round ${round}`)
    }
    t.equal((await attempt(app, ADMIN.username, ADMIN.password, '10.5.0.1')).statusCode, 429, 'the other address still waits')
    t.equal((await attempt(app, ADMIN.email, 'wrong password', '10.5.0.1')).statusCode, 401,
      'the key is the login typed: the e-mail address is another')
  })

  t.test('an IPv6 client is its /64: fresh addresses from one network share its keys', async t => {
    for (let i = 1; i <= policy.freeAttempts; i++) {
      t.equal((await attempt(app, ADMIN.username, 'wrong password', `2001:db8:7:7::${i}`)).statusCode, 401)
    }
    const sameNetwork = await attempt(app, ADMIN.username, 'wrong password', '2001:db8:7:7:ffff:1:2:3')
    t.strictSame([sameNetwork.statusCode, sameNetwork.json()], [429, TOO_MANY])
    t.equal((await attempt(app, ADMIN.username, ADMIN.password, '2001:db8:7:8::1')).statusCode, 200, 'the next /64 is another client')
  })

  t.test('attempts decided out of the order their clocks were read (a connection pool) still get every free attempt', async t => {
    // Each attempt reads the clock a millisecond *earlier* than the one decided before it.
    let skewed = clock
    const throttle = new LoginThrottle(app.db, app.identity.addresses, { ...policy, now: () => skewed-- })
    for (let i = 0; i < policy.freeAttempts; i++) await throttle.attempt('10.8.0.1', 'skewed')
    const refused = await throttle.attempt('10.8.0.1', 'skewed').then(() => undefined, (error: unknown) => error)
    t.ok(isPlatformError(refused) && refused.code === 'TOO_MANY_REQUESTS', 'the attempt past the free ones waits')
  })

  t.test('old rows are purged, at most once a minute, by the next attempt', async t => {
    const start = clock
    const before = await rows(app)
    t.ok(before > 0)
    clock = start + policy.forgetAfterMs / 2
    await attempt(app, 'nobody', 'wrong password', '10.9.0.1')
    t.equal(await rows(app), before + 2, 'nothing forgotten yet: the new login and address rows added')
    clock = start + policy.forgetAfterMs + 1
    await attempt(app, 'nobody', 'wrong password', '10.9.0.2')
    t.equal(await rows(app), 4, 'every row idle for an hour is gone; the last two attempts\' rows remain')
    clock += policy.forgetAfterMs + 1
    await app.db('sign_in_attempts').update({ last_attempt_at: clock - policy.forgetAfterMs - 1 })
    await attempt(app, 'nobody', 'wrong password', '10.9.0.3')
    t.equal(await rows(app), 2, 'purged again once a minute had passed')
    await app.db('sign_in_attempts').update({ last_attempt_at: clock - policy.forgetAfterMs - 1 })
    clock += policy.purgeEveryMs - 1
    await attempt(app, 'nobody', 'wrong password', '10.9.0.4')
    t.equal(await rows(app), 4, 'not within the minute')
  })
})

t.test('clientKey: IPv4 as it is, IPv6 by its /64', async t => {
  t.strictSame(
    ['10.1.2.3', '::ffff:10.1.2.3', '2001:db8::1', '2001:DB8:0:0:1::1', '2001:db8:1:2:3:4:5:6', 'fe80::1%eth0', '64:ff9b::1.2.3.4'].map(clientKey),
    ['10.1.2.3', '10.1.2.3', '2001:db8:0:0::/64', '2001:db8:0:0::/64', '2001:db8:1:2::/64', 'fe80:0:0:0::/64', '64:ff9b:0:0::/64'])
})
