import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { checkAll, LANGUAGES, neededCategories, placeholdersOf, readStrings, STRING_FOLDERS } from '../../scripts/lang-check.js'
import { formatMessage } from '../../src/sdk/message-format.js'

/** Every language file: every key, the same placeholders, the plural forms its language needs. */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

t.test('the twelve languages ship, each complete (scripts/lang-check.ts lists what is missing)', async t => {
  t.same([...LANGUAGES], ['en', 'tr', 'de', 'fr', 'es', 'pt-BR', 'it', 'nl', 'pl', 'ru', 'ja', 'ar'])
  t.same(checkAll(root), [], 'no key missing or left over, no placeholder lost, no plural without its forms')
})

t.test('the check finds what a translator gets wrong', async t => {
  const english = { a: 'Hi {username}', b: 'Wait {seconds, plural, one {# second} other {# seconds}}.', c: 'x' }
  const { checkStrings } = await import('../../scripts/lang-check.js')
  t.same(checkStrings('f', 'ru', english, { a: 'Привет {user}', b: 'Подождите {seconds} сек.', d: 'y' }).map(f => `${f.key}: ${f.problem}`), [
    'a: lacks {username}', 'a: has {user} that English has not', 'b: {seconds} is a plural in English and not here', 'c: missing', 'd: not in English (left over?)'
  ])
  t.same(checkStrings('f', 'ar', english, { a: '{username}', b: '{seconds, plural, one {ثانية} other {# ثانية}}', c: 'x' }).map(f => f.problem),
    ['{seconds, plural} lacks few, many, two, zero'])
  t.same(checkStrings('f', 'ja', english, { a: '{username}', b: '{seconds} 秒', c: 'x' }), [], 'Japanese has one form: a plain number will do')
  t.same(neededCategories('pl'), ['few', 'many', 'one', 'other'])
  t.same([...placeholdersOf('{n, plural, one {# by {who}} other {#}} {x}').names].sort(), ['n', 'who', 'x'])
})

t.test('each plural of each language reads for any count, in that language\'s forms', async t => {
  for (const folder of STRING_FOLDERS) {
    for (const language of LANGUAGES) {
      const strings = readStrings(root, folder, language)!
      const plurals = Object.entries(strings).filter(([, text]) => text.includes(', plural,'))
      for (const [key, text] of plurals) {
        const names = [...placeholdersOf(text).names]
        for (const count of [0, 1, 2, 3, 5, 11, 21, 102, 1_000_000]) {
          const out = formatMessage(text, Object.fromEntries(names.map(name => [name, count])), language)
          if (out.includes(', plural,') || /\{\w+\}/.test(out)) t.fail(`${folder}/${language}.json ${key} with ${count}: ${out}`)
        }
      }
    }
  }
  const ru = readStrings(root, 'lang', 'ru')!['widget.unread']!
  t.same([1, 3, 5, 21].map(count => formatMessage(ru, { count }, 'ru')), ['1 новое сообщение', '3 новых сообщения', '5 новых сообщений', '21 новое сообщение'])
  const ar = readStrings(root, 'lang', 'ar')!['ui.words.count']!
  t.same([0, 1, 2, 3, 11, 100].map(count => formatMessage(ar, { count }, 'ar')), ['0 كلمة', 'كلمة واحدة', 'كلمتان', '3 كلمات', '11 كلمة', '100 كلمة'], 'Arabic: six forms')
  const pl = readStrings(root, 'lang', 'pl')!['ui.words.count']!
  t.same([1, 2, 5, 22, 25].map(count => formatMessage(pl, { count }, 'pl')), ['1 słowo', '2 słowa', '5 słów', '22 słowa', '25 słów'])
})
