import t from 'tap'
import type { ServiceUnavailable } from '../../src/sdk/index.js'
import { SEARCHES_AT_ONCE, SEARCHES_WAITING, Searches } from '../../src/shoutbox/searches.js'
import { shoutsRepository } from '../../src/shoutbox/shouts-repository.js'
import { build, setUp } from '../helpers/app.js'
import { ANSWERED_KEYS, answered } from '../helpers/shouts.js'
import type { FullShout as Shout } from '../helpers/types.js'

const GENERAL = { id: 1, slug: 'general' }

/**
 * Rows of the shouts table (every one of the default room here, none a reply, none reacted
 * to) as the answers show them: the four fields, then the room (CONTRACT §15), `replyTo` and
 * `reactions` (§16).
 */
const inGeneral = (rows: Array<Pick<Shout, 'id' | 'message' | 'username' | 'date'>>): Shout[] => rows.map(row => answered(row))

/** CONTRACT §14: GET /api/shoutbox/archive and GET /api/shoutbox/shouts/:id. */
t.test('GET /api/shoutbox/archive', async t => {
  const app = await build(t)
  const cookie = await setUp(app)
  const archive = (query = '') => app.inject({ url: `/api/shoutbox/archive${query}` })
  const publish = (message: string) => app.inject({ method: 'POST', url: '/panel/api/shoutbox', headers: { cookie }, payload: { message } })
  /** The shouts as stored, newest first: what the archive must show. */
  const stored = async (): Promise<Shout[]> => inGeneral(await app.db('shoutbox_shouts').orderBy('id', 'desc').select('id', 'message', 'username', 'date'))

  t.test('with no shout: no shouts, no next page', async t => {
    const response = await archive()
    t.same([response.statusCode, response.body], [200, '{"result":"ok","shouts":[],"next":null}'])
    t.equal(response.headers['content-type'], 'application/json; charset=utf-8')
  })

  const messages = [
    'Welcome to the new site!', 'The meet-up moves to Saturday', 'Server maintenance tonight',
    'Saturday meet-up: bring snacks', 'Hello world', 'İstanbul chapter meets on Friday', 'Last call for the Saturday meet-up'
  ]
  for (const message of messages) t.equal((await publish(message)).statusCode, 200)
  const all = await stored()

  t.test('newest first, each shout with exactly id, message, username, date, room, replyTo, reactions; 20 a page by default', async t => {
    const response = await archive()
    t.same([response.statusCode, response.json()], [200, { result: 'ok', shouts: all, next: null }])
    t.same(Object.keys(response.json().shouts[0]), ANSWERED_KEYS)
    t.same(response.json().shouts.map((s: Shout) => s.id), [7, 6, 5, 4, 3, 2, 1])
  })

  t.test('limit and before: next is the before of the following page, null after the last', async t => {
    const first = await archive('?limit=3')
    t.same([first.statusCode, first.json()], [200, { result: 'ok', shouts: all.slice(0, 3), next: 5 }])
    const second = await archive('?limit=3&before=5')
    t.same([second.statusCode, second.json()], [200, { result: 'ok', shouts: all.slice(3, 6), next: 2 }])
    const last = await archive('?limit=3&before=2')
    t.same([last.statusCode, last.json()], [200, { result: 'ok', shouts: all.slice(6), next: null }])
  })

  t.test('a page that ends exactly at the oldest shout has no next page', async t => {
    const response = await archive('?limit=7')
    t.same(response.json(), { result: 'ok', shouts: all, next: null })
    t.same((await archive('?limit=6')).json(), { result: 'ok', shouts: all.slice(0, 6), next: 2 })
  })

  t.test('before is exclusive and need not be an existing id', async t => {
    t.same((await archive('?before=7&limit=1')).json(), { result: 'ok', shouts: [all[1]], next: 6 })
    t.same((await archive('?before=1000&limit=2')).json(), { result: 'ok', shouts: all.slice(0, 2), next: 6 })
    t.same((await archive('?before=1')).json(), { result: 'ok', shouts: [], next: null })
    t.same((await archive('?before=0')).json(), { result: 'ok', shouts: [], next: null })
  })

  t.test('limit 1 and 100 are the bounds', async t => {
    t.same((await archive('?limit=1')).json(), { result: 'ok', shouts: [all[0]], next: 7 })
    t.same((await archive('?limit=100')).json(), { result: 'ok', shouts: all, next: null })
  })

  t.test('bad parameters → 400 BAD_REQUEST in the envelope', async t => {
    const cases: Array<[string, string]> = [
      ['?limit=0', 'querystring/limit must be >= 1'],
      ['?limit=101', 'querystring/limit must be <= 100'],
      ['?limit=abc', 'querystring/limit must be integer'],
      ['?limit=1.5', 'querystring/limit must be integer'],
      ['?limit=', 'querystring/limit must be integer'],
      ['?before=abc', 'querystring/before must match pattern "^[0-9]{1,15}$"'],
      ['?before=-1', 'querystring/before must match pattern "^[0-9]{1,15}$"'],
      ['?before=1e3', 'querystring/before must match pattern "^[0-9]{1,15}$"'],
      ['?before=1.5', 'querystring/before must match pattern "^[0-9]{1,15}$"'],
      ['?before=', 'querystring/before must match pattern "^[0-9]{1,15}$"'],
      ['?before=9999999999999999', 'querystring/before must match pattern "^[0-9]{1,15}$"'],
      [`?q=${'a'.repeat(201)}`, 'querystring/q must NOT have more than 200 characters'],
      ['?q=nul%00byte', 'querystring/q must not contain U+0000 or an unpaired surrogate']
    ]
    for (const [query, bodyValidationError] of cases) {
      const response = await archive(query)
      t.same([response.statusCode, response.json()], [400, { result: 'error', error: 'BAD_REQUEST', bodyValidationError }], query)
    }
  })

  t.test('q finds shouts by their words (PostgreSQL full-text search, simple configuration)', async t => {
    const byMessage = (...wanted: string[]) => all.filter(s => wanted.includes(s.message))
    const search = async (q: string, more = '') => archive(`?q=${encodeURIComponent(q)}${more}`)
    const saturday = await search('saturday')
    t.same([saturday.statusCode, saturday.json()], [200, {
      result: 'ok', shouts: byMessage('Last call for the Saturday meet-up', 'Saturday meet-up: bring snacks', 'The meet-up moves to Saturday'), next: null
    }], 'one word, any case')
    t.same((await search('SATURDAY snacks')).json(), { result: 'ok', shouts: byMessage('Saturday meet-up: bring snacks'), next: null }, 'every word must be there')
    t.same((await search('"moves to saturday"')).json(), { result: 'ok', shouts: byMessage('The meet-up moves to Saturday'), next: null }, 'a phrase in quotes')
    t.same((await search('saturday -snacks -call')).json(), { result: 'ok', shouts: byMessage('The meet-up moves to Saturday'), next: null }, '-word leaves out')
    t.same((await search('istanbul')).json(), { result: 'ok', shouts: byMessage('İstanbul chapter meets on Friday'), next: null }, 'letters beyond ASCII')
    t.same((await search('sat')).json(), { result: 'ok', shouts: [], next: null }, 'whole words, not parts')
    t.same((await search('nothing-like-this')).json(), { result: 'ok', shouts: [], next: null }, 'no match')
  })

  t.test('a search pages like the archive', async t => {
    const matches = all.filter(s => /saturday/i.test(s.message))
    const first = await archive('?q=saturday&limit=2')
    t.same(first.json(), { result: 'ok', shouts: matches.slice(0, 2), next: matches[1]!.id })
    const second = await archive(`?q=saturday&limit=2&before=${first.json().next}`)
    t.same(second.json(), { result: 'ok', shouts: matches.slice(2), next: null })
  })

  t.test('a blank q is no search', async t => {
    for (const q of ['', '%20%20', '%09']) t.same((await archive(`?q=${q}`)).json(), { result: 'ok', shouts: all, next: null }, JSON.stringify(q))
  })

  t.test('input that looks like SQL or tsquery syntax is only text', async t => {
    await publish('Please do not drop the table in the kitchen')
    const withDrop = (await stored()).filter(s => s.message.startsWith('Please do not drop'))
    const cases: Array<[string, Shout[]]> = [
      ["'); drop table shoutbox_shouts; --", []],
      ["drop table'); --", withDrop],
      ['&|!', []],
      ['snacks & !saturday | (hello', []],
      ['hel:*', []],
      ['"unclosed quote', []],
      ['\\', []],
      ['():*<->', []],
      ['%_*?', []],
      ['<script>alert(1)</script>', []]
    ]
    for (const [q, shouts] of cases) {
      const response = await archive(`?q=${encodeURIComponent(q)}`)
      t.same([response.statusCode, response.json()], [200, { result: 'ok', shouts, next: null }], q)
    }
    t.equal((await stored()).length, 8, 'the table is still there, untouched')
  })

  t.test('public: a session changes nothing; a shout published later is seen', async t => {
    t.same((await app.inject({ url: '/api/shoutbox/archive', headers: { cookie } })).json(), (await archive()).json())
    await publish('the newest one')
    t.equal((await archive('?limit=1')).json().shouts[0].message, 'the newest one')
  })
})

