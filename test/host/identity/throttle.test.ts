import t from 'tap'
import { ADMIN, build, setUp } from '../../helpers/app.js'

const policy = { perUsername: 3, perAddress: 6, windowMs: 60_000, lockMs: 60_000 }

t.test('sign-in throttling', async t => {
  const app = await build(t, { config: { trustProxy: 1 }, throttle: policy })
  await setUp(app)
  const attempt = (username: string, password: string, ip: string) => app.inject({
    method: 'POST', url: '/api/auth/login', payload: { username, password }, headers: { 'x-forwarded-for': ip }
  })

  t.test('per username: past the limit, 429 with Retry-After, and the right password does not get through', async t => {
    for (let i = 0; i < 3; i++) t.equal((await attempt('admin', 'wrong password', `10.1.0.${i}`)).statusCode, 401)
    const locked = await attempt('admin', ADMIN.password, '10.1.0.99')
    t.same([locked.statusCode, locked.json()], [429, { result: 'error', error: 'TOO_MANY_REQUESTS' }])
    t.equal(locked.headers['retry-after'], '60')
    t.equal((await attempt('ADMIN@example.org', ADMIN.password, '10.1.0.98')).statusCode, 200,
      'the e-mail address is a separate key: the lock is on what was typed')
  })

  t.test('per client address, across usernames', async t => {
    for (let i = 0; i < 6; i++) t.equal((await attempt(`user${i}`, 'wrong password', '10.2.0.1')).statusCode, 401)
    const locked = await attempt('someone-else', 'whatever pw', '10.2.0.1')
    t.same([locked.statusCode, locked.json()], [429, { result: 'error', error: 'TOO_MANY_REQUESTS' }])
    t.equal((await attempt('someone-else', 'whatever pw', '10.2.0.2')).statusCode, 401, 'other addresses are not locked')
  })

  t.test('a successful sign-in clears the username\'s failures', async t => {
    const app = await build(t, { config: { trustProxy: 1 }, throttle: { ...policy, perAddress: 100 } })
    await setUp(app)
    const attempt = (password: string) => app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: 'admin', password } })
    for (let round = 0; round < 3; round++) {
      t.equal((await attempt('wrong password')).statusCode, 401)
      t.equal((await attempt('wrong password')).statusCode, 401)
      t.equal((await attempt(ADMIN.password)).statusCode, 200, `round ${round}`)
    }
  })
})
