import t from 'tap'
import { OWASP_SCRYPT, PasswordHasher } from '../../../src/host/identity/passwords.js'

t.test('scrypt at OWASP\'s parameters by default, recorded in the hash', async t => {
  t.same(OWASP_SCRYPT, { logN: 17, r: 8, p: 1 })
  const hash = await new PasswordHasher().hash('correct horse battery')
  t.match(hash, /^scrypt\$17\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/)
})

t.test('verify accepts the password, refuses others; salts differ', async t => {
  const hasher = new PasswordHasher({ logN: 10, r: 8, p: 1 })
  const a = await hasher.hash('pässword one')
  const b = await hasher.hash('pässword one')
  t.not(a, b, 'a fresh salt each time')
  t.equal(await hasher.verify('pässword one', a), true)
  t.equal(await hasher.verify('pa\u0308ssword one', a), true, 'Unicode-normalised (NFC)')
  t.equal(await hasher.verify('password one', a), false)
  t.equal(await hasher.verify('pässword one', 'garbage'), false)
  t.equal(await new PasswordHasher().verify('pässword one', a), true, 'old parameters still verify')
})

t.test('hashing does not block the event loop', async t => {
  let ticks = 0
  let running = true
  const tick = (): void => {
    ticks++
    if (running) setImmediate(tick)
  }
  setImmediate(tick)
  await new PasswordHasher().hash('correct horse battery')
  running = false
  t.ok(ticks > 10, `the loop turned ${ticks} times while one OWASP hash ran`)
})
