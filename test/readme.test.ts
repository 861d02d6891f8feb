import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { SETUP_TOKEN } from './helpers/app.js'
import { serverStorage, startServer } from './helpers/server.js'

const readme = await fs.readFile(new URL('../README.md', import.meta.url), 'utf8')

function block (name: string): string {
  const match = new RegExp(`<!-- ${name}:start -->\\n\`\`\`\\w+\\n([\\s\\S]*?)\`\`\`\\n<!-- ${name}:end -->`).exec(readme)
  if (match === null) throw new Error(`README.md has no ${name} block`)
  return match[1]!
}

/** Millisecond timestamps differ from run to run. */
const normalise = (text: string): string => text.replace(/\b1\d{12}\b/g, '<ms>')

t.test('the README\'s curl walkthrough runs verbatim and prints what the README shows', async t => {
  const storage = await serverStorage(t)
  // The README runs it against `npm run dev`: the built server.
  const server = await startServer(t, { env: storage.env })
  const cwd = await fs.mkdtemp(path.join(os.tmpdir(), 'shoutbox-readme-'))
  t.teardown(() => fs.rm(cwd, { recursive: true, force: true }))
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', block('walkthrough')], {
    cwd, env: { ...process.env, BASE: server.url, TOKEN: SETUP_TOKEN }
  })
  t.equal(normalise(stdout), normalise(block('walkthrough-output')))
})
