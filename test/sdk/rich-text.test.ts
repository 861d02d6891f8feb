import t from 'tap'
import { KnownUsers, mentionedNames, pieces, USER_LINK_REL } from '../../src/sdk/rich-text.js'

/** CONTRACT §12, text: links and mentions are cut out of the text, never parsed from markup. */

const users = new Set(['ayse', 'bora_1'])
const isUser = (name: string): boolean => users.has(name.toLowerCase())
const joined = (text: string): string => pieces(text, isUser).map(p => p.text).join('')

t.test('http(s) addresses become links; the pieces always join back to the text', async t => {
  t.same(pieces('see https://example.org/a?b=1#c now'), [
    { kind: 'text', text: 'see ' },
    { kind: 'link', text: 'https://example.org/a?b=1#c', href: 'https://example.org/a?b=1#c' },
    { kind: 'text', text: ' now' }
  ])
  t.same(pieces('(at http://example.org/x).'), [
    { kind: 'text', text: '(at ' }, { kind: 'link', text: 'http://example.org/x', href: 'http://example.org/x' }, { kind: 'text', text: ').' }
  ], 'the sentence\'s brackets and full stop are not part of the address')
  t.same(pieces('https://en.wikipedia.org/wiki/Tea_(drink), hot')[0], {
    kind: 'link', text: 'https://en.wikipedia.org/wiki/Tea_(drink)', href: 'https://en.wikipedia.org/wiki/Tea_(drink)'
  }, 'brackets the address opened stay')
  t.same(pieces('HTTPS://Example.org'), [{ kind: 'link', text: 'HTTPS://Example.org', href: 'https://example.org/' }])
  for (const text of ['see https://example.org/a?b=1#c now', '(at http://example.org/x).', 'a https:// b', 'x"https://a.b/<c>"y', '<a href="https://evil.example">x</a>']) {
    t.equal(joined(text), text, JSON.stringify(text))
  }
})

t.test('nothing but http and https is ever a link', async t => {
  for (const text of ['javascript:alert(1)', 'JaVaScRiPt:alert(document.cookie)', 'data:text/html,<script>alert(1)</script>', 'vbscript:msgbox', 'ftp://example.org', 'xhttps://example.org', 'https://', '//example.org']) {
    t.notOk(pieces(text).some(p => p.kind === 'link'), text)
  }
  t.same(pieces('<img src=x onerror=alert(1)>'), [{ kind: 'text', text: '<img src=x onerror=alert(1)>' }], 'markup is text')
  t.same(pieces('https://example.org/"onmouseover="alert(1)'), [
    { kind: 'link', text: 'https://example.org/', href: 'https://example.org/' }, { kind: 'text', text: '"onmouseover="alert(1)' }
  ], 'a quote ends an address')
  t.equal(USER_LINK_REL, 'nofollow ugc noopener noreferrer')
})

t.test('@name of an account is a mention; anything else stays text', async t => {
  t.same(pieces('hi @Ayse and @nobody, @bora_1!', isUser), [
    { kind: 'text', text: 'hi ' }, { kind: 'mention', text: '@Ayse', name: 'Ayse' },
    { kind: 'text', text: ' and @nobody, ' }, { kind: 'mention', text: '@bora_1', name: 'bora_1' }, { kind: 'text', text: '!' }
  ])
  t.same(pieces('mail ayse@example.org', isUser), [{ kind: 'text', text: 'mail ayse@example.org' }], 'not inside an e-mail address')
  t.same(pieces('https://example.org/@ayse', isUser), [{ kind: 'link', text: 'https://example.org/@ayse', href: 'https://example.org/@ayse' }], 'not inside a link')
  t.same(pieces('@ab @' + 'a'.repeat(33), () => true), [{ kind: 'text', text: '@ab @' + 'a'.repeat(33) }], 'only names a username could be')
  t.same(mentionedNames('@ayse, @Bora_1 https://x.org/@eve mail@example.org @ab'), ['ayse', 'Bora_1'])
})

t.test('KnownUsers: asks once per name; told to wait (429), asks nothing until Retry-After has passed', async t => {
  const asked: string[] = []
  let answer = (): Response => new Response(JSON.stringify({ result: 'error', error: 'TOO_MANY_REQUESTS' }), { status: 429, headers: { 'retry-after': '30' } })
  const realFetch = globalThis.fetch
  globalThis.fetch = (async (url: string) => {
    asked.push(decodeURIComponent(new URL(url, 'http://board.test').searchParams.get('names') ?? ''))
    return answer()
  }) as typeof fetch
  t.teardown(() => { globalThis.fetch = realFetch })
  let now = 1_000_000
  const known = new KnownUsers(() => now)

  t.equal(await known.learn(['hi @ayse and @bora_1']), false)
  t.same(asked, ['ayse,bora_1'], 'one request for both names')
  t.equal(await known.learn(['@cem?']), false)
  now += 29_000
  t.equal(await known.learn(['@cem?', '@ayse']), false)
  t.same(asked, ['ayse,bora_1'], 'nothing asked while told to wait')

  now += 1_000
  answer = () => new Response(JSON.stringify({ result: 'ok', usernames: ['Ayse'] }), { status: 200 })
  t.equal(await known.learn(['@cem', '@ayse']), true)
  t.same(asked, ['ayse,bora_1', 'cem,ayse'], 'asked again once the wait is over')
  t.ok(known.isUser('AYSE'))
  t.notOk(known.isUser('cem'))
  t.equal(await known.learn(['@ayse @cem']), false)
  t.equal(asked.length, 2, 'an answer is remembered')
})
