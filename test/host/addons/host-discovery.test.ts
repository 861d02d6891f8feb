import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { HOST_DIR } from '../../../src/host/app.js'
import { AddonLoadError, loadHostCode } from '../../../src/host/addons/loader.js'
import { ADMIN, build, setUp } from '../../helpers/app.js'
import type { Tap } from '../../helpers/types.js'

const SDK = pathToFileURL(path.join(HOST_DIR, '../sdk/index.ts')).href

/**
 * A copy of the host's code folder: each entry a link to the real one, so the host's
 * endpoints, migrations and strings are the real ones, in a folder a test may add to.
 */
async function hostCopy (t: Tap): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'shoutbox-host-'))
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }))
  for (const entry of await fs.readdir(HOST_DIR)) {
    if (entry === 'endpoints') continue
    await fs.symlink(path.join(HOST_DIR, entry), path.join(dir, entry))
  }
  await fs.mkdir(path.join(dir, 'endpoints'))
  for (const file of await fs.readdir(path.join(HOST_DIR, 'endpoints'))) {
    await fs.symlink(path.join(HOST_DIR, 'endpoints', file), path.join(dir, 'endpoints', file))
  }
  return dir
}

/** An endpoint class file, as a contributor would write it in src/host/endpoints/. */
const endpointFile = (className: string, route: string): string => `
import { Api, Successful, type PublicCall } from '${SDK}'

export class ${className} extends Api {
  readonly method = 'GET'
  readonly path = '${route}'
  readonly schema = {}

  async handle ({ ctx }: PublicCall) {
    return new Successful({ version: '1.2.3', owner: ctx.addonId })
  }
}
`

t.test('an endpoint class dropped into the host\'s endpoints folder answers: no list to edit', async t => {
  const hostDir = await hostCopy(t)
  await fs.writeFile(path.join(hostDir, 'endpoints', 'version.ts'), endpointFile('Version', '/api/version'))
  const app = await build(t, { hostDir })
  const before = await app.inject({ url: '/api/version' })
  t.same([before.statusCode, before.json()], [503, { result: 'error', error: 'INSTALLATION_REQUIRED' }], 'behind the setup gate like any endpoint')
  await setUp(app)
  const after = await app.inject({ url: '/api/version' })
  t.same([after.statusCode, after.json()], [200, { result: 'ok', version: '1.2.3', owner: 'host' }])
  const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: ADMIN.username, password: ADMIN.password } })
  t.equal(login.statusCode, 200, 'the host\'s own endpoints are still there')
})

t.test('an endpoint beside its feature (a feature folder\'s endpoints/) is found too, as @fastify/autoload finds subfolders', async t => {
  const hostDir = await hostCopy(t)
  await fs.mkdir(path.join(hostDir, 'greetings', 'endpoints'), { recursive: true })
  await fs.writeFile(path.join(hostDir, 'greetings', 'endpoints', 'hello.ts'), endpointFile('Hello', '/api/greetings/hello'))
  const code = await loadHostCode(hostDir)
  t.ok(code.endpoints.some(e => e.exportName === 'Hello' && e.file.endsWith(path.join('greetings', 'endpoints', 'hello.ts'))), 'found in greetings/endpoints/')
  const app = await build(t, { hostDir })
  await setUp(app)
  const answered = await app.inject({ url: '/api/greetings/hello' })
  t.same([answered.statusCode, answered.json()], [200, { result: 'ok', version: '1.2.3', owner: 'host' }])
})

t.test('the host\'s endpoints are found by the same discovery as an addon\'s', async t => {
  const code = await loadHostCode(HOST_DIR)
  t.same(code.endpoints.map(e => e.exportName).sort(), [
    'ActivityFeed', 'AskPasswordReset', 'ChangeEmail', 'ChangePassword', 'ChangePreferences', 'ChangeSiteFace', 'CreateBotToken', 'CreateOwnToken', 'CreateRole', 'CreateUser', 'CreateWebhook',
    'DeleteOwnAccount', 'DeleteUser', 'DeleteWebhook', 'ExportOwnData', 'ExportUserData', 'FinishEmailChange', 'FinishPasswordReset', 'FinishSetup', 'FinishVerification', 'GetSiteSettings', 'Health', 'KnownUsers',
    'ListAddons', 'ListBotTokens', 'ListDeliveries', 'ListNotifications', 'ListOwnTokens', 'ListPermissions', 'ListRoles', 'ListUsers',
    'ListWebhooks', 'Login', 'Logout', 'MailOverview', 'MarkNotificationsRead', 'Me', 'NotificationStream', 'PanelModules', 'PanelOverview', 'PingWebhook',
    'PrivacyNotes', 'ReadPreferences', 'ReadSiteFace', 'ReadStrings', 'RedeliverDelivery', 'ResendVerification', 'RevokeBotToken', 'RevokeOwnToken', 'SendTestMail', 'ServePicture', 'SetAddonEnabled', 'SetupStatus', 'SignUp',
    'SignUpStatus', 'Unsubscribe', 'UpdateRole', 'UpdateSiteSettings', 'UpdateUser', 'UpdateWebhook', 'UploadLogo'
  ])
  t.same(code.migrations.map(m => m.name), ['001-platform', '002-sign-in-attempts', '003-user-disabled', '004-members', '005-retired-usernames', '006-notifications', '007-preferences', '008-api-tokens', '009-webhooks', '010-address-keys', '011-activity-retention', '012-drop-address-keys', '013-retired-username-hashes', '014-webhook-lanes', '015-mail', '016-verified-addresses', '017-mention-mails', '018-preferred-locale', '021-uploads', '022-webhook-formats'], 'host migrations are discovered too')
  const sources = await Promise.all((await fs.readdir(path.join(HOST_DIR, 'endpoints'))).map(f => fs.readFile(path.join(HOST_DIR, 'endpoints', f), 'utf8')))
  t.notOk(sources.some(s => /constructor\s*\(/.test(s)), 'no endpoint takes anything in its constructor')
})

t.test('a host endpoint is checked like an addon\'s: one line naming the file and the class', async t => {
  const hostDir = await hostCopy(t)
  await fs.writeFile(path.join(hostDir, 'endpoints', 'bad.ts'), endpointFile('Outside', '/outside'))
  const error = await loadHostCode(hostDir).then(() => undefined, (e: unknown) => e)
  t.ok(error instanceof AddonLoadError)
  t.match((error as Error).message, /^the host \(.*endpoints\/bad\.ts, class Outside\): path must start with \/api\/$/)
})
