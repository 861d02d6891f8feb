import t from 'tap'
import { accentPalette, contrast, parseColour, type Rgb } from '../../src/host/site-face/accent.js'
import { negotiateLocale, directionOf } from '../../src/host/services/i18n.js'
import { LANGUAGES } from '../../src/host/site-face/languages.js'
import hostDe from '../../src/host/lang/de.json' with { type: 'json' }
import hostAr from '../../src/host/lang/ar.json' with { type: 'json' }
import boardDe from '../../lang/de.json' with { type: 'json' }
import { build, setUp, userWith } from '../helpers/app.js'
import { account, feed } from '../helpers/identity.js'
import { answer, as, error } from '../helpers/requests.js'

/** The reader's language and the site's face (name, welcome, accent, default language), on every page. */

t.test('Accept-Language: q-values, case, a language\'s sibling (pt → pt-BR), then nothing', async t => {
  const have = [...LANGUAGES]
  t.equal(negotiateLocale('de-DE,de;q=0.9,en;q=0.8', have), 'de', 'de-DE finds de')
  t.equal(negotiateLocale('en;q=0.5, ar', have), 'ar', 'the higher q wins, wherever it stands')
  t.equal(negotiateLocale('pt-PT, en;q=0.1', have), 'pt-BR', 'pt-PT finds the Portuguese we have')
  t.equal(negotiateLocale('PT-br', have), 'pt-BR', 'whatever the case')
  t.equal(negotiateLocale('xx, ja;q=0.3', have), 'ja', 'an unknown one is passed over')
  t.equal(negotiateLocale('fr;q=0, es;q=0.2', have), 'es', 'q=0 refuses')
  t.equal(negotiateLocale('zh-CN, ko', have), undefined, 'none we have: the caller falls back to the site\'s default')
  t.equal(negotiateLocale('de;q=abc, <script>, tr', have), 'tr', 'a malformed range is left out')
  t.equal(negotiateLocale(`${'x,'.repeat(5000)}ru`, have), undefined, 'a header is read only so far')
  t.equal(directionOf('ar'), 'rtl')
  t.equal(directionOf('pt-BR'), 'ltr')
})

t.test('an accent: a shade per theme keeps 4.5:1 for every text; a non-colour or a translucent one is refused', async t => {
  const light: Rgb[] = [[0xfb, 0xfa, 0xf7], [0xff, 0xff, 0xff]]
  const dark: Rgb[] = [[0x14, 0x17, 0x1b], [0x1d, 0x22, 0x28]]
  for (const colour of ['#2554c7', '#ffff00', '#000', '#fff', '#c2185b', 'rgb(0, 200, 83)', '#777777', '#808080ff']) {
    const palette = accentPalette(colour)
    const [l, d] = [parseColour(palette.light.accent), parseColour(palette.dark.accent)]
    t.ok(light.every(bg => contrast(l, bg) >= 4.5) && dark.every(bg => contrast(d, bg) >= 4.5), `${colour}: as text, on light and dark pages`)
    t.ok(contrast(parseColour(palette.light.onAccent), l) >= 4.5 && contrast(parseColour(palette.dark.onAccent), d) >= 4.5, `${colour}: text on it`)
  }
  for (const refused of ['red', 'blue;}body{display:none', '#12345', '#80808080', 'rgb(300, 0, 0)', 'transparent', '']) {
    t.throws(() => accentPalette(refused), `${JSON.stringify(refused)} refused`)
  }
})

