import t from 'tap'
import { formatted, plainText, type FormatNode } from '../../src/sdk/formatting.js'
import { plainExcerpt } from '../../src/sdk/rich-text.js'

/** The formatting of a shout (CONTRACT §25): read from text into safe nodes, never from markup. */

const text = (value: string): FormatNode => ({ kind: 'text', text: value })
/** What the tree says, every marker and spoiler shown: the text as written, less the markers that were read. */
const words = (nodes: readonly FormatNode[]): string => plainText(nodes.map(reveal), '')
const reveal = (node: FormatNode): FormatNode => node.kind === 'spoiler' ? { kind: 'bold', children: node.children.map(reveal) } : 'children' in node ? { kind: node.kind, children: node.children.map(reveal) } : node

t.test('each marker makes its node', async t => {
  t.same(formatted('**bold** *it* _it_ `code` ~~gone~~ ||secret||'), [
    { kind: 'bold', children: [text('bold')] }, text(' '),
    { kind: 'italic', children: [text('it')] }, text(' '),
    { kind: 'italic', children: [text('it')] }, text(' '),
    { kind: 'code', text: 'code' }, text(' '),
    { kind: 'strike', children: [text('gone')] }, text(' '),
    { kind: 'spoiler', children: [text('secret')] }
  ])
  t.same(formatted('plain words'), [text('plain words')])
  t.same(formatted(''), [])
})

t.test('nesting: markers inside markers; an opener passed over by a closer stays text', async t => {
  t.same(formatted('**bold _and italic_ ~~and struck~~**'), [{
    kind: 'bold',
    children: [text('bold '), { kind: 'italic', children: [text('and italic')] }, text(' '), { kind: 'strike', children: [text('and struck')] }]
  }])
  t.same(formatted('***both***'), [{ kind: 'bold', children: [{ kind: 'italic', children: [text('both')] }] }])
  t.same(formatted('||a **b** `c`||'), [{ kind: 'spoiler', children: [text('a '), { kind: 'bold', children: [text('b')] }, text(' '), { kind: 'code', text: 'c' }] }])
  t.same(formatted('**a _b** c_'), [{ kind: 'bold', children: [text('a _b')] }, text(' c_')], 'crossed markers: the first pair wins, the other is text')
})

t.test('a marker nobody closes stays as written', async t => {
  for (const written of ['**unclosed', 'a *b', '_x', '~~y', '||z', '`code', 'a ** b ** c', '2 * 3 * 4', '****', '~~~x~~~', '|||x|||', '__x__', '``', 'x ||  || y']) {
    t.same(formatted(written), [text(written)], JSON.stringify(written))
  }
  t.same(formatted('**a** **b'), [{ kind: 'bold', children: [text('a')] }, text(' **b')])
})

t.test('underscores inside words are the word\'s; stars may emphasise inside one', async t => {
  t.same(formatted('snake_case_name'), [text('snake_case_name')])
  t.same(formatted('@bora_1 and @cem_x_', { isUser: () => true }), [
    { kind: 'mention', text: '@bora_1', name: 'bora_1' }, text(' and '), { kind: 'mention', text: '@cem_x_', name: 'cem_x_' }
  ])
  t.same(formatted('un*frigging*believable'), [text('un'), { kind: 'italic', children: [text('frigging')] }, text('believable')])
})

t.test('a code span\'s text is never read further', async t => {
  t.same(formatted('`**not bold** https://example.org @ayse ||no||`', { isUser: () => true }), [{ kind: 'code', text: '**not bold** https://example.org @ayse ||no||' }])
  t.same(formatted('**a `**` b**'), [{ kind: 'bold', children: [text('a '), { kind: 'code', text: '**' }, text(' b')] }])
  t.same(formatted('`a` and `b'), [{ kind: 'code', text: 'a' }, text(' and `b')])
  t.same(formatted('<script>alert(1)</script> `<b>`'), [text('<script>alert(1)</script> '), { kind: 'code', text: '<b>' }], 'markup is text, in code too')
})

