import { createHmac } from 'node:crypto'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { AddressKeys, dayKey } from '../../../src/host/identity/address-keys.js'
import { ADDRESS_SECRET_FILE, loadAddressSecret } from '../../../src/host/identity/address-secret.js'
import { ADDRESS_SECRET, build, setUp, type App } from '../../helpers/app.js'
import { DB_KIND, testDatabase } from '../../helpers/database.js'
import { account } from '../../helpers/identity.js'
import { startServer } from '../../helpers/server.js'

/**
 * The database never holds a client's address in clear: the per-address counters (sign-in
 * attempts, sign-ups, name lookups, wrong API tokens) key on an HMAC of the address under
 * a key of the day, derived from a secret the database does not hold (ADDRESS_SECRET, or
 * the data folder's `address-secret`).
 */

const V4 = '198.51.100.77'
const V6 = '2001:db8:4a7f:1c2e:9:8:7:6'
const today = (): string => new Date().toISOString().slice(0, 10)

/** Every kind of request that writes a per-address counter, from `remoteAddress`. */
async function countedRequests (app: App, remoteAddress: string, tag: string): Promise<number[]> {
  const sent = [
    await app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress, payload: { username: 'mira', password: 'not her password' } }),
    await app.inject({ method: 'POST', url: '/api/auth/login', remoteAddress, payload: { username: 'mira', password: 'a long password' } }),
    await app.inject({ method: 'POST', url: '/api/auth/signup', remoteAddress, payload: { username: `new${tag}`, email: `new${tag}@example.org`, password: 'a long password' } }),
    await app.inject({ method: 'GET', url: '/api/users/known?names=mira,nobody', remoteAddress }),
    await app.inject({ method: 'POST', url: '/api/shoutbox', remoteAddress, headers: { authorization: `Bearer sbx_${'x'.repeat(43)}` }, payload: { message: 'hi' } })
  ]
  return sent.map(response => response.statusCode)
}

/** Every string a dump of the schema holds: each table's rows, each value in them (JSON ones opened up). */
async function dumpStrings (app: App): Promise<Set<string>> {
  const tables: Array<{ table_name: string }> = await app.db('information_schema.tables')
    .where({ table_schema: app.db.raw('current_schema()'), table_type: 'BASE TABLE' }).select('table_name')
  const strings = new Set<string>()
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      strings.add(value)
      if (/^[[{]/.test(value)) {
        try {
          walk(JSON.parse(value))
        } catch {
          // not JSON: the string itself is kept
        }
      }
    } else if (Array.isArray(value)) value.forEach(walk)
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(walk)
  }
  for (const { table_name: table } of tables) {
    const rows: Array<{ row: unknown }> = await app.db.raw('select row_to_json(t) as row from ?? t', [table]).then((result: { rows: Array<{ row: unknown }> }) => result.rows)
    rows.forEach(({ row }) => walk(row))
  }
  return strings
}

const SLASH_16 = Array.from({ length: 65_536 }, (_, i) => `127.0.${i >> 8}.${i & 255}`)

/**
 * The addresses of 127.0.0.0/16 whose HMAC under `key` is the key of a counter the dump
 * holds. `AddressKeys.of`'s construction, each IPv4 address being its own client key (the
 * attack finding the client with the right key shows they agree).
 */
function bruteForce (key: Buffer, counters: ReadonlySet<string>): string[] {
  return SLASH_16.filter(address => counters.has(createHmac('sha256', key).update(address).digest('base64url')))
}

