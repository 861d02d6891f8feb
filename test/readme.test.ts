import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { SETUP_TOKEN } from './helpers/app.js'
import { http, serverStorage, startServer } from './helpers/server.js'
import type { Tap } from './helpers/types.js'

const readme = await fs.readFile(new URL('../README.md', import.meta.url), 'utf8')
const integrations = await fs.readFile(new URL('../docs/integrations.md', import.meta.url), 'utf8')

function block (name: string, text = readme): string {
  const match = new RegExp(`<!-- ${name}:start -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\`\`\`\\n<!-- ${name}:end -->`).exec(text)
  if (match === null) throw new Error(`no ${name} block`)
  return match[1]!
}

/** Millisecond timestamps differ from run to run. */
const normalise = (text: string): string => text.replace(/\b1\d{12}\b/g, '<ms>')

/** Runs the walkthrough verbatim against `server`, with these variables; then `after` (another document's block), in the same folder. */
async function walkthrough (t: Tap, server: { url: string }, env: NodeJS.ProcessEnv, after?: string): Promise<string> {
  const cwd = await fs.mkdtemp(path.join(os.tmpdir(), 'shoutbox-readme-'))
  t.teardown(() => fs.rm(cwd, { recursive: true, force: true }))
  const { TOKEN: _, ...inherited } = process.env
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', block('walkthrough') + (after ?? '')], {
    cwd, env: { ...inherited, BASE: server.url, ...env }
  })
  return stdout
}

t.test('the README\'s curl walkthrough runs verbatim and prints what the README shows', async t => {
  const storage = await serverStorage(t)
  // The README runs it against `npm run dev`: the built server.
  const server = await startServer(t, { env: storage.env })
  t.equal(normalise(await walkthrough(t, server, { TOKEN: SETUP_TOKEN })), normalise(block('walkthrough-output')))
})

t.test('after setup in the browser, the walkthrough without TOKEN signs in as the administrator chosen there', async t => {
  const storage = await serverStorage(t)
  const server = await startServer(t, { env: storage.env })
  // What the wizard sends: the administrator, then its one question.
  const admin = { username: 'sam', email: 'sam@example.org', password: 'my own passphrase', setupToken: SETUP_TOKEN }
  const finished = await http(server, 'POST', '/api/setup/finish', { body: admin })
  t.equal(finished.status, 200)
  t.equal((await http(server, 'PUT', '/api/panel/shoutbox/config', { body: { maxShouts: 50 }, cookie: finished.cookie! })).status, 200)

  // Then docs/integrations.md's bot account, as it stands: its ids found, not assumed.
  const lines = (await walkthrough(t, server, { ADMIN_NAME: 'sam', ADMIN_PASSWORD: 'my own passphrase' }, block('bot-account', integrations))).split('\n')
  const shown = normalise(block('walkthrough-output')).replaceAll('"username":"admin"', '"username":"sam"').split('\n')
  t.same(lines.slice(0, 3).map(normalise), shown.slice(1, 4), 'no setup step; signed in as sam, the shout posted and listed')
  t.match(JSON.parse(lines[3]!), {
    result: 'ok',
    logs: [{ type: 'CREATED_SHOUT', username: 'sam', text: 'sam posted a shout: Hello, world!' }, { text: 'sam changed the shoutbox settings' }, { type: 'SETUP_FINISHED' }]
  })
  const token = JSON.parse(lines[4]!) as { result: string, secret: string }
  t.match(token, { result: 'ok', token: { name: 'announcements', permissions: ['addon.shoutbox.post'] }, secret: /^sbx_/ }, 'the bot account and its token, made by the docs\' script')

  // examples/bot.mjs twice in a row: the bot is a member, under the flood limits; the second waits Retry-After.
  const bot = (message: string) => promisify(execFile)(process.execPath, ['examples/bot.mjs', message], {
    cwd: fileURLToPath(new URL('../', import.meta.url)), env: { ...process.env, NODE_OPTIONS: '', SHOUTBOX_URL: server.url, SHOUTBOX_TOKEN: token.secret }
  })
  t.match(JSON.parse((await bot('v2.3 is out')).stdout), { result: 'ok', shout: { message: 'v2.3 is out', username: 'deploybot', bot: true } })
  const again = await bot('v2.3.1 too')
  t.match(JSON.parse(again.stdout), { result: 'ok', shout: { message: 'v2.3.1 too', bot: true } })
  t.match(again.stderr, /^Shoutbox says: too soon \(bots have flood limits too\); Retry-After \d+ s, waiting and trying again\n$/, 'it said why it waited')
})
