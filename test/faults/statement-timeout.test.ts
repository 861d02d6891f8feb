import pg from 'pg'
import t from 'tap'
import { openDatabase } from '../../src/host/database/connect.js'
import { build, setUp } from '../helpers/app.js'
import { DB_KIND, TEST_DATABASE_URL, testDatabase } from '../helpers/database.js'

t.test('a statement stopped by its time limit answers 503 SERVICE_UNAVAILABLE with Retry-After, never 500; the next request is served',
  { skip: DB_KIND !== 'postgres' && 'needs PostgreSQL: the embedded database keeps no time limit (its searches are bounded by their plans: query-plans.test.ts)' }, async t => {
    const base = await testDatabase()
    // The pool's time limit, short: a lock held elsewhere makes the archive's statements wait past it.
    const app = await build(t, { db: { ...base, open: () => openDatabase({ url: TEST_DATABASE_URL!, schema: base.schema, poolSize: 20, statementTimeoutMs: 300 }) } })
    await setUp(app)
    const locker = new pg.Client({ connectionString: TEST_DATABASE_URL })
    await locker.connect()
    t.teardown(() => locker.end())
    await locker.query(`set search_path = "${base.schema}"`)
    await locker.query('begin')
    await locker.query('lock table shoutbox_shouts in access exclusive mode')

    for (const url of ['/api/shoutbox/archive?q=hello', '/api/shoutbox/archive?q=%22the%20the%22', '/api/shoutbox/archive?before=5']) {
      const answer = await app.inject({ url })
      t.same([answer.statusCode, answer.json(), answer.headers['retry-after']], [503, { result: 'error', error: 'SERVICE_UNAVAILABLE' }, '1'], url)
    }

    await locker.query('rollback')
    const after = await app.inject({ url: '/api/shoutbox/archive?q=hello' })
    t.same([after.statusCode, after.json()], [200, { result: 'ok', shouts: [], next: null }], 'the lock gone, the same search is answered')
  })
