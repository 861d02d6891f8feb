import fs from 'node:fs/promises'
import path from 'node:path'
import t from 'tap'
import { BUILTIN_ADDONS } from '../../../src/host/app.js'
import { AddonLoadError, loadAddons } from '../../../src/host/addons/loader.js'
import { SETUP_TOKEN, build } from '../../helpers/app.js'
import { installFixture, tempAddonsDir } from '../../helpers/fixtures.js'
import type { Tap } from '../../helpers/types.js'

const manifest = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  id: 'broken', name: 'Broken', version: '1.0.0', entry: 'index.js', ...overrides
})

async function addonWith (t: Tap, files: Record<string, string>): Promise<string> {
  const addonsDir = await tempAddonsDir(t)
  for (const [file, text] of Object.entries(files)) {
    const full = path.join(addonsDir, 'broken', file)
    await fs.mkdir(path.dirname(full), { recursive: true })
    await fs.writeFile(full, text)
  }
  return addonsDir
}

const VALID_ENTRY = `export default { [Symbol.for('shoutbox.sdk.addon')]: true }\n`

t.test('a bad manifest stops start-up with one line naming the addon, its path and the field', async t => {
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    ['a missing field', { 'addon.json': JSON.stringify(manifest({ version: undefined })) },
      /^addon "broken" \(.*broken\/addon\.json\): field version expected required property$/],
    ['a bad id', { 'addon.json': JSON.stringify(manifest({ id: 'Not An Id' })) },
      /^addon "Not An Id" \(.*addon\.json\): field id expected string to match '.*'$/],
    ['a bad permission node', { 'addon.json': JSON.stringify(manifest({ permissions: [{ key: 'X', node: 'panel.access' }] })) },
      /^addon "broken" \(.*addon\.json\): field permissions\.0\.node expected string to match/],
    ['not JSON', { 'addon.json': '{ id: broken' }, /^addon at .*broken: .*addon\.json is not readable JSON/],
    ['an id naming the host', { 'addon.json': JSON.stringify(manifest({ id: 'host' })) },
      /^addon "host" \(.*addon\.json\): field id "host" names the host; choose another id$/],
    ['an entry outside its folder', { 'addon.json': JSON.stringify(manifest({ entry: '../elsewhere/index.js' })), 'index.js': VALID_ENTRY },
      /^addon "broken" \(.*addon\.json\): field entry must name a module inside the addon's folder$/],
    ['a missing entry module', { 'addon.json': JSON.stringify(manifest()) },
      /^addon "broken" \(.*broken\/index\.js\): cannot be imported: Cannot find module/],
    ['an entry without defineAddon', { 'addon.json': JSON.stringify(manifest()), 'index.js': 'export const x = 1\n' },
      /^addon "broken" \(.*index\.js\): the entry module must `export default defineAddon\(\.\.\.\)` from the SDK$/],
    ['an endpoint with a bad path', {
      'addon.json': JSON.stringify(manifest()),
      'index.js': VALID_ENTRY,
      'endpoints/bad.js': `export class Bad { static [Symbol.for('shoutbox.sdk.endpoint')] = true
        access = 'Api'; method = 'GET'; path = '/outside'; schema = {}; async handle () {} }\n`
    }, /^addon "broken" \(.*endpoints\/bad\.js, class Bad\): path must start with \/api\/$/],
    ['a migration without up()', {
      'addon.json': JSON.stringify(manifest()), 'index.js': VALID_ENTRY, 'migrations/001.js': 'export const down = 1\n'
    }, /^addon "broken" \(.*migrations\/001\.js\): a migration must export an `up\(db\)` function$/]
  ]
  for (const [label, files, expected] of cases) {
    const addonsDir = await addonWith(t, files)
    const error = await loadAddons(addonsDir, []).then(() => undefined, (e: unknown) => e)
    t.ok(error instanceof AddonLoadError, `${label}: an AddonLoadError`)
    t.match((error as Error).message, expected, label)
    t.notMatch((error as Error).message, /\n/, `${label}: one line`)
  }
})

t.test('the same addon twice in the addons folder is refused', async t => {
  const addonsDir = await tempAddonsDir(t)
  await installFixture('greeter', addonsDir)
  await fs.cp(path.join(addonsDir, 'greeter'), path.join(addonsDir, 'greeter-copy'), { recursive: true })
  await t.rejects(loadAddons(addonsDir, []), { message: /^addon "greeter" is installed twice: / })
})

