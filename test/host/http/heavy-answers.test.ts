import http from 'node:http'
import t from 'tap'
import { build, setUp } from '../../helpers/app.js'
import { eventually } from '../../helpers/eventually.js'
import { account } from '../../helpers/identity.js'
import { as, error } from '../../helpers/requests.js'

/**
 * Heavy answers — an export, the list with `maxShouts` unset — are written while they are
 * read, at most two at a time per client address; a third is refused 429 with Retry-After.
 * Ada's shouts are long (9 MB in all, 8 MB in the first batch of 1,000), so that a client
 * that stops reading holds its answer open: the socket's buffers take a few megabytes, not
 * the first batch, so the host waits for them to drain before it reads the next.
 */

const SHOUTS = 1100
const LENGTH = 8000

interface Held {
  readonly status: number
  /** Reads the rest of the answer. */
  finish (): Promise<{ body: string, complete: boolean }>
  /** The client goes away without reading it. */
  abort (): void
}

/**
 * A GET over a real socket whose answer is not read until `finish` is called: it arrives,
 * its head is read, and then it waits. `from`: the client address it claims through the
 * proxy the app trusts (loopback).
 */
function heldOpen (port: number, path: string, cookie?: string, from?: string): Promise<Held> {
  return new Promise((resolve, reject) => {
    const headers = { ...(cookie === undefined ? {} : { cookie }), ...(from === undefined ? {} : { 'x-forwarded-for': from }) }
    const request = http.get({ host: '127.0.0.1', port, path, headers, agent: false }, response => {
      response.pause()
      resolve({
        status: response.statusCode!,
        abort: () => request.destroy(),
        finish: () => new Promise(resolve => {
          let body = ''
          response.setEncoding('utf8')
          response.on('data', (chunk: string) => { body += chunk })
          response.on('end', () => resolve({ body, complete: response.complete }))
          // A cut answer: its socket closes before the last chunk.
          response.on('aborted', () => resolve({ body, complete: false }))
          response.on('error', () => resolve({ body, complete: false }))
          response.resume()
        })
      })
    })
    request.on('error', reject)
  })
}

const isJson = (text: string): boolean => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

