import t, { type Test } from 'tap'
import { answer, as, error } from '../helpers/requests.js'
import { build, setUp, type App } from '../helpers/app.js'
import { DB_KIND, testDatabase } from '../helpers/database.js'
import { account, roleWith } from '../helpers/identity.js'
import { patternKey, patternProblem, WordFilter, type WatchedWord } from '../../src/shoutbox/watched-words.js'
import { LETTER_FORM_RUNS } from '../../src/shoutbox/letter-forms.js'

/** CONTRACT §17, watched words: patterns that block, censor or hold members' shouts, matched as spammers cannot dodge. */

const MOD_NODE = 'addon.shoutbox.manage.shoutbox'
const filterOf = (...words: Array<[string, WatchedWord['action']]>) => new WordFilter(words.map(([pattern, action], i) => ({ id: i + 1, pattern, action })))

t.test('matching: case, accents, compatibility forms and look-alike letters are one word', async t => {
  const filter = filterOf(['free', 'censor'])
  for (const variant of ['free', 'FREE', 'Free', 'Fr€€', 'frée', 'fre\u0301e', 'fгее', 'ｆｒｅｅ', 'ƒree', 'FRΕΕ', 'FRÉE']) {
    t.equal(filter.check(`get it ${variant} today`).message, `get it ${'*'.repeat([...variant].length)} today`, JSON.stringify(variant))
  }
})

t.test('matching: whole words only; phrases across any spacing and punctuation; * inside a word', async t => {
  const filter = filterOf(['free', 'censor'], ['buy now', 'block'], ['sp*m', 'hold'], ['*coin', 'censor'])
  t.same(filter.check('freedom and a carefree day').action, null)
  t.equal(filter.check('freedom and a carefree day').message, 'freedom and a carefree day', 'free inside a word is no match')
  t.equal(filter.check('free! (free) "free"').message, '****! (****) "****"')
  t.equal(filter.check('BUY   now').action, 'block')
  t.equal(filter.check('buy, NOW!').action, 'block')
  t.equal(filter.check('buy something now').action, null, 'a phrase is its words in a row')
  t.equal(filter.check('spam').action, 'hold')
  t.equal(filter.check('SPAAAM').action, 'hold')
  t.equal(filter.check('sp am').action, null)
  t.equal(filter.check('spammer').action, null, '* stands for letters inside the word: the word must still end as the pattern does')
  t.equal(filter.check('buy bitcoin and dogecoin, not coins').message, 'buy ******* and ********, not coins')
  t.equal(filter.check('free buy now').action, 'block', 'block wins over the rest')
  t.equal(filter.check('free buy now').message, '**** buy now', 'and censored words are starred still (the message is refused anyway)')
  t.equal(filter.check('free spam').action, 'hold')
  t.equal(filterOf().check('anything').message, 'anything')
})

t.test('patterns: what is refused, and one key for look-alikes', async t => {
  t.equal(patternProblem('free money'), undefined)
  t.equal(patternProblem('sp*m'), undefined)
  t.match(patternProblem('*'), /letter or a digit/)
  t.match(patternProblem('free *'), /letter or a digit/)
  t.match(patternProblem('a.b'), /letters and digits/)
  t.match(patternProblem('x'.repeat(65)), /at most 64/)
  t.match(patternProblem('a b c d e f g h i'), /8 words/)
  t.equal(patternKey('FREE  Money'), patternKey('frée money'))
  t.equal(patternKey('fгее'), patternKey('free'))
  t.not(patternKey('free'), patternKey('fre*'))
})

/** What was published on main with `casino` a block word and `crypto` a hold word, and went through. */
const INVISIBLE_ATTACKS = ['cas\u200Bino', 'cas\u00ADino', 'cas\u2060ino']
const LOOK_ALIKE_ATTACKS = ['ᴄᴀꜱɪɴᴏ', '🅲🅰🆂🅸🅽🅾']

