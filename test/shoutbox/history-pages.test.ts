import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { buildUi } from '../../scripts/build-ui.js'
import { build, setUp } from '../helpers/app.js'

/** CONTRACT §14: the pages /shouts and /shouts/<id>, served like the home page (the browser test uses them). */
t.test('the archive and permalink pages', async t => {
  if (!fs.existsSync(fileURLToPath(new URL('../../dist/ui/theme/shouts.html', import.meta.url)))) await buildUi()
  const app = await build(t)
  await setUp(app)

  for (const [url, module] of [['/shouts', 'archive.js'], ['/shouts/1', 'permalink.js'], ['/shouts/999999999999999', 'permalink.js']] as const) {
    t.test(`${url}: a theme page that loads the Shoutbox's ${module}, under the pages' policy`, async t => {
      const response = await app.inject({ url })
      t.equal(response.statusCode, 200)
      t.equal(response.headers['content-type'], 'text/html; charset=utf-8')
      t.match(response.headers['content-security-policy'], /script-src 'self'/)
      t.equal(response.headers['x-frame-options'], 'DENY')
      t.match(response.body, `<script type="module" src="/addons/shoutbox/ui/${module}"`)
      t.notMatch(response.body, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script')
      const script = await app.inject({ url: `/addons/shoutbox/ui/${module}` })
      t.same([script.statusCode, script.headers['content-type']], [200, 'application/javascript; charset=utf-8'])
    })
  }

  t.test('a path that is not a shout id → 404 NOT_FOUND', async t => {
    for (const url of ['/shouts/abc', '/shouts/1.5', '/shouts/9999999999999999', '/shouts/1/2']) {
      const response = await app.inject({ url })
      t.same([response.statusCode, response.json()], [404, { result: 'error', error: 'NOT_FOUND' }], url)
    }
  })

  t.test('the home page links to the archive', async t => {
    t.match((await app.inject({ url: '/' })).body, '<a href="/shouts">Shouts</a>')
  })
})