t.test('links: bare http(s) addresses only, without the sentence\'s punctuation or the markers around them', async t => {
  t.same(formatted('see https://example.org/a_b?c=1#d.'), [text('see '), { kind: 'link', text: 'https://example.org/a_b?c=1#d', href: 'https://example.org/a_b?c=1#d' }, text('.')])
  t.same(formatted('(at http://example.org/x), then!'), [text('(at '), { kind: 'link', text: 'http://example.org/x', href: 'http://example.org/x' }, text('), then!')])
  t.same(formatted('**https://example.org/x**!'), [{ kind: 'bold', children: [{ kind: 'link', text: 'https://example.org/x', href: 'https://example.org/x' }] }, text('!')])
  t.same(formatted('||https://example.org/x||'), [{ kind: 'spoiler', children: [{ kind: 'link', text: 'https://example.org/x', href: 'https://example.org/x' }] }])
  t.same(formatted('_https://example.org/a_b_'), [{ kind: 'italic', children: [{ kind: 'link', text: 'https://example.org/a_b', href: 'https://example.org/a_b' }] }], 'a link\'s underscore is its own')
  t.same(formatted('https://en.wikipedia.org/wiki/Tea_(drink), hot')[0], { kind: 'link', text: 'https://en.wikipedia.org/wiki/Tea_(drink)', href: 'https://en.wikipedia.org/wiki/Tea_(drink)' })
  for (const refused of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:x', 'ftp://example.org', 'file:///etc/passwd', '//example.org', '**javascript:alert(1)**', '[x](javascript:alert(1))', '<a href="javascript:alert(1)">x</a>']) {
    const links: FormatNode[] = []
    const walk = (nodes: readonly FormatNode[]): void => nodes.forEach(node => node.kind === 'link' ? links.push(node) : 'children' in node ? walk(node.children) : undefined)
    walk(formatted(refused))
    t.same(links, [], `${refused}: no link`)
  }
  t.same(formatted('https://example.org/"onmouseover="alert(1)'), [{ kind: 'link', text: 'https://example.org/', href: 'https://example.org/' }, text('"onmouseover="alert(1)')], 'a quote ends an address')
})

t.test('mentions: only accounts, not inside links or code', async t => {
  const isUser = (name: string): boolean => name === 'ayse'
  t.same(formatted('hi @ayse and @nobody https://x.org/@ayse', { isUser }), [
    text('hi '), { kind: 'mention', text: '@ayse', name: 'ayse' }, text(' and @nobody '), { kind: 'link', text: 'https://x.org/@ayse', href: 'https://x.org/@ayse' }
  ])
})

t.test('the tree holds every character written, less the markers it read', async t => {
  t.equal(words(formatted('unclosed **a _b ~~c ||d `e')), 'unclosed **a _b ~~c ||d `e')
  t.equal(words(formatted('**<b>x</b>** ||<svg onload=alert(1)>||')), '<b>x</b> <svg onload=alert(1)>')
  t.equal(words(formatted('a\nb **c\nd** `e`')), 'a\nb c\nd e')
})

t.test('plain words: no markers, spoilers hidden, a spoiler an excerpt cut is hidden to its end', async t => {
  t.equal(plainText(formatted('**hi** there ||the butler|| `x`'), '[spoiler]'), 'hi there [spoiler] x')
  t.equal(plainExcerpt('who did it? ||the butl'), 'who did it? [Spoiler]', 'cut inside a spoiler')
  t.equal(plainExcerpt('who did it? ||the butler|| and **more'), 'who did it? [Spoiler] and **more')
  t.same(formatted('a ||b'), [text('a ||b')], 'outside an excerpt an unclosed spoiler is text')
})

t.test('linear time, whatever the text holds: the steps counted grow with its length alone', async t => {
  const patterns: Array<[string, (n: number) => string]> = [
    ['openers never closed', n => '**a _b ~~c ||d *e '.repeat(n)],
    ['closers with nothing open', n => 'a** b_ c~~ d|| e* '.repeat(n)],
    ['openers then one closer each kind', n => '**'.repeat(0) + '*a _b ~~c ||d '.repeat(n) + '** _ ~~ || *'],
    ['nested deep', n => '**_~~||'.repeat(n) + 'x' + '||~~_**'.repeat(n)],
    ['backticks unclosed and paired', n => '`a` `'.repeat(n)],
    ['stars', n => '*'.repeat(n * 10)],
    ['stars and letters', n => 'a*'.repeat(n * 5)],
    ['links and markers', n => '**https://example.org/a_b_* '.repeat(n)],
    ['pipes', n => '| || ||| '.repeat(n)]
  ]
  for (const [name, make] of patterns) {
    const steps = (n: number): { steps: number, length: number } => {
      const meter = { steps: 0 }
      const input = make(n)
      formatted(input, { meter })
      return { steps: meter.steps, length: input.length }
    }
    const small = steps(1_000)
    const large = steps(8_000)
    t.ok(large.steps <= 4 * large.length, `${name}: ${large.steps} steps for ${large.length} characters`)
    t.ok(large.steps / small.steps <= 8 * 1.1, `${name}: 8 times the text, ${(large.steps / small.steps).toFixed(2)} times the steps`)
  }
})