t.test('a copy of the database, with requests from one client in its counters', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  await account(app, admin, 'mira')
  await app.inject({ method: 'PUT', url: '/api/panel/settings', headers: { cookie: admin }, payload: { signUp: true } })
  const day = today()
  const sent: Record<string, number[]> = {}
  for (const [remoteAddress, tag] of [['127.0.0.1', 'local'], [V4, 'four'], [V6, 'six']] as const) sent[remoteAddress] = await countedRequests(app, remoteAddress, tag)
  t.same(sent, { '127.0.0.1': [401, 200, 200, 200, 401], [V4]: [401, 200, 200, 200, 401], [V6]: [401, 200, 200, 200, 401] }, 'every kind of counted request, from each client')

  t.test('no column of any table holds an address in clear', async t => {
    const columns: Array<{ table_name: string, column_name: string }> = await app.db('information_schema.columns')
      .where('table_schema', app.db.raw('current_schema()'))
      .whereIn('data_type', ['text', 'character varying', 'character', 'jsonb', 'json'])
      .select('table_name', 'column_name')
    t.ok(columns.length > 30, `${columns.length} text columns read`)
    const found: string[] = []
    for (const { table_name: table, column_name: column } of columns) {
      for (const needle of [V4, '2001:db8:4a7f:1c2e', V6, '127.0.0.1']) {
        const hits = await app.db(table).whereRaw('??::text like ?', [column, `%${needle}%`]).count({ n: '*' })
        if (Number(hits[0]!.n) > 0) found.push(`${table}.${column} holds ${needle}`)
      }
    }
    t.same(found, [], 'none holds any of the addresses')
  })

  t.test('the attack: brute force over 127.0.0.0/16 with everything the dump holds recovers nothing', async t => {
    const strings = await dumpStrings(app)
    // The per-address counters (`sign-up:<hmac>`, `known-users:<hmac>`): what an HMAC of the right address would meet.
    const counters = new Set([...strings].filter(text => /^[a-z-]+:[\w-]{43}$/.test(text)).map(text => text.slice(text.indexOf(':') + 1)))
    t.equal(counters.size, 3, `one HMAC per client in the counters, among ${strings.size} strings`)
    const key = dayKey(ADDRESS_SECRET, day, 'counters')
    t.same(bruteForce(key, counters), ['127.0.0.1'], 'with the day\'s key, the brute force finds the client: the attack works')
    t.equal(new AddressKeys(ADDRESS_SECRET, () => Date.parse(day)).of('127.0.0.1'), createHmac('sha256', key).update('127.0.0.1').digest('base64url'))

    // Every value of the dump that can be a key (32 bytes, as base64url, as `address_keys`
    // held them, or as hex), put through the same HMAC for each of the 65,536 addresses.
    const candidates = [...strings].flatMap(text => /^[\w-]{43}$/.test(text) ? [Buffer.from(text, 'base64url')] : /^[0-9a-f]{64}$/i.test(text) ? [Buffer.from(text, 'hex')] : [])
    t.ok(candidates.length > 5, `${candidates.length} candidate keys in the dump`)
    t.same(candidates.flatMap(candidate => bruteForce(candidate, counters)), [], `${candidates.length} x ${SLASH_16.length} HMACs: no address recovered`)
    // What the key is derived from, and the key itself, in no value, whole or in part.
    const inside = (needle: string): string[] => [...strings].filter(text => text.includes(needle))
    t.same([ADDRESS_SECRET, key.toString('base64url'), key.toString('hex'), key.toString('base64')].flatMap(inside), [], 'neither the secret nor the day\'s key is anywhere in the dump')
    const tables: Array<{ table_name: string }> = await app.db('information_schema.tables').where({ table_schema: app.db.raw('current_schema()'), table_name: 'address_keys' }).select('table_name')
    t.same(tables, [], 'no table of keys: the day is in the derivation, so forgetting a past day\'s key is nothing to do')
  })
})

t.test('the keys of the day: one per day and secret, the same in every process', async t => {
  let now = Date.UTC(2026, 10, 26, 23, 59)
  const keys = new AddressKeys(ADDRESS_SECRET, () => now)
  const monday = keys.of(V4)
  t.equal(keys.of(V4), monday, 'the same address, the same day: the same key')
  t.equal(keys.of('::ffff:198.51.100.77'), monday, 'an IPv4-mapped address is its IPv4 one')
  t.not(keys.of('198.51.100.78'), monday)
  t.equal(keys.of('2001:db8:4a7f:1c2e::1'), keys.of(V6), 'an IPv6 client by its /64')
  t.notMatch(monday, /198|51|100|77/)
  t.equal(new AddressKeys(ADDRESS_SECRET, () => now).of(V4), monday, 'another process with the same secret agrees')
  t.not(new AddressKeys(`${ADDRESS_SECRET}-other`, () => now).of(V4), monday, 'one with another secret does not')
  t.not(keys.pseudonym(V4), monday.slice(0, 12), 'the log\'s pseudonym is not the counters\' key')
  t.match(keys.pseudonym(V4), /^[\w-]{12}$/)
  now += 2 * 60_000
  t.not(keys.of(V4), monday, 'after midnight, another key')
})