t.test('pages in the reader\'s language, with the site\'s face', async t => {
  const app = await build(t)
  const admin = await setUp(app)
  const page = async (url: string, headers: Record<string, string> = {}) => await app.inject({ url, headers })
  const langOf = (html: string): string | undefined => /<html lang="([^"]+)" dir="(ltr|rtl)">/.exec(html)?.slice(1).join(' ')

  await t.test('every page sets lang and dir from Accept-Language, and carries the strings of the files', async t => {
    for (const url of ['/', '/shouts', '/shouts/1', '/privacy', '/password-reset', '/email-change', '/panel/']) {
      const de = await page(url, { 'accept-language': 'de-CH, en;q=0.5' })
      t.equal(de.statusCode, 200)
      t.equal(langOf(de.body), 'de ltr', `${url} in German`)
      t.match(de.headers.vary, /accept-language/)
      const carried = /<script type="application\/json" data-strings="shoutbox" data-locale="de">(.*?)<\/script>/.exec(de.body)
      t.ok(carried !== null && JSON.stringify(JSON.parse(carried[1]!)) === JSON.stringify(boardDe), `${url}: the board's German strings, as lang/de.json has them`)
      t.ok(de.body.includes('data-strings="host" data-locale="de"'), 'and the host\'s')
      const ar = await page(url, { 'accept-language': 'ar-EG' })
      t.equal(langOf(ar.body), 'ar rtl', `${url} in Arabic, right to left`)
      const en = await page(url)
      t.equal(langOf(en.body), 'en ltr', `${url}: no header, the site's default`)
      t.notOk(en.body.includes('data-strings='), 'English is bundled: nothing carried')
    }
    const home = (await page('/', { 'accept-language': 'de' })).body
    for (const key of ['site.nav.shouts', 'site.nav.privacy', 'site.defaultName', 'site.welcome.title'] as const) t.match(home, `>${hostDe[key]}<`, `the header and welcome in German: ${key}`)
    const shown = home.replace(/<script type="application\/json"[^>]*>.*?<\/script>/gs, '')
    t.notMatch(shown, /Our community|Welcome|>Privacy<|This is the home page/, 'no English left on the German home page')
    t.match((await page('/privacy', { 'accept-language': 'ar' })).body, `<title>${hostAr['site.privacy.title']} · ${hostAr['site.defaultName']}</title>`)
  })

  await t.test('the reader\'s own choice comes first: ?locale=, a member\'s saved language, this browser\'s cookie', async t => {
    t.equal(langOf((await page('/?locale=ja', { 'accept-language': 'de' })).body), 'ja ltr')
    t.equal(langOf((await page('/', { 'accept-language': 'de', cookie: 'shoutbox_locale=pt-br' })).body), 'pt-BR ltr', 'the cookie, spelled any case')
    t.equal(langOf((await page('/', { cookie: 'shoutbox_locale=<b>' })).body), 'en ltr', 'a cookie that names no language we have is passed over')
    const member = await account(app, admin, 'selin')
    t.same(answer(await as(app, member).put('/api/users/me/preferences', { locale: 'ru' })), [200, { result: 'ok', preferences: { sound: false, desktopNotifications: false, theme: 'system', locale: 'ru', emailMentions: 'off' } }])
    t.equal(langOf((await page('/', { 'accept-language': 'de', cookie: member })).body), 'ru ltr', 'the member\'s saved language, over the browser\'s')
    t.equal(answer(await as(app, member).put('/api/users/me/preferences', { locale: 'xx' }))[0], 400, 'a language the site does not ship is refused')
    t.same(answer(await as(app, member).put('/api/users/me/preferences', { locale: null }))[1], { result: 'ok', preferences: { sound: false, desktopNotifications: false, theme: 'system', locale: null, emailMentions: 'off' } })
    t.equal(langOf((await page('/', { 'accept-language': 'de', cookie: member })).body), 'de ltr', 'none saved: the browser\'s again')
  })

  await t.test('the site\'s face from the panel: who may, what is refused, what every page shows', async t => {
    const staff = await userWith(app, admin, 'helper', ['panel.access'])
    t.same(answer(await as(app, undefined).put('/api/panel/site-face', { siteName: 'x' })), [401, error('NOT_LOGGED_IN')])
    t.same(answer(await as(app, staff).put('/api/panel/site-face', { siteName: 'x' })), [403, error('NO_PERMISSION')], 'staff without MANAGE_SETTINGS')
    t.same(answer(await as(app, staff).get('/api/panel/site-face')), [403, error('NO_PERMISSION')])
    const before = (await as(app, admin).get('/api/panel/site-face')).json()
    for (const body of [{ accent: 'red' }, { accent: '#80808080' }, { accent: '#123;} body { display: none' }, { siteName: '   ' }, { siteName: 'x'.repeat(81) },
      { defaultLocale: 'xx' }, { welcomeText: 'a\u0000b' }, {}, { siteName: 7 }]) {
      const [status, refused] = answer(await as(app, admin).put('/api/panel/site-face', body))
      t.equal(status, 400, `${JSON.stringify(body)} refused`)
      t.match(refused, { result: 'error', error: 'BAD_REQUEST', bodyValidationError: String })
    }
    t.same((await as(app, admin).get('/api/panel/site-face')).json(), before, 'nothing changed')

    const changed = await as(app, admin).put('/api/panel/site-face', { siteName: 'Kedi <Kulübü>', welcomeTitle: 'Merhaba', welcomeText: 'Birinci.\n\nİkinci & son.', accent: '#C2185B', defaultLocale: 'tr' })
    t.same(answer(changed), [200, { result: 'ok', face: { siteName: 'Kedi <Kulübü>', welcomeTitle: 'Merhaba', welcomeText: 'Birinci.\n\nİkinci & son.', accent: '#c2185b', defaultLocale: 'tr', logo: null }, languages: LANGUAGES }])
    const home = (await page('/', { 'accept-language': 'zh' })).body
    t.equal(langOf(home), 'tr ltr', 'a browser asking for none we have gets the site\'s default')
    t.match(home, '<title>Kedi &lt;Kulübü&gt;</title>', 'the name, escaped')
    t.match(home, '<h1>Merhaba</h1>')
    t.match(home, '<p>Birinci.</p>\n      <p>İkinci &amp; son.</p>', 'paragraphs, escaped')
    t.match((await page('/shouts', { 'accept-language': 'de' })).body, '>Kedi &lt;Kulübü&gt;</a>', 'every page names the site')
    const css = await page('/theme/face.css')
    t.match(css.headers['content-type'], /text\/css/)
    t.match(css.body, /--site-accent: light-dark\(#[0-9a-f]{6}, #[0-9a-f]{6}\);[\s\S]*--shoutbox-accent/)
    const entries = await feed(app, admin, 1, 'de')
    t.match(entries[0], { type: 'UPDATED_SITE_FACE', text: 'admin hat Namen, Begrüßung, Farbe oder Sprache der Website geändert' }, 'logged, in the reader\'s language')
    t.same(answer(await as(app, admin).put('/api/panel/site-face', { siteName: null, welcomeTitle: null, welcomeText: null, accent: null, defaultLocale: 'en' }))[0], 200)
    t.match((await page('/', { 'accept-language': 'de' })).body, '<title>Unsere Gemeinschaft</title>', 'null: the theme\'s own, in the reader\'s language')
    t.match((await page('/theme/face.css')).body, /the theme's own accent/)
  })

  await t.test('the strings for a page the server does not draw (the embed): the closest language we ship', async t => {
    const de = (await as(app, undefined).get('/api/strings/shoutbox/de-AT')).json()
    t.equal(de.locale, 'de')
    t.same(de.strings, boardDe)
    t.equal((await as(app, undefined).get('/api/strings/shoutbox/zz')).json().locale, 'en', 'none: the site\'s default')
    t.same(answer(await as(app, undefined).get('/api/strings/nobody/de')), [404, error('NOT_FOUND')])
    t.equal((await as(app, undefined).get('/api/strings/Shoutbox;drop/de')).statusCode, 400)
  })
})
