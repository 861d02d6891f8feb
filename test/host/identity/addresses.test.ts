import t from 'tap'
import { AddressKeys } from '../../../src/host/identity/address-keys.js'
import { build, setUp } from '../../helpers/app.js'
import { account } from '../../helpers/identity.js'

/**
 * The database never holds a client's address in clear: the per-address counters (sign-in
 * attempts, sign-ups, name lookups, wrong API tokens) key on an HMAC of the address under
 * a key of the day, and a day's key is deleted the day after next.
 */

const V4 = '198.51.100.77'
const V6 = '2001:db8:4a7f:1c2e:9:8:7:6'

t.test('after everything a client can do, no column of any table holds its address', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  await account(app, admin, 'mira')
  await app.inject({ method: 'PUT', url: '/api/panel/settings', headers: { cookie: admin }, payload: { signUp: true } })
  for (const remoteAddress of [V4, V6]) {
    const tag = remoteAddress === V4 ? 'four' : 'six'
    const sent = [
      await app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress, payload: { username: 'mira', password: 'not her password' } }),
      await app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress, payload: { username: 'mira', password: 'a long password' } }),
      await app.inject({ method: 'POST', url: '/api/auth/signup', remoteAddress, payload: { username: `new${tag}`, email: `new${tag}@example.org`, password: 'a long password' } }),
      await app.inject({ method: 'GET', url: '/api/users/known?names=mira,nobody', remoteAddress }),
      await app.inject({ method: 'POST', url: '/api/shoutbox', remoteAddress, headers: { authorization: `Bearer sbx_${'x'.repeat(43)}` }, payload: { message: 'hi' } })
    ]
    t.same(sent.map(response => response.statusCode), [401, 200, 200, 200, 401], `every kind of counted request from ${remoteAddress}`)
  }
  t.ok(Number((await app.db('address_quotas').count({ n: '*' }))[0]!.n) > 0, 'the counters were written')
  t.ok(Number((await app.db('sign_in_attempts').count({ n: '*' }))[0]!.n) > 0)

  const columns: Array<{ table_name: string, column_name: string }> = await app.db('information_schema.columns')
    .where('table_schema', app.db.raw('current_schema()'))
    .whereIn('data_type', ['text', 'character varying', 'character', 'jsonb', 'json'])
    .select('table_name', 'column_name')
  t.ok(columns.length > 30, `${columns.length} text columns read`)
  const found: string[] = []
  for (const { table_name: table, column_name: column } of columns) {
    for (const needle of [V4, '2001:db8:4a7f:1c2e', V6]) {
      const hits = await app.db(table).whereRaw('??::text like ?', [column, `%${needle}%`]).count({ n: '*' })
      if (Number(hits[0]!.n) > 0) found.push(`${table}.${column} holds ${needle}`)
    }
  }
  t.same(found, [], 'none holds either address')
})

t.test('each day has its own key, and old ones are forgotten', async t => {
  const app = await build(t)
  await setUp(app)
  let now = Date.UTC(2026, 10, 26, 23, 59)
  const keys = new AddressKeys(app.db, () => now)
  const monday = await keys.of(V4)
  t.equal(await keys.of(V4), monday, 'the same address, the same day: the same key')
  t.equal(await keys.of('::ffff:198.51.100.77'), monday, 'an IPv4-mapped address is its IPv4 one')
  t.not(await keys.of('198.51.100.78'), monday)
  t.equal(await keys.of('2001:db8:4a7f:1c2e::1'), await keys.of(V6), 'an IPv6 client by its /64')
  t.notMatch(monday, /198|51|100|77/)
  t.equal(await new AddressKeys(app.db, () => now).of(V4), monday, 'another process of the database agrees')
  now += 2 * 60_000
  const tuesday = await keys.of(V4)
  t.not(tuesday, monday, 'after midnight, another key')
  now += 2 * 24 * 60 * 60_000
  await keys.of(V4)
  const days = (await app.db('address_keys').orderBy('day').select('day')).map(row => row.day)
  t.same(days, ['2026-11-29'], 'the keys of days before yesterday are gone')
})
