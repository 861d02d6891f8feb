import t from 'tap'
import { BoundedPasswords, PasswordHasher } from '../../../src/host/identity/passwords.js'
import { isPlatformError } from '../../../src/sdk/index.js'
import { ADMIN, build, setUp } from '../../helpers/app.js'

const BUSY = { result: 'error', error: 'SERVICE_UNAVAILABLE' }

/**
 * Cheap scrypt that, while held, waits before each hash until released: the test, not
 * the machine's speed, decides when a hash ends. Counts the hashes inside scrypt at once.
 */
class HeldHasher extends PasswordHasher {
  private holding = false
  private readonly held: Array<() => void> = []
  private readonly watchers: Array<{ count: number, resolve: () => void }> = []
  inside = 0
  mostInside = 0
  /** The passwords verified, in the order their hashes began. */
  readonly verified: string[] = []

  constructor () {
    super({ memoryCost: 1024, timeCost: 1, parallelism: 1 })
  }

  hold (): void {
    this.holding = true
  }

  release (): void {
    this.holding = false
    for (const go of this.held.splice(0)) go()
  }

  /** Resolves once `count` hashes are held. */
  holdingAtLeast (count: number): Promise<void> {
    return new Promise(resolve => {
      this.watchers.push({ count, resolve })
      this.notify()
    })
  }

  override hash (password: string): Promise<string> {
    return this.inScrypt(() => super.hash(password))
  }

  override verify (password: string, stored: string): Promise<boolean> {
    this.verified.push(password)
    return this.inScrypt(() => super.verify(password, stored))
  }

  override verifyNobody (password: string): Promise<false> {
    return this.inScrypt(() => super.verifyNobody(password))
  }

  private async inScrypt<T> (work: () => Promise<T>): Promise<T> {
    this.mostInside = Math.max(this.mostInside, ++this.inside)
    try {
      if (this.holding) {
        await new Promise<void>(resolve => {
          this.held.push(resolve)
          this.notify()
        })
      }
      return await work()
    } finally {
      this.inside--
    }
  }

  private notify (): void {
    for (const watcher of [...this.watchers]) {
      if (this.held.length >= watcher.count) {
        this.watchers.splice(this.watchers.indexOf(watcher), 1)
        watcher.resolve()
      }
    }
  }
}

t.test('BoundedPasswords: at most `concurrency` hashes at once, at most `queue` waiting, the rest refused at once', async t => {
  const hasher = new HeldHasher()
  const stored = await hasher.hash('correct horse battery')
  const kinds: string[] = []
  const passwords = new BoundedPasswords(hasher, { concurrency: 2, queue: 3 }, kind => kinds.push(kind))
  hasher.hold()
  const accepted = [
    passwords.verify('correct horse battery', stored),
    passwords.verifyNobody('anything at all'),
    passwords.hash('a new password'),
    passwords.verify('wrong password', stored),
    passwords.verify('correct horse battery', stored)
  ]
  await hasher.holdingAtLeast(2)
  t.strictSame(passwords.load, { running: 2, queued: 3 })
  t.equal(passwords.hashesRun, 2, 'only the running ones have started')

  const refused = await passwords.verify('correct horse battery', stored).then(() => undefined, (error: unknown) => error)
  t.ok(isPlatformError(refused))
  if (isPlatformError(refused)) {
    t.strictSame([refused.status, refused.code, refused.headers], [503, 'SERVICE_UNAVAILABLE', { 'retry-after': '1' }])
  }
  t.equal(passwords.hashesRun, 2, 'a refused hash is never started')

  hasher.release()
  const [right, nobody, hash, wrong, again] = await Promise.all(accepted)
  t.strictSame([right, nobody, typeof hash, wrong, again], [true, false, 'string', false, true])
  t.equal(passwords.hashesRun, 5)
  t.strictSame(kinds, ['verify', 'verify-nobody', 'hash', 'verify', 'verify'], 'each hash announced as it starts')
  t.equal(hasher.mostInside, 2, 'never more than two in scrypt at once')
  t.strictSame(passwords.load, { running: 0, queued: 0 })
})

t.test('over HTTP: a full hashing queue answers 503 with Retry-After, for sign-in and for creating a user alike', async t => {
  const hasher = new HeldHasher()
  const app = await build(t, { hasher, hashing: { concurrency: 1, queue: 0 }, throttle: { freeAttempts: 2, firstDelayMs: 60_000 } })
  const hashesBefore = app.identity.passwords.hashesRun
  const admin = await setUp(app)
  t.equal(app.identity.passwords.hashesRun - hashesBefore, 1, 'setup hashed through the same bound')

  hasher.hold()
  // An unknown login: its stand-in hash takes the only turn.
  const first = app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: 'nobody', password: 'a guess' }, remoteAddress: '10.0.0.1' })
  await hasher.holdingAtLeast(1)

  const signIn = await app.inject({
    method: 'POST', url: '/api/auth/login', payload: { username: ADMIN.username, password: ADMIN.password }, remoteAddress: '10.0.0.2'
  })
  t.strictSame([signIn.statusCode, signIn.json(), signIn.headers['retry-after']], [503, BUSY, '1'])
  const createUser = await app.inject({
    method: 'POST',
    url: '/api/panel/users',
    headers: { cookie: admin },
    payload: { username: 'second', email: 'second@example.org', password: 'a long password', roleId: 1 }
  })
  t.strictSame([createUser.statusCode, createUser.json(), createUser.headers['retry-after']], [503, BUSY, '1'])
  t.equal(app.identity.passwords.hashesRun - hashesBefore, 2, 'neither refused request started a hash')

  hasher.release()
  const held = await first
  t.strictSame([held.statusCode, held.json()], [401, { result: 'error', error: 'INVALID_CREDENTIALS' }])

  // Two free attempts: had the refused one counted, the right password would now wait.
  const wrong = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: ADMIN.username, password: 'wrong password' }, remoteAddress: '10.0.0.2' })
  t.equal(wrong.statusCode, 401)
  const right = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: ADMIN.username, password: ADMIN.password }, remoteAddress: '10.0.0.2' })
  t.equal(right.statusCode, 200, 'the attempt refused for a full queue was not counted')
})