t.test('a search reads the board a range of ids at a time, within a bounded time: followed page by page, it finds every match exactly once', async t => {
  const app = await build(t)
  await setUp(app)
  // 300 shouts: every seventh holds "needle", and "hay stack" is in all of them, never "stack hay".
  await app.db('shoutbox_shouts').insert(Array.from({ length: 300 }, (_, i) => ({ message: `${i % 7 === 0 ? 'needle ' : ''}hay stack ${i}`, username: 'admin', date: 1795000000000 + i })))
  const matches = (await app.db('shoutbox_shouts').orderBy('id', 'desc').select('id', 'message')).filter(row => row.message.startsWith('needle ')).map(row => Number(row.id))
  t.equal(matches.length, 43)
  const repository = shoutsRepository(app.db)
  // One range of 10 ids a call (no time for a second): pages of 5. With no candidates
  // allowed from the search index, every search reads ranges.
  for (const q of ['needle', 'needle hay', '"needle hay stack"', '-hay or needle']) {
    const found: number[] = []
    let calls = 0
    for (let before: number | undefined; ; calls++) {
      const { shouts, searchedTo } = await repository.search({ room: GENERAL, before, limit: 5, q }, { firstRange: 10, budgetMs: 0, candidates: 0 })
      t.ok(shouts.every(shout => before === undefined || shout.id < before), 'each below where the last stopped')
      found.push(...shouts.map(shout => shout.id))
      const next = shouts.length === 5 ? shouts.at(-1)!.id : searchedTo
      if (next === null) break
      before = next
    }
    t.same(found, matches, `${q}: every match once, newest first (${calls + 1} calls)`)
  }
  const never = await repository.search({ room: GENERAL, limit: 5, q: '"stack hay"' }, { firstRange: 10, budgetMs: 0, candidates: 0 })
  t.same(never, { shouts: [], searchedTo: 291 }, 'a phrase no shout holds: one range read, and where it stopped')
  // With the search index: 43 candidates for "needle", the whole board in one query.
  for (const q of ['needle', 'needle hay', '"needle hay stack"', 'needle needle -haystack']) {
    const { shouts, searchedTo } = await repository.search({ room: GENERAL, limit: 50, q }, { firstRange: 10, budgetMs: 0 })
    t.same([shouts.map(shout => shout.id), searchedTo], [matches, null], `${q}: every match, the whole board searched`)
  }
  t.same(await repository.search({ room: GENERAL, limit: 5, q: '"stack hay"' }, { firstRange: 10, budgetMs: 0 }), { shouts: [], searchedTo: null }, 'a phrase no shout holds, on a board this small: its 300 candidates read')
  for (const q of ['needle -needle', 'hay hay -hay', '-"hay stack" "hay stack"']) {
    t.same(await repository.search({ room: GENERAL, limit: 5, q }, { firstRange: 10, budgetMs: 0 }), { shouts: [], searchedTo: null }, `${q}: no shout can match, nothing read`)
  }
  t.same((await repository.search({ room: GENERAL, limit: 5, q: 'needle or -needle' }, { budgetMs: 0 })).shouts.length, 5, 'needle or -needle: every shout')
  for (const q of ['!!!', '&|', ':*', '""']) {
    t.same(await repository.search({ room: GENERAL, limit: 5, q }, { firstRange: 10, budgetMs: 0 }), { shouts: [], searchedTo: null }, `${q}: no word to look for, nothing read`)
  }

  // Over HTTP: a page with fewer shouts than asked may have a next (where the search stopped).
  const answer = (await app.inject({ url: '/api/shoutbox/archive?q=needle&limit=100' })).json()
  t.same([answer.shouts.map((s: Shout) => s.id), answer.next], [matches, null], 'a small board is searched whole in one page')
})

