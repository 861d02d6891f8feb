import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const root = fileURLToPath(new URL('../', import.meta.url))

/** Runs scripts/build.ts with `--out out`; resolves with its exit code and output. */
function buildInto (out: string): Promise<{ code: number | null, output: string }> {
  return new Promise(resolve => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts/build.ts'), '--out', out], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
    child.on('close', code => resolve({ code, output }))
  })
}

t.test('two builds at once into one folder (two `npm run dev` in one checkout) both succeed and leave one whole tree', async t => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'shoutbox-build-'))
  t.teardown(() => fs.rmSync(parent, { recursive: true, force: true }))
  const out = path.join(parent, 'dist')
  // A tree from an earlier build, which both replace.
  fs.mkdirSync(path.join(out, 'host'), { recursive: true })
  fs.writeFileSync(path.join(out, 'host/stale.js'), '// from an earlier build\n')
  const [first, second] = await Promise.all([buildInto(out), buildInto(out)])
  t.equal(first.code, 0, `the first build: ${first.output}`)
  t.equal(second.code, 0, `the second build: ${second.output}`)
  for (const file of ['host/server.js', 'host/lang/en.json', 'ui/panel/panel.js', 'ui/theme/account.js', 'addon/shoutbox/addon.json', 'addon/shoutbox/index.js']) {
    t.ok(fs.existsSync(path.join(out, file)), `${file} is there`)
  }
  t.notOk(fs.existsSync(path.join(out, 'host/stale.js')), 'nothing of the earlier tree is left')
  t.same(fs.readdirSync(parent), ['dist'], 'no folder of either build is left beside it')
})