t.test('two apps sharing the database with the same secret share the per-address counters', async t => {
  const db = await testDatabase({ persistent: DB_KIND === 'embedded' })
  t.teardown(() => db.drop())
  const first = await build(t, { db })
  const admin = await setUp(first)
  await first.inject({ method: 'PUT', url: '/api/panel/settings', headers: { cookie: admin }, payload: { signUp: true } })
  const signUp = (app: App, name: string, remoteAddress: string) => app.inject({ method: 'POST', url: '/api/auth/signup', remoteAddress, payload: { username: name, email: `${name}@example.org`, password: 'a long password' } })
  const firsts = []
  for (const name of ['one', 'two', 'three', 'four', 'five']) firsts.push((await signUp(first, name, V4)).statusCode)
  t.same(firsts, [200, 200, 200, 200, 200], 'five sign-ups an hour from one address, on the first')
  const key = first.identity.addresses.of(V4)
  // The embedded database has one process at a time: the second is the first's restart.
  if (DB_KIND === 'embedded') await first.close()
  const second = await build(t, { db })
  t.equal(second.identity.addresses.of(V4), key, 'the same key for the same address')
  const sixth = await signUp(second, 'six', V4)
  t.same([sixth.statusCode, sixth.json()], [429, { result: 'error', error: 'TOO_MANY_REQUESTS' }], 'the sixth, on the second, counts with the first five')
  t.equal((await signUp(second, 'seven', V6)).statusCode, 200, 'another address is not held back')
})

t.test('the secret file in the data folder', async t => {
  const folder = async (): Promise<string> => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'shoutbox-secret-'))
    t.teardown(() => fs.rm(dir, { recursive: true, force: true }))
    return dir
  }
  const embedded = (dataDir: string) => ({ dataDir, databaseUrl: undefined, addressSecret: undefined })

  t.test('made at the first start, mode 0600, all at once; read at the next', async t => {
    const dataDir = path.join(await folder(), 'data')
    const made = await Promise.all(Array.from({ length: 5 }, () => loadAddressSecret(embedded(dataDir))))
    t.equal(new Set(made).size, 1, 'five processes starting at once agree on one secret')
    const file = path.join(dataDir, ADDRESS_SECRET_FILE)
    t.equal((await fs.stat(file)).mode & 0o777, 0o600)
    t.equal(await fs.readFile(file, 'utf8'), `${made[0]}\n`)
    t.match(made[0], /^[\w-]{43}$/, '32 random bytes')
    t.same(await fs.readdir(dataDir), [ADDRESS_SECRET_FILE], 'nothing half-made left beside it')
    t.equal(await loadAddressSecret(embedded(dataDir)), made[0], 'a later start reads it')
    t.equal(await loadAddressSecret({ ...embedded(dataDir), databaseUrl: 'postgres://db/x' }), made[0], 'with PostgreSQL too, once it is there')
    t.equal(await loadAddressSecret({ ...embedded(dataDir), addressSecret: ADDRESS_SECRET }), ADDRESS_SECRET, 'ADDRESS_SECRET wins')
  })

  t.test('a file others may read is refused, not used', async t => {
    const dataDir = await folder()
    const file = path.join(dataDir, ADDRESS_SECRET_FILE)
    await loadAddressSecret(embedded(dataDir))
    await fs.chmod(file, 0o644)
    await t.rejects(loadAddressSecret(embedded(dataDir)), { name: 'ConfigError', message: `${file} may be read by other users (mode 0644): chmod 600 it, and replace it if someone else may have read it` })
    await fs.chmod(file, 0o640)
    await t.rejects(loadAddressSecret(embedded(dataDir)), { message: /\(mode 0640\)/ }, 'by its group too')
    await fs.writeFile(file, 'short\n', { mode: 0o600 })
    await fs.chmod(file, 0o600)
    await t.rejects(loadAddressSecret(embedded(dataDir)), { message: `${file} must hold a secret of 32 characters or more` })
  })

  t.test('PostgreSQL with neither ADDRESS_SECRET nor the file: no start, one line', async t => {
    const dataDir = await folder()
    const message = `with DATABASE_URL, every process must derive the same address keys: set ADDRESS_SECRET to one secret of 32 characters or more (openssl rand -base64 32) in each, or put it in ${path.join(dataDir, ADDRESS_SECRET_FILE)} (mode 0600)`
    await t.rejects(loadAddressSecret({ ...embedded(dataDir), databaseUrl: 'postgres://db/x' }), { name: 'ConfigError', message })
    t.same(await fs.readdir(dataDir), [], 'no secret made that the other processes would not know')
    const server = await startServer(t, { env: { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/x', DATA_DIR: dataDir, ADDRESS_SECRET: '' }, waitUntilReady: false })
    t.equal(await server.exited, 2)
    t.equal(server.stderr(), `shoutbox: ${message}\n`)
  })
})