t.test('searches at once from one client: two run, the rest are refused (429) in the envelope; another client is not held up', async t => {
  const app = await build(t)
  await setUp(app)
  await app.db('shoutbox_shouts').insert(Array.from({ length: 200 }, (_, i) => ({ message: `hay ${i}`, username: 'admin', date: 1795000000000 + i })))
  const search = (remoteAddress: string) => app.inject({ url: '/api/shoutbox/archive?q=%22nothing%20like%20this%22', remoteAddress })
  const answers = await Promise.all(Array.from({ length: 10 }, () => search('203.0.113.9')))
  const ok = answers.filter(a => a.statusCode === 200)
  const refused = answers.filter(a => a.statusCode !== 200)
  t.ok(ok.length >= 2, `at least two ran (${ok.length})`)
  t.ok(refused.length > 0, `the rest were refused (${refused.length})`)
  t.ok(refused.every(a => a.statusCode === 429 && a.body === '{"result":"error","error":"TOO_MANY_REQUESTS"}' && a.headers['retry-after'] === '1'), '429 in the envelope, Retry-After: 1')
  const [mine, theirs] = await Promise.all([search('203.0.113.9'), search('198.51.100.4')])
  t.same([mine.statusCode, theirs.statusCode], [200, 200], 'each may search again once its searches ended; another client meanwhile too')
})

