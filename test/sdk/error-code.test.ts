import t from 'tap'
import { BadRequest, NoPermission, PlatformError, TooManyRequests, errorCode } from '../../src/sdk/index.js'

t.test('a class name becomes its UPPER_SNAKE code', async t => {
  t.equal(errorCode('NoPermission'), 'NO_PERMISSION')
  t.equal(errorCode('MessageTooLong'), 'MESSAGE_TOO_LONG')
  t.equal(errorCode('NotFound'), 'NOT_FOUND')
  t.equal(errorCode('BadRequest'), 'BAD_REQUEST')
  t.equal(errorCode('PlatformAlreadyInstalled'), 'PLATFORM_ALREADY_INSTALLED')
  t.equal(errorCode('HTTPTimeout'), 'HTTP_TIMEOUT')
  t.equal(errorCode('Error2Fa'), 'ERROR2_FA')
})

t.test('an error carries the code of its own class, its status and extras', async t => {
  class ShoutsFrozen extends BadRequest {}
  const error = new ShoutsFrozen({ until: 5 })
  t.equal(error.code, 'SHOUTS_FROZEN')
  t.equal(error.status, 400)
  t.same(error.extras, { until: 5 })
  t.equal(new NoPermission().code, 'NO_PERMISSION')
  t.equal(new NoPermission().status, 403)
  t.equal(new PlatformError().status, 500)
})

t.test('TooManyRequests sets Retry-After in whole seconds, at least 1', async t => {
  t.same(new TooManyRequests(0.2).headers, { 'retry-after': '1' })
  t.same(new TooManyRequests(61.5).headers, { 'retry-after': '62' })
})