t.test('BoundedPasswords shares the queue fairly: the client that has had least goes next, and takes the newest place of the one that has had most', async t => {
  const hasher = new HeldHasher()
  const stored = await hasher.hash('correct horse battery')
  const passwords = new BoundedPasswords(hasher, { concurrency: 1, queue: 4 })
  const order: string[] = []
  const tagged = (who: string, ip: string) => passwords.verify('wrong', stored, ip).then(() => { order.push(who) }, (error: unknown) => {
    order.push(`${who} refused`)
    if (!isPlatformError(error) || error.status !== 503) throw error
  })
  hasher.hold()
  // One client floods: one runs, four wait, the rest are refused at once.
  const flood = Array.from({ length: 8 }, (_, i) => tagged(`a${i}`, '10.0.0.1'))
  await hasher.holdingAtLeast(1)
  await new Promise(resolve => setImmediate(resolve))
  t.strictSame(order, ['a5 refused', 'a6 refused', 'a7 refused'], 'the queue holds four of them')
  t.strictSame(passwords.load, { running: 1, queued: 4 })
  // Another client (its IPv6 /64 is one client) comes: it takes the flooder's newest place.
  const owner = tagged('owner', '2001:db8::1')
  await new Promise(resolve => setImmediate(resolve))
  t.strictSame(order.slice(3), ['a4 refused'], 'the flooder\'s newest place is given up')
  t.strictSame(passwords.load, { running: 1, queued: 4 })
  const sameOwner = tagged('owner again', '2001:db8::2')
  const third = tagged('third', '10.0.0.3')
  await new Promise(resolve => setImmediate(resolve))
  t.strictSame(order.slice(4), ['a3 refused', 'a2 refused'], 'the owner\'s second and a third client each take one of the flooder\'s places')
  hasher.release()
  await Promise.all([...flood, owner, sameOwner, third])
  // Places count as had: the third client (one place) goes before the owner (two).
  t.strictSame(order.slice(6), ['a0', 'third', 'a1', 'owner', 'owner again'], 'the running one, then whoever has had least, in turn')
  t.strictSame(passwords.load, { running: 0, queued: 0 })
})

t.test('over HTTP: ten addresses keeping the hashing queue full with wrong logins, retrying after each 503, do not keep the owner out', async t => {
  const hasher = new HeldHasher()
  const app = await build(t, { hasher, hashing: { concurrency: 1, queue: 8 }, throttle: { freeAttempts: 1000, firstDelayMs: 1 } })
  await setUp(app)
  const login = (username: string, password: string, remoteAddress: string) =>
    app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password }, remoteAddress })
  // The attacker: 10 addresses × 4 connections, each sending a wrong login again as soon as it is answered 503.
  let stop = false
  let refused = 0
  let hashedForAttacker = 0
  const attacker = async (address: string): Promise<void> => {
    while (!stop) {
      const answer = await login(ADMIN.username, 'a wrong guess', address)
      if (answer.statusCode === 503) refused++
      else hashedForAttacker++
      await new Promise(resolve => setImmediate(resolve))
    }
  }
  const attackers = Array.from({ length: 40 }, (_, i) => attacker(`10.0.1.${i % 10}`))
  // They have been at it for a while: hashes run (the queue full, 503s besides).
  while (hashedForAttacker < 30 || refused < 100) await new Promise(resolve => setImmediate(resolve))
  hasher.hold()
  await hasher.holdingAtLeast(1)
  const refusedBefore = refused
  while (refused < refusedBefore + 100) await new Promise(resolve => setImmediate(resolve))
  t.strictSame(app.identity.passwords.load, { running: 1, queued: 8 }, 'the queue is full, and 503s keep coming')
  // The owner, from home, with the right password: one try.
  const owner = login(ADMIN.username, ADMIN.password, '198.51.100.7')
  // Its session and throttle reads first; then it asks for a hash, and gets a place.
  let answered = false
  void owner.then(() => { answered = true })
  while (!answered && app.identity.passwords.placesOf('198.51.100.7') === 0) await new Promise(resolve => setImmediate(resolve))
  t.notOk(answered, 'not answered (503) while the queue is full')
  t.strictSame(app.identity.passwords.load, { running: 1, queued: 8 }, 'in the full queue, in an attacker\'s place')
  const before = hasher.verified.length
  hasher.release()
  const answer = await owner
  stop = true
  await Promise.all(attackers)
  t.equal(answer.statusCode, 200, 'signed in at the first try')
  t.equal(hasher.verified.indexOf(ADMIN.password, before), before, 'the owner\'s hash is the next to begin')
})