t.test('searches at once in all: two run, 16 wait their turn, more are refused (503 SERVICE_UNAVAILABLE, Retry-After) before they read anything', async t => {
  const searches = new Searches()
  const running: Array<() => void> = []
  let ran = 0
  let now = 0
  let most = 0
  const search = (ip: string) => searches.run(ip, async () => {
    ran++
    most = Math.max(most, ++now)
    await new Promise<void>(resolve => running.push(resolve))
    now--
  })
  // 18 clients, each with one search: two run, sixteen wait.
  const admitted = Array.from({ length: 18 }, (_, i) => search(`198.51.100.${i + 1}`))
  await new Promise(resolve => setImmediate(resolve))
  t.equal(ran, SEARCHES_AT_ONCE, 'two run')
  const refused = await search('203.0.113.200').then(() => undefined, (error: unknown) => error)
  t.same([(refused as ServiceUnavailable).status, (refused as ServiceUnavailable).code, (refused as ServiceUnavailable).headers], [503, 'SERVICE_UNAVAILABLE', { 'retry-after': '1' }], 'the nineteenth is refused')
  t.equal(ran, 2, 'and ran nothing')
  for (let i = 0; i < 18; i++) {
    await new Promise(resolve => setImmediate(resolve))
    running.shift()!()
  }
  await Promise.all(admitted)
  t.same([ran, most], [18, SEARCHES_AT_ONCE], 'the waiting ones ran in turn, never more than two at a time')
  t.equal(SEARCHES_WAITING, 16)
})

