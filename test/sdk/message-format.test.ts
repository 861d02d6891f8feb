import t from 'tap'
import { I18n } from '../../src/host/services/i18n.js'
import { formatMessage } from '../../src/sdk/message-format.js'
import { translator } from '../../src/sdk/ui.js'
import hostEn from '../../src/host/lang/en.json' with { type: 'json' }
import hostTr from '../../src/host/lang/tr.json' with { type: 'json' }
import addonEn from '../../lang/en.json' with { type: 'json' }
import addonTr from '../../lang/tr.json' with { type: 'json' }

const WAIT = 'Wait {seconds, plural, one {# second} other {# seconds}}.'

t.test('{name}: the value\'s text; without a value the placeholder stays', async t => {
  t.equal(formatMessage('{username} muted {user}', { username: 'ayse', user: 'bora' }, 'en'), 'ayse muted bora')
  t.equal(formatMessage('{username} muted {user}', { username: 'ayse', user: null }, 'en'), 'ayse muted {user}')
  t.equal(formatMessage('{a}{a}', { a: 0 }, 'en'), '00')
  t.equal(formatMessage('{username} muted {user}', { username: '{user}', user: 'bora' }, 'en'), '{user} muted bora', 'a value is never read as a template')
  t.equal(formatMessage('{n, plural, one {# by {who}} other {# by {who}}}', { n: '1', who: '{n} #' }, 'en'), '1 by {n} #', 'nor inside a plural form')
  t.equal(formatMessage('{n, plural, one {# by {who}} other {# by {who}}}', { n: '{who}', who: 'bora' }, 'en'), '{who} by bora', 'nor the plural\'s own value')
  t.equal(formatMessage(WAIT, { seconds: "$'" }, 'en'), "Wait $' seconds.", 'no replacement patterns either')
})

t.test('{name, plural, …}: the form the locale\'s rules give, # for the number', async t => {
  t.same([0, 1, 2, 21].map(n => formatMessage(WAIT, { seconds: n }, 'en')), ['Wait 0 seconds.', 'Wait 1 second.', 'Wait 2 seconds.', 'Wait 21 seconds.'])
  t.equal(formatMessage(WAIT, { seconds: '1' }, 'en'), 'Wait 1 second.', 'a number sent as text (Retry-After) counts too')
  t.equal(formatMessage(WAIT, { seconds: 'soon' }, 'en'), 'Wait soon seconds.', 'not a number: other')
  for (const notACount of ['', ' ', '1,000', false]) {
    t.equal(formatMessage('{n, plural, =0 {none} one {# thing} other {# things}}', { n: notACount }, 'en'), `${String(notACount)} things`, `${JSON.stringify(notACount)} is no count`)
  }
  t.equal(formatMessage('{n, plural, one {# shout} other {# shouts}}', { n: 12345 }, 'en'), '12,345 shouts', '# is written the locale\'s way')
  t.equal(formatMessage('{n, plural, other {# duyuru}}', { n: 12345 }, 'tr'), '12.345 duyuru')
  t.equal(formatMessage(WAIT, {}, 'en'), WAIT, 'without a value it stays')
  const russian = '{n, plural, one {# файл} few {# файла} many {# файлов} other {# файла}}'
  t.same([1, 3, 5, 21].map(n => formatMessage(russian, { n }, 'ru')), ['1 файл', '3 файла', '5 файлов', '21 файл'], 'a language with more forms')
  t.equal(formatMessage('{n, plural, =0 {nothing} one {# thing} other {# things}}', { n: 0 }, 'en'), 'nothing', 'an exact match comes first')
  t.equal(formatMessage('{n, plural, one {# by {who}} other {# by {who}}} left', { n: 1, who: 'ayse' }, 'en'), '1 by ayse left', 'a form\'s own placeholders')
  t.equal(formatMessage(WAIT, { seconds: 1 }, 'not a locale!'), 'Wait 1 second.', 'a malformed locale: English rules')
  t.equal(formatMessage('{n, plural, one {# thing} other {# things}}', { n: 0 }, 'xx'), '0 things', 'a locale the runtime does not know: English rules')
})

t.test('the server\'s strings and the browser\'s read the same templates the same way', async t => {
  const i18n = new I18n()
  i18n.add('shoutbox', 'en', addonEn)
  i18n.add('shoutbox', 'tr', addonTr)
  const browser = translator({ en: addonEn, tr: addonTr }, 'en')
  for (const seconds of [1, 3]) {
    t.equal(i18n.t('shoutbox', 'en', 'errors.TOO_MANY_REQUESTS', { seconds }), browser('errors.TOO_MANY_REQUESTS', { seconds }))
  }
  t.equal(browser('widget.left', { count: 1 }), '1 character left')
  t.equal(browser('widget.over', { count: 2 }), '2 characters too many')
  t.equal(i18n.t('shoutbox', 'tr', 'errors.TOO_MANY_REQUESTS', { seconds: 1 }), 'Çok hızlı yazıyorsunuz. 1 saniye bekleyin.')
})

t.test('a string found only in English is read with English rules, not the reader\'s', async t => {
  // French says "0 seconde" (0 is singular there); the English fallback must say "0 seconds".
  const i18n = new I18n()
  i18n.add('demo', 'en', { wait: WAIT })
  i18n.add('demo', 'fr', { other: 'autre' })
  t.equal(i18n.t('demo', 'fr', 'wait', { seconds: 0 }), 'Wait 0 seconds.')
  t.equal(translator({ en: { wait: WAIT }, fr: {} }, 'fr')('wait', { seconds: 0 }), 'Wait 0 seconds.')
  t.equal(formatMessage('{n, plural, one {# seconde} other {# secondes}}', { n: 0 }, 'fr'), '0 seconde', 'where French is found, French rules')
})

t.test('every plural in the shipped strings has an other form and is read whole', async t => {
  for (const [file, strings] of Object.entries({ 'src/host/lang/en.json': hostEn, 'src/host/lang/tr.json': hostTr, 'lang/en.json': addonEn, 'lang/tr.json': addonTr })) {
    for (const [key, template] of Object.entries(strings as Record<string, string>)) {
      if (!template.includes(', plural,')) continue
      for (const n of [1, 2]) {
        // Every placeholder the template names gets the count: a plural's and any other.
        const values = Object.fromEntries([...template.matchAll(/\{(\w+)/g)].map(([, name]) => [name!, n]))
        const text = formatMessage(template, values, 'en')
        // No placeholder or plural left, and no `#` left unread (one written before a number, "shout #12", is text).
        t.notMatch(text, /plural|[{}]|#(?!\d)/, `${file} ${key} with ${n}: ${text}`)
      }
    }
  }
})
