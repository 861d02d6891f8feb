import { randomBytes, scrypt } from 'node:crypto'
import t from 'tap'
import { OWASP_ARGON2ID, PasswordHasher } from '../../../src/host/identity/passwords.js'

const cheap = { memoryCost: 1024, timeCost: 1, parallelism: 1 }

/** A hash as versions before argon2id wrote them: `scrypt$<logN>$<r>$<p>$<salt>$<key>`. */
async function scryptHash (password: string, logN = 10): Promise<string> {
  const salt = randomBytes(16)
  const key = await new Promise<Buffer>((resolve, reject) => scrypt(password.normalize('NFC'), salt, 32, { N: 2 ** logN, r: 8, p: 1 }, (error, derived) => error ? reject(error) : resolve(derived)))
  return ['scrypt', logN, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$')
}

t.test('argon2id at OWASP\'s parameters by default (19 MiB, 2 passes, 1 lane), recorded in the hash', async t => {
  t.same(OWASP_ARGON2ID, { memoryCost: 19_456, timeCost: 2, parallelism: 1 })
  const hash = await new PasswordHasher().hash('correct horse battery')
  t.match(hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/)
  t.equal(await new PasswordHasher().verify('correct horse battery', hash), true)
})

t.test('verify accepts the password, refuses others; salts differ', async t => {
  const hasher = new PasswordHasher(cheap)
  const a = await hasher.hash('pässword one')
  const b = await hasher.hash('pässword one')
  t.not(a, b, 'a fresh salt each time')
  t.equal(await hasher.verify('pässword one', a), true)
  t.equal(await hasher.verify('pa\u0308ssword one', a), true, 'Unicode-normalised (NFC)')
  t.equal(await hasher.verify('password one', a), false)
  for (const garbage of ['garbage', '', '$argon2id$v=19$m=1024,t=1,p=1$AAAA$BBBB', '$argon2id$v=19$m=1024,t=1,p=1$', 'scrypt$10$8$1$', 'scrypt$99$8$1$AAAA$BBBB']) {
    t.equal(await hasher.verify('pässword one', garbage).catch(() => 'threw'), false, `a malformed hash (${JSON.stringify(garbage)}) matches nothing and throws nothing`)
  }
  t.equal(await new PasswordHasher().verify('pässword one', a), true, 'the parameters a hash records are the ones it is checked with')
})

t.test('an scrypt hash of an earlier version still verifies, and asks to be hashed anew', async t => {
  const hasher = new PasswordHasher(cheap)
  const old = await scryptHash('pässword one')
  t.equal(await hasher.verify('pässword one', old), true)
  t.equal(await hasher.verify('pa\u0308ssword one', old), true, 'NFC, as it was')
  t.equal(await hasher.verify('password one', old), false)
  t.equal(hasher.needsRehash(old), true, 'scrypt: hash anew')
  t.equal(hasher.needsRehash(await hasher.hash('x')), false, 'its own: no')
  t.equal(new PasswordHasher().needsRehash(await hasher.hash('x')), true, 'weaker parameters than the hasher\'s: hash anew')
  t.equal(hasher.needsRehash(await new PasswordHasher().hash('x')), false, 'stronger ones: kept')
})

t.test('verifyNobody refuses, spending a real check', async t => {
  t.equal(await new PasswordHasher(cheap).verifyNobody('anything'), false)
})

t.test('hashing does not block the event loop', async t => {
  let ticks = 0
  let running = true
  const tick = (): void => {
    ticks++
    if (running) setImmediate(tick)
  }
  setImmediate(tick)
  for (let i = 0; i < 5; i++) await new PasswordHasher().hash('correct horse battery')
  running = false
  t.ok(ticks > 10, `the loop turned ${ticks} times while five OWASP hashes ran`)
})