t.test('searches at once follow the pool: one in eight of its connections, at least one, at most two; the embedded database\'s one', async t => {
  for (const [connections, atOnce] of [[1, 1], [10, 1], [16, 2], [20, 2], [100, 2]] as const) {
    const searches = Searches.forPool(connections)
    const running: Array<() => void> = []
    const all = Array.from({ length: 4 }, (_, i) => searches.run(`198.51.100.${i + 1}`, async () => new Promise<void>(resolve => running.push(resolve))))
    await new Promise(resolve => setImmediate(resolve))
    t.equal(running.length, atOnce, `a pool of ${connections}: ${atOnce} at once`)
    for (let released = 0; released < 4;) {
      if (running.length > 0) {
        running.shift()!()
        released++
      }
      await new Promise(resolve => setTimeout(resolve, 5))
    }
    await Promise.all(all)
  }
})

t.test('walking the archive page by page returns every shout exactly once, newest first, while shouts are being published', async t => {
  const app = await build(t)
  const cookie = await setUp(app)
  const publish = (message: string) => app.inject({ method: 'POST', url: '/panel/api/shoutbox', headers: { cookie }, payload: { message } })
  for (let i = 1; i <= 40; i++) await publish(`before the walk ${i}`)
  const expected: Shout[] = inGeneral(await app.db('shoutbox_shouts').orderBy('id', 'desc').select('id', 'message', 'username', 'date'))

  const walked: Shout[] = []
  let before: number | null | undefined
  let pages = 0
  let published = 0
  do {
    // Each page is read while two more shouts are being published.
    const [page] = await Promise.all([
      app.inject({ url: `/api/shoutbox/archive?limit=7${before === undefined ? '' : `&before=${before}`}` }),
      publish(`during the walk ${++published}`),
      publish(`during the walk ${++published}`)
    ])
    t.equal(page.statusCode, 200)
    const body = page.json() as { shouts: Shout[], next: number | null }
    walked.push(...body.shouts)
    before = body.next
    pages++
  } while (before !== null && pages < 100)

  const fromBefore = walked.filter(s => s.message.startsWith('before the walk'))
  t.same(fromBefore, expected, 'every shout that was there when the walk began, once, newest first')
  const ids = walked.map(s => s.id)
  t.same(ids, [...ids].sort((a, b) => b - a), 'the whole walk is newest first')
  t.equal(new Set(ids).size, ids.length, 'no shout twice')
  t.ok(published >= 12, `${published} shouts were published during the walk`)
})

t.test('GET /api/shoutbox/shouts/:id — one shout, the permalink', async t => {
  const app = await build(t)
  const cookie = await setUp(app)
  await app.inject({ method: 'POST', url: '/panel/api/shoutbox', headers: { cookie }, payload: { message: 'Remember me <b>' } })
  const [shout] = inGeneral(await app.db('shoutbox_shouts').select('id', 'message', 'username', 'date'))

  t.test('200 with the shout and its seven fields (its room, replyTo and reactions last)', async t => {
    const response = await app.inject({ url: '/api/shoutbox/shouts/1' })
    t.same([response.statusCode, response.json()], [200, { result: 'ok', shout }])
    t.same(Object.keys(response.json().shout), ANSWERED_KEYS)
  })

  t.test('an unknown or deleted id → 404 NOT_FOUND', async t => {
    for (const id of ['2', '0', '999999999999999']) {
      const response = await app.inject({ url: `/api/shoutbox/shouts/${id}` })
      t.same([response.statusCode, response.json()], [404, { result: 'error', error: 'NOT_FOUND' }], id)
    }
    await app.inject({ method: 'DELETE', url: '/panel/api/shoutbox/1', headers: { cookie } })
    const gone = await app.inject({ url: '/api/shoutbox/shouts/1' })
    t.same([gone.statusCode, gone.json()], [404, { result: 'error', error: 'NOT_FOUND' }], 'deleted')
  })

  t.test('an id that is not one → 400 BAD_REQUEST', async t => {
    for (const id of ['abc', '1.5', '1e3', '-1', '9999999999999999']) {
      const response = await app.inject({ url: `/api/shoutbox/shouts/${id}` })
      t.same([response.statusCode, response.json()], [400, {
        result: 'error', error: 'BAD_REQUEST', bodyValidationError: 'params/id must match pattern "^[0-9]{1,15}$"'
      }], id)
    }
  })
})