t.test('matching: characters drawn as nothing inside a word neither end it nor hide it', async t => {
  const filter = filterOf(['casino', 'block'], ['crypto', 'hold'], ['darn', 'censor'])
  for (const text of INVISIBLE_ATTACKS) t.equal(filter.check(`the ${text} tonight`).action, 'block', JSON.stringify(text))
  t.equal(filter.check('buy cryp\u200Bto now').action, 'hold', 'cryp+U+200B+to')
  // Joiners, BOM, bidi controls, tag characters, variation selectors, Hangul fillers, and a format character outside them (U+2062).
  for (const invisible of ['\u200C', '\u200D', '\uFEFF', '\u202E', '\u2066', '\u{E0041}', '\uFE0F', '\u{E0100}', '\u3164', '\u115F', '\uFFA0', '\u2062', '\u180E']) {
    t.equal(filter.check(`the cas${invisible}ino${invisible} tonight`).action, 'block', `U+${invisible.codePointAt(0)!.toString(16).toUpperCase()}`)
  }
  t.equal(filter.check('c\u200Ba\u200Bs\u200Bi\u200Bn\u200Bo').action, 'block', 'one after every letter')
  // Censoring stars the word as it was seen: the invisible characters inside it go, those around it stay.
  t.equal(filter.check('oh d\u200Ba\u00ADrn, \u200Bdarn\u200B!').message, 'oh ****, \u200B****\u200B!')
  t.equal(filter.check('fre\u0301e darn').message, 'fre\u0301e ****', 'nothing else moves')
})

t.test('matching: invisible spaces are spaces; small capitals, enclosed and full-width letters are their letters', async t => {
  const filter = filterOf(['casino', 'block'], ['darn', 'censor'], ['win 100', 'hold'])
  for (const text of [...LOOK_ALIKE_ATTACKS, 'ⓒⓐⓢⓘⓝⓞ', '🅒🅐🅢🅘🅝🅞', '🄲🄰🅂🄸🄽🄾', 'ｃａｓｉｎｏ', 'ᶜᵃˢⁱⁿᵒ', 'ᴄasɪɴo']) {
    t.equal(filter.check(`the ${text} tonight`).action, 'block', text)
  }
  t.equal(filter.check('ᴅᴀʀɴ 🅳🅰🆁🅽!').message, '**** ****!', 'each look-alike letter is one star')
  t.equal(filter.check('win ❶⓪⓿').action, 'hold', 'enclosed digits are digits')
  t.equal(filter.check('cas\u2800ino and ca\u{1D159}sino').action, null, 'the Braille blank and the null notehead are spaces: two words')
  t.equal(filter.check('casino\u2800tonight').action, 'block', 'so a word ends there')
  t.equal(filter.check('🇨🇦 flags and ᴀ ʙᴄ').action, null, 'regional indicators (flags) are not letters here')
})

t.test('the letter-form table: each form reads as the letter or digit it draws', async t => {
  let forms = 0
  for (const [first, bases] of LETTER_FORM_RUNS) {
    for (const [i, base] of [...bases].entries()) {
      const form = String.fromCodePoint(first + i)
      t.equal(patternKey(`x${form}x`), patternKey(`x${base}x`), `U+${(first + i).toString(16).toUpperCase()} is ${base}`)
      forms++
    }
  }
  t.ok(forms > 100, `${forms} forms`)
})