t.test('heavy answers', async t => {
  // Loopback is a proxy the app believes: a client over a real socket may claim an address.
  const app = await build(t, { config: { trustProxy: ['127.0.0.1'] } })
  const admin = await setUp(app)
  const ada = await account(app, admin, 'ada')
  const adaId = (await app.db('users').where({ username: 'ada' }).first('id')).id as number
  // Dashes: the search index finds no word in them, so they cost it nothing to index.
  await app.db.raw(`insert into shoutbox_shouts (message, username, author_id, date)
    select repeat('-', ${LENGTH}) || g, 'ada', ?, 1795000000000 + g from generate_series(1, ${SHOUTS}) as g`, [adaId])
  // Every shout in the list: over a megabyte, so it is streamed.
  await as(app, admin).put('/api/panel/shoutbox/config', { maxShouts: null })
  const address = await app.listen({ port: 0, host: '127.0.0.1' })
  const port = Number(new URL(address).port)
  const exportedCount = async () => Number((await app.db('activity_logs').where({ type: 'EXPORTED_USER_DATA' }).count({ n: '*' }))[0]!.n)
  const from = (remoteAddress: string, url: string, cookie?: string) => app.inject({ url, remoteAddress, headers: cookie === undefined ? {} : { cookie } })

  t.test('a third export at once from one client is refused with Retry-After; another client is not; the two ending free their places', async t => {
    const logged = await exportedCount()
    const first = await heldOpen(port, '/api/users/me/export', ada)
    const second = await heldOpen(port, `/api/panel/users/${adaId}/export`, admin)
    t.same([first.status, second.status], [200, 200], 'two exports under way, their clients not reading')
    t.equal(app.heavyAnswers.heldBy('127.0.0.1'), 2)

    const third = await from('127.0.0.1', '/api/users/me/export', ada)
    t.same([third.statusCode, third.json()], [429, error('TOO_MANY_REQUESTS')])
    t.equal(third.headers['retry-after'], '10')
    t.same([(await from('127.0.0.1', '/api/shoutbox/list')).statusCode], [429], 'the unbounded list is a heavy answer too')
    t.equal(await exportedCount(), logged + 2, 'the refused export read and logged nothing')

    const elsewhere = await heldOpen(port, '/api/users/me/export', ada, '10.1.2.3')
    t.equal(elsewhere.status, 200, 'another address is not refused')
    t.equal(app.heavyAnswers.heldBy('10.1.2.3'), 1)
    elsewhere.abort()
    t.equal((await eventually(() => app.heavyAnswers.heldBy('10.1.2.3'), held => held === 0)).value, 0, 'its place freed when its client goes away')

    const [one, two] = await Promise.all([first.finish(), second.finish()])
    t.ok(one.complete && two.complete, 'both held answers arrive whole once read')
    t.same([JSON.parse(one.body).export.addons.shoutbox.shouts.length, JSON.parse(two.body).export.addons.shoutbox.shouts.length], [SHOUTS, SHOUTS])
    t.equal((await eventually(() => app.heavyAnswers.heldBy('127.0.0.1'), held => held === 0)).value, 0, 'their places are freed')
    const again = await heldOpen(port, '/api/users/me/export', ada)
    t.equal(again.status, 200, 'and the client may export again')
    again.abort()
    await eventually(() => app.heavyAnswers.heldBy('127.0.0.1'), held => held === 0)
  })

  t.test('the unbounded list: two at a time per client, the third 429; a bounded list is not heavy', async t => {
    const first = await heldOpen(port, '/api/shoutbox/list')
    const second = await heldOpen(port, '/api/shoutbox/list')
    t.same([first.status, second.status], [200, 200])
    const third = await from('127.0.0.1', '/api/shoutbox/list')
    t.same([third.statusCode, third.json()], [429, error('TOO_MANY_REQUESTS')])
    t.equal(third.headers['retry-after'], '10')
    t.same([(await from('127.0.0.1', '/api/users/me/export', ada)).statusCode], [429], 'nor an export meanwhile')
    const elsewhere = await heldOpen(port, '/api/shoutbox/list', undefined, '10.9.9.9')
    t.equal(elsewhere.status, 200, 'another client is served')
    elsewhere.abort()
    // The newest 50: one kept answer, not a heavy one.
    await as(app, admin).put('/api/panel/shoutbox/config', { maxShouts: 50 })
    const bounded = await from('127.0.0.1', '/api/shoutbox/list')
    t.same([bounded.statusCode, bounded.json().shouts.length], [200, 50], 'a bounded list is answered meanwhile')
    await as(app, admin).put('/api/panel/shoutbox/config', { maxShouts: null })

    const one = await first.finish()
    t.same([one.complete, JSON.parse(one.body).shouts.length], [true, SHOUTS], 'whole once read')
    second.abort()
    t.equal((await eventually(() => app.heavyAnswers.heldBy('127.0.0.1'), held => held === 0)).value, 0, 'the places are freed, by an answer read and by a client gone')
  })

  t.test('an export that fails while it is written ends cut short, never completed; the host serves on', async t => {
    const held = await heldOpen(port, '/api/users/me/export', ada)
    t.equal(held.status, 200, 'its head has gone out')
    // Her reactions, read once the client has taken her shouts, cannot be read.
    await app.db.raw('alter table shoutbox_reactions rename column emoji to emoji_gone')
    try {
      const { body, complete } = await held.finish()
      t.notOk(complete, 'the answer is cut, without its last chunk')
      t.ok(body.startsWith('{"result":"ok","export":{'), 'what came is the start of the document')
      t.notOk(isJson(body), 'no client can take it for a whole one')
      t.match(body, /"shouts":\[\{"id":/, 'her shouts came before it failed')
      t.notMatch(body, /INTERNAL_SERVER_ERROR|emoji_gone/, 'no error answer inside it, nor the failure\'s detail')
    } finally {
      await app.db.raw('alter table shoutbox_reactions rename column emoji_gone to emoji')
    }
    t.equal((await eventually(() => app.heavyAnswers.heldBy('127.0.0.1'), count => count === 0)).value, 0, 'its place is freed')
    t.equal((await app.inject({ url: '/api/health' })).statusCode, 200, 'the host serves on')
    const again = await heldOpen(port, '/api/users/me/export', ada)
    t.equal(again.status, 200)
    again.abort()
    await eventually(() => app.heavyAnswers.heldBy('127.0.0.1'), held => held === 0)
  })
})