t.test('an addon in the addons folder replaces the built-in copy with the same id', async t => {
  const addonsDir = await tempAddonsDir(t)
  const builtin = await loadAddons(addonsDir, BUILTIN_ADDONS)
  t.same(builtin.map(a => [a.manifest.id, a.source.builtin]), [['shoutbox', true]])
  await fs.mkdir(path.join(addonsDir, 'shoutbox-upgrade'))
  const upgraded = JSON.parse(await fs.readFile(path.join(BUILTIN_ADDONS[0]!.dir, 'addon.json'), 'utf8'))
  await fs.writeFile(path.join(addonsDir, 'shoutbox-upgrade', 'addon.json'), JSON.stringify({ ...upgraded, version: '9.9.9' }))
  await fs.writeFile(path.join(addonsDir, 'shoutbox-upgrade', 'index.js'), VALID_ENTRY)
  const loaded = await loadAddons(addonsDir, BUILTIN_ADDONS)
  t.same(loaded.map(a => [a.manifest.id, a.manifest.version, a.source.builtin]), [['shoutbox', '9.9.9', false]])
})

t.test('buildApp refuses to start with a bad addon', async t => {
  const addonsDir = await addonWith(t, { 'addon.json': JSON.stringify(manifest({ name: '' })) })
  await t.rejects(build(t, { config: { addonsDir } }), { name: 'Error', message: /field name expected string length greater or equal to 1/ })
})

t.test('the fixture addon is discovered from its folder: no registration call, no host code naming it', async t => {
  const addonsDir = await tempAddonsDir(t)
  await installFixture('greeter', addonsDir)
  const hostSource = await fs.readFile(new URL('../../../src/host/app.ts', import.meta.url), 'utf8')
  t.notMatch(hostSource, /greeter/i, 'the host does not know the fixture')
  const loaded = await loadAddons(addonsDir, [])
  const greeter = loaded[0]!
  t.same(greeter.endpoints.map(e => e.exportName).sort(), ['Boom', 'Counted', 'Echo', 'Greet', 'Hello', 'RecordedEvents', 'Slow', 'Teapot'])
  t.same(greeter.listeners.map(l => l.exportName).sort(),
    ['AlwaysThrows', 'RecordAddonStarted', 'RecordEcho', 'RecordSetupFinished', 'RecordShoutCreated', 'RecordShoutDeleted', 'RecordSignIn'])
  t.same(greeter.migrations.map(m => m.name), ['001-events'])

  const app = await build(t, { config: { addonsDir } })
  await app.inject({ method: 'POST', url: '/api/setup/finish', payload: { username: 'admin', email: 'a@example.org', password: 'long enough pw', setupToken: SETUP_TOKEN } })
  const hello = await app.inject({ url: '/api/greeter/hello' })
  t.same([hello.statusCode, hello.json()], [200, { result: 'ok', greeting: 'hello' }])
})

t.test('each addon runs in its own encapsulated context', async t => {
  const addonsDir = await tempAddonsDir(t)
  await installFixture('greeter', addonsDir)
  const app = await build(t, { config: { addonsDir } })
  await app.inject({ method: 'POST', url: '/api/setup/finish', payload: { username: 'admin', email: 'a@example.org', password: 'long enough pw', setupToken: SETUP_TOKEN } })
  t.equal((await app.inject({ url: '/api/greeter/hello' })).headers['x-greeter'], 'yes', 'the addon\'s hook runs on its routes')
  t.equal((await app.inject({ url: '/api/shoutbox/list' })).headers['x-greeter'], undefined, 'and on no other addon\'s')
  t.equal((await app.inject({ url: '/api/setup/status' })).headers['x-greeter'], undefined, 'nor on the host\'s')
})

t.test('an addon declaring a route the host (or another addon) has fails in one line naming both', async t => {
  const addonsDir = await addonWith(t, {
    'addon.json': JSON.stringify(manifest()),
    'index.js': VALID_ENTRY,
    'endpoints/health.js': `export class MyHealth { static [Symbol.for('shoutbox.sdk.endpoint')] = true
      access = 'Api'; method = 'GET'; path = '/api/health'; schema = {}; async handle () {} }\n`
  })
  const error = await build(t, { config: { addonsDir } }).then(() => undefined, (e: unknown) => e)
  t.ok(error instanceof AddonLoadError)
  t.match((error as Error).message, /^addon "broken" \(.*endpoints\/health\.js\): GET \/api\/health is already declared by the host$/)
})