async function board (t: Test, app?: App) {
  app ??= await build(t)
  const admin = await setUp(app)
  await as(app, admin).put('/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 })
  const modRole = await roleWith(app, admin, 'moderators', ['panel.access', MOD_NODE])
  const mod = await account(app, admin, 'mod', modRole)
  const mira = await account(app, admin, 'mira')
  const watch = async (pattern: string, action: string) => {
    const added = await as(app, mod).post('/api/panel/shoutbox/words', { pattern, action })
    if (added.statusCode !== 200) throw new Error(added.body)
    return added.json().word as { id: number }
  }
  const messages = async () => ((await as(app, undefined).get('/api/shoutbox/archive')).json().shouts as Array<{ message: string }>).map(shout => shout.message)
  return { app, admin, mod, mira, watch, messages }
}

t.test('the panel keeps the list: staff add, list and remove; members and visitors may not', async t => {
  const { app, admin, mod, mira, watch } = await board(t)
  const { id } = await watch('free money', 'block')
  const listed = (await as(app, mod).get('/api/panel/shoutbox/words')).json().words
  t.match(listed, [{ id, pattern: 'free money', action: 'block', createdAt: Number }])
  t.same(answer(await as(app, mod).post('/api/panel/shoutbox/words', { pattern: 'FRÉE   Money', action: 'censor' })), [409, error('WATCHED_WORD_EXISTS', { id })], 'a look-alike of a watched word is that word')
  for (const body of [{ pattern: '*', action: 'block' }, { pattern: 'ok', action: 'shout' }, { pattern: '', action: 'block' }, { pattern: 'a.b', action: 'censor' }, { pattern: 'ok' }, { pattern: 'ok', action: 'block', extra: 1 }]) {
    t.equal((await as(app, mod).post('/api/panel/shoutbox/words', body)).statusCode, 400, JSON.stringify(body))
  }
  t.same(answer(await as(app, mira).get('/api/panel/shoutbox/words')), [403, error('NO_PERMISSION')], 'a member cannot read it')
  t.same(answer(await as(app, mira).post('/api/panel/shoutbox/words', { pattern: 'mod', action: 'block' })), [403, error('NO_PERMISSION')], 'nor add to it')
  t.same(answer(await as(app, mira).delete(`/api/panel/shoutbox/words/${id}`)), [403, error('NO_PERMISSION')], 'nor take from it')
  t.equal((await as(app, undefined).get('/api/panel/shoutbox/words')).statusCode, 401, 'a visitor')
  const feed = (await as(app, admin).get('/api/panel/logs/activity')).json()
  t.match(JSON.stringify(feed), /watched the word “free money” \(block\)/, 'logged')
  t.same(answer(await as(app, mod).delete(`/api/panel/shoutbox/words/${id}`)), [200, { result: 'ok' }])
  t.same(answer(await as(app, mod).delete(`/api/panel/shoutbox/words/${id}`)), [404, error('NOT_FOUND')])
  t.same((await as(app, mod).get('/api/panel/shoutbox/words')).json().words, [])
})

t.test('a blocked word refuses the shout and stores nothing; a censored one is stored starred; staff are exempt', async t => {
  const { app, mod, mira, watch, messages } = await board(t)
  await watch('free money', 'block')
  await watch('darn', 'censor')
  for (const message of ['FREE MONEY here', 'get fгее mоnеу now', 'Frée, money!']) {
    t.same(answer(await as(app, mira).post('/api/shoutbox', { message })), [400, error('WATCHED_WORD')], message)
    t.same(answer(await as(app, mira).post('/api/shoutbox/rooms/general/shouts', { message })), [400, error('WATCHED_WORD')], 'in a room')
  }
  t.same(await messages(), [], 'nothing stored')
  const posted = await as(app, mira).post('/api/shoutbox', { message: 'Darn it, DARN!' })
  t.equal(posted.json().shout.message, '**** it, ****!', 'the answer shows what was stored')
  t.same(await messages(), ['**** it, ****!'])
  t.equal((await as(app, undefined).get('/api/shoutbox/list')).json().shouts[0].message, '**** it, ****!', 'the seed\'s list too')
  const staff = await as(app, mod).post('/api/shoutbox', { message: 'Darn: no free money here' })
  t.equal(staff.json().shout.message, 'Darn: no free money here', 'a moderator may quote them')
  // Edits: the same rules.
  const own = (await as(app, mira).post('/api/shoutbox', { message: 'all good' })).json().shout
  t.same(answer(await as(app, mira).put(`/api/shoutbox/${own.id}`, { message: 'all good, free money' })), [400, error('WATCHED_WORD')], 'an edit')
  t.equal((await as(app, mira).put(`/api/shoutbox/${own.id}`, { message: 'all darn good' })).json().shout.message, 'all **** good')
  t.same((await messages())[0], 'all **** good')
})

t.test('attack: a blocked word with an invisible character or look-alike letters inside; a held word with a zero-width space', async t => {
  const { app, mira, watch, messages } = await board(t)
  await watch('casino', 'block')
  await watch('crypto', 'hold')
  await watch('darn', 'censor')
  for (const word of [...INVISIBLE_ATTACKS, ...LOOK_ALIKE_ATTACKS]) {
    const message = `best ${word} in town`
    t.same(answer(await as(app, mira).post('/api/shoutbox', { message })), [400, error('WATCHED_WORD')], JSON.stringify(message))
    t.same(answer(await as(app, mira).post('/api/shoutbox/rooms/general/shouts', { message })), [400, error('WATCHED_WORD')], 'in a room')
  }
  t.same(await messages(), [], 'nothing stored')
  const held = await as(app, mira).post('/api/shoutbox', { message: 'buy cryp\u200Bto now' })
  t.match(held.json(), { result: 'ok', shout: { message: 'buy cryp\u200Bto now', held: true } }, 'cryp+U+200B+to is held')
  t.same(await messages(), [], 'not on the board')
  const censored = await as(app, mira).post('/api/shoutbox', { message: 'oh ᴅᴀʀɴ, d\u200Barn it' })
  t.equal(censored.json().shout.message, 'oh ****, **** it', 'censored where the words were')
  t.same(await messages(), ['oh ****, **** it'])
})

t.test('a word watched on one process applies on every process at once', { skip: DB_KIND !== 'postgres' && 'the embedded database belongs to one process: this runs on PostgreSQL' }, async t => {
  const db = await testDatabase()
  t.teardown(() => db.drop())
  const a = await build(t, { db })
  const { mira, watch } = await board(t, a)
  const b = await build(t, { db })
  t.equal((await as(b, mira).post('/api/shoutbox', { message: 'casino tonight' })).statusCode, 200, 'before: allowed (and the list is in b\'s memory)')
  await watch('casino', 'block')
  let refused = 0
  for (let i = 0; i < 50 && refused === 0; i++) {
    const posted = await as(b, mira).post('/api/shoutbox', { message: `casino ${i}` })
    if (posted.statusCode === 400) refused++
    else await new Promise(resolve => setTimeout(resolve, 20))
  }
  t.equal(refused, 1, 'b heard the change (within a notice\'s delay)')
})

t.test('sign-up: a username holding a watched word that blocks is refused; other actions do not apply to names', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  await as(app, admin).put('/api/panel/settings', { signUp: true })
  for (const [pattern, action] of [['casino', 'block'], ['darn', 'censor'], ['spam', 'hold']] as const) {
    t.equal((await as(app, admin).post('/api/panel/shoutbox/words', { pattern, action })).statusCode, 200)
  }
  // Each from an address of its own: the sign-up quota per address is not what is tested.
  let address = 0
  const signUp = (username: string) => app.inject({
    method: 'POST', url: '/api/auth/signup', remoteAddress: `198.51.100.${++address}`,
    payload: { username, email: `${username.toLowerCase().replace(/[^a-z0-9_-]/g, 'x')}@example.org`, password: 'a long password' }
  })
  for (const username of ['casino', 'CASINO_king', 'best-casino']) {
    t.same(answer(await signUp(username)), [400, error('USERNAME_NOT_ALLOWED')], username)
  }
  t.same(await app.db('users').whereIn('username', ['casino', 'CASINO_king', 'best-casino']), [], 'no account made')
  for (const username of ['casinoroyale', 'darn_it', 'spammy', 'mira']) t.equal((await signUp(username)).statusCode, 200, username)
})

t.test('matching: a capital I is an i (Unicode\'s look-alike of I is l), and look-alike digits stay digits', async t => {
  const filter = filterOf(['casino', 'block'], ['bitcoin', 'censor'])
  for (const text of ['CASINO', 'Casino', 'CАSINO', 'caѕino']) t.equal(filter.check(`the ${text} tonight`).action, 'block', text)
  t.equal(filter.check('BITCOIN and BitCoin').message, '******* and *******')
})
