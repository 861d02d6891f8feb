import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { build, setUp } from '../helpers/app.js'
import { eventually } from '../helpers/eventually.js'
import { account } from '../helpers/identity.js'
import { as } from '../helpers/requests.js'
import type { Tap } from '../helpers/types.js'
import { WRITTEN } from '../helpers/written-texts.js'

/**
 * Formatting is drawn by the pages alone (CONTRACT §25): the stored text, the seed's list
 * (`GET /api/shoutbox/list`) and the webhooks keep every byte as written, markers, markup
 * and all; and the server fetches nothing for a link in a shout.
 */

/** A server on loopback that records every request (none must come). */
async function watchedSite (t: Tap): Promise<{ url: string, requests: string[] }> {
  const requests: string[] = []
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`)
    response.end('ok')
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { server.closeAllConnections(); server.close() })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests }
}

t.test('the text as written: stored, listed and sent to webhooks byte for byte; nothing fetched for links', async t => {
  const app = await build(t, {
    config: { webhooksAllowHttp: true, webhooksAllowPrivate: true },
    webhooks: { pollMs: 20, timeoutMs: 400, retryDelayMs: () => 30, maxAttempts: 2 }
  })
  const admin = await setUp(app)
  await as(app, admin).put('/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600, autoMuteAfter: 0 })
  const mira = await account(app, admin, 'mira')
  const site = await watchedSite(t)
  const received: string[] = []
  const receiver = http.createServer((request, response) => {
    let raw = ''
    request.setEncoding('utf8')
    request.on('data', chunk => { raw += chunk })
    request.on('end', () => { received.push(raw); response.end() })
  })
  await new Promise<void>(resolve => receiver.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { receiver.closeAllConnections(); receiver.close() })
  const hook = await as(app, admin).post('/api/panel/webhooks', { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, events: ['shout.created'] })
  t.equal(hook.statusCode, 200)

  const linked = `see ${site.url}/preview-me and **${site.url}/bold**`
  const posted = [...WRITTEN, linked]
  // Half by the seed's publish path (an administrator), half as a member posts.
  for (const [index, message] of posted.entries()) {
    const answer = index % 2 === 0
      ? await as(app, admin).post('/panel/api/shoutbox', { message })
      : await as(app, mira).post('/api/shoutbox', { message })
    t.equal(answer.statusCode, 200, JSON.stringify(message))
  }

  const list = await app.inject({ method: 'GET', url: '/api/shoutbox/list' })
  t.equal(list.statusCode, 200)
  const listed = (list.json().shouts as Array<{ message: string }>).map(shout => shout.message)
  t.same([...listed].sort(), [...posted].sort(), 'the seed\'s list holds each text exactly as posted')
  for (const message of posted) t.ok(list.body.includes(JSON.stringify(message)), `listed byte for byte: ${JSON.stringify(message)}`)
  const stored = (await app.db('shoutbox_shouts').select('message')).map(row => row.message as string)
  t.same([...stored].sort(), [...posted].sort(), 'stored as written')

  await eventually(() => received.length, n => n >= posted.length)
  const hooked = received.map(raw => (JSON.parse(raw) as { data: { message: string } }).data.message)
  t.same([...hooked].sort(), [...posted].sort(), 'each webhook carries the text as written')
  for (const message of posted) t.ok(received.some(raw => raw.includes(JSON.stringify(message))), `delivered byte for byte: ${JSON.stringify(message)}`)

  t.same(site.requests, [], 'the server fetched nothing for the links')
})
