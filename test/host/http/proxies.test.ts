import t from 'tap'
import { ADMIN, build, setUp } from '../../helpers/app.js'

// Two failures lock an address; the username limit is out of the way.
const throttle = { perUsername: 1000, perAddress: 2, windowMs: 60_000, lockMs: 60_000 }

t.test('TRUST_PROXY as a list: forwarded headers are believed only from those peers', async t => {
  const app = await build(t, { config: { trustProxy: ['10.0.0.0/8', '::1'] }, throttle })
  await setUp(app)
  const signIn = (remoteAddress: string, headers: Record<string, string>, password = ADMIN.password) => app.inject({
    method: 'POST', url: '/api/auth/login', remoteAddress, headers, payload: { username: 'admin', password }
  })
  const secure = async (remoteAddress: string): Promise<boolean> => {
    const response = await signIn(remoteAddress, { 'x-forwarded-proto': 'https' })
    t.equal(response.statusCode, 200)
    return response.cookies.find(c => c.name === 'shoutbox_session')!.secure === true
  }

  t.test('X-Forwarded-Proto: https counts only from a listed proxy', async t => {
    t.equal(await secure('127.0.0.1'), false, 'from 127.0.0.1 (not listed) the cookie is not Secure')
    t.equal(await secure('10.1.2.3'), true, 'from 10.1.2.3 (in 10.0.0.0/8) it is')
    t.equal(await secure('::ffff:10.1.2.3'), true, 'an IPv4-mapped peer (dual-stack listener) matches its IPv4 range')
    t.equal(await secure('::1'), true, 'an IPv6 entry')
    t.equal(await secure('::2'), false)
  })

  t.test('X-Forwarded-For from another peer is ignored: the address seen is the peer\'s', async t => {
    // Two failures "from 1.2.3.4" and "from 1.2.3.5", both sent by 127.0.0.1 itself...
    t.equal((await signIn('127.0.0.1', { 'x-forwarded-for': '1.2.3.4' }, 'wrong password')).statusCode, 401)
    t.equal((await signIn('127.0.0.1', { 'x-forwarded-for': '1.2.3.5' }, 'wrong password')).statusCode, 401)
    // ...locked 127.0.0.1: a third forwarded address does not get it out.
    const locked = await signIn('127.0.0.1', { 'x-forwarded-for': '5.6.7.8' })
    t.same([locked.statusCode, locked.json()], [429, { result: 'error', error: 'TOO_MANY_REQUESTS' }])
  })

  t.test('from a listed proxy it is believed: the forwarded client is the one counted', async t => {
    t.equal((await signIn('10.1.2.3', { 'x-forwarded-for': '1.2.3.4' }, 'wrong password')).statusCode, 401)
    t.equal((await signIn('10.1.2.3', { 'x-forwarded-for': '1.2.3.4' }, 'wrong password')).statusCode, 401)
    t.equal((await signIn('10.1.2.3', { 'x-forwarded-for': '4.4.4.4' })).statusCode, 200, 'the proxy itself is not locked')
    t.equal((await signIn('10.9.9.9', { 'x-forwarded-for': '1.2.3.4' })).statusCode, 429, '1.2.3.4 is, through any listed proxy')
    t.equal((await signIn('10.1.2.3', { 'x-forwarded-for': '1.2.3.4, 10.5.5.5' })).statusCode, 429, 'a chain of listed proxies is walked')
    t.equal((await signIn('10.1.2.3', { 'x-forwarded-for': '1.2.3.4, 8.8.8.8' })).statusCode, 200,
      'an address the client wrote itself (left of an unlisted hop) is not believed')
  })

  t.test('X-Forwarded-Host in the Origin check: only from a listed proxy', async t => {
    const post = (remoteAddress: string) => app.inject({
      method: 'POST',
      url: '/api/nowhere',
      remoteAddress,
      headers: { host: 'internal:8080', 'x-forwarded-host': 'shouts.example.org', origin: 'https://shouts.example.org' }
    })
    t.same((await post('127.0.0.1')).json(), { result: 'error', error: 'INVALID_ORIGIN' })
    t.same((await post('10.1.2.3')).json(), { result: 'error', error: 'NOT_FOUND' })
  })
})

t.test('the hop-count form still works', async t => {
  const app = await build(t, { config: { trustProxy: 1 }, throttle })
  await setUp(app)
  const response = await app.inject({
    method: 'POST', url: '/api/auth/login', remoteAddress: '192.0.2.1', headers: { 'x-forwarded-proto': 'https' }, payload: { username: 'admin', password: ADMIN.password }
  })
  t.equal(response.cookies.find(c => c.name === 'shoutbox_session')!.secure, true)
})
