import path from 'node:path'
import { fileURLToPath } from 'node:url'
import fs from 'node:fs/promises'
import t from 'tap'
import { packageAddon } from '../../scripts/package-addon.js'
import { ADMIN } from '../helpers/app.js'
import { tempAddonsDir } from '../helpers/fixtures.js'
import { http, serverStorage, startServer } from '../helpers/server.js'

const root = fileURLToPath(new URL('../../', import.meta.url))

t.test('the built addon folder, dropped into a host\'s addons folder, works after a restart', async t => {
  const addonsDir = await tempAddonsDir(t)
  const built = path.join(addonsDir, 'shoutbox')
  // What `npm run build` does for dist/addon/shoutbox.
  await packageAddon({ addonDir: root, codeDir: path.join(root, 'src/shoutbox'), outDir: built })
  const files = await fs.readdir(built)
  t.same(files.filter(f => !f.endsWith('.map')).sort(), ['addon.json', 'bridges', 'chunks', 'direct', 'endpoints', 'guests', 'index.js', 'lang', 'migrations', 'package.json', 'pictures', 'presence', 'ui'])
  t.same((await fs.readdir(path.join(built, 'lang'))).sort(), ['ar.json', 'de.json', 'en.json', 'es.json', 'fr.json', 'it.json', 'ja.json', 'nl.json', 'pl.json', 'pt-BR.json', 'ru.json', 'tr.json'])
  t.same((await fs.readdir(path.join(built, 'ui'))).filter(f => /\.(js|css)$/.test(f)).sort(), ['archive.js', 'embed.js', 'guest-proof-worker.js', 'history.css', 'palette.css', 'panel.js', 'permalink.js', 'pictures.css', 'strings.js', 'widget.css', 'widget.js'])

  const storage = await serverStorage(t)
  const first = await startServer(t, { env: storage.env })
  const setup = await http(first, 'POST', '/api/setup/finish', { body: ADMIN })
  t.equal(setup.status, 200)
  first.child.kill('SIGTERM')
  t.equal(await first.exited, 0)

  const host = await startServer(t, { args: ['--addons-dir', addonsDir], env: storage.env })
  const login = await http(host, 'POST', '/api/auth/login', { body: { username: ADMIN.username, password: ADMIN.password } })
  const cookie = login.cookie!
  const addons = await http(host, 'GET', '/api/panel/addons', { cookie })
  t.match(addons.body, { addons: [{ id: 'shoutbox', builtin: false }] }, 'the dropped-in copy replaced the built-in one')
  t.same((await http(host, 'POST', '/panel/api/shoutbox', { body: { message: 'installed' }, cookie })).body, { result: 'ok' })
  t.match((await http(host, 'GET', '/api/shoutbox/list')).body, { result: 'ok', shouts: [{ id: 1, message: 'installed', username: 'admin' }] })
  const widget = await fetch(`${host.url}/addons/shoutbox/ui/widget.js`)
  t.same([widget.status, widget.headers.get('content-type')], [200, 'application/javascript; charset=utf-8'], 'its widget is served from the dropped-in folder')
})
