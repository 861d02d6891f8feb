/**
 * `npm test`: type-check, lint, build, then the whole tap suite once on the embedded database
 * and — when TEST_DATABASE_URL is set — once more on that PostgreSQL, from the same
 * files. The last line is the plain summary `N passed, N failed`.
 *
 * `SHOUTBOX_TEST_DATABASES=embedded` runs the embedded database only (CI's second Node
 * version: the PostgreSQL run is the first one's).
 */
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureImage } from '../test/helpers/pglite-image.js'

const root = fileURLToPath(new URL('../', import.meta.url))
const bin = (name: string): string => path.join(root, 'node_modules/.bin', name)
const extraArgs = process.argv.slice(2)

/**
 * Node 24's V8 can abort a process that makes and drops many embedded databases
 * (nodejs/node#64500): "Check failed: jit_page_->allocations_.erase(addr) == 1", once in
 * our CI, in setup-gate.test.ts, as V8 freed a compiled wasm-to-JS wrapper
 * (Runtime_TierUpWasmToJSWrapper → WasmImportWrapperCache::Free → WasmCodeAllocator::FreeCode).
 * A test process makes dozens of databases; the host makes one. So on Node 24 the test
 * processes never compile, nor free, single pieces of WebAssembly code: baseline code only
 * (--liftoff-only, which `npm start` passes too) and the generic import wrappers only (a
 * tier-up budget never spent). Node 20's V8 has no wrapper tier-up and takes no such flag.
 * Tap's --node-arg replaces the package.json list, so that list is given again first.
 */
function tapNodeArgs (): string[] {
  if (Number(process.versions.node.split('.')[0]) <= 20) return []
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { tap: { 'node-arg': string[] } }
  return [...pkg.tap['node-arg'], '--liftoff-only', '--wasm-wrapper-tiering-budget=2147483647'].map(arg => `--node-arg=${arg}`)
}

let passed = 0
let failed = 0

function step (label: string, command: string, args: string[]): void {
  process.stdout.write(`\n== ${label}\n`)
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' })
  if (result.status === 0) {
    passed++
    process.stdout.write(`ok - ${label}\n`)
  } else {
    failed++
    process.stdout.write(`not ok - ${label}\n`)
  }
}

interface Counts { passed: number, failed: number, skipped: number }

/** Runs tap and counts leaf test points (parents of subtests are not counted twice). */
function runTap (label: string, env: NodeJS.ProcessEnv): Promise<Counts & { status: number }> {
  process.stdout.write(`\n== tests on the ${label} database\n`)
  return new Promise(resolve => {
    const child = spawn(bin('tap'), ['--reporter=tap', ...tapNodeArgs(), ...extraArgs], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
    const counts: Counts = { passed: 0, failed: 0, skipped: 0 }
    const subtestIndents: number[] = []
    let buffer = ''
    let inFailure = false
    const onLine = (line: string): void => {
      const subtest = /^(\s*)# Subtest: /.exec(line)
      if (subtest !== null) {
        subtestIndents.push(subtest[1]!.length)
        return
      }
      const point = /^(\s*)(not ok|ok) \d+( - (.*))?$/.exec(line)
      if (point !== null) {
        const indent = point[1]!.length
        const isParent = subtestIndents.at(-1) === indent
        if (isParent) subtestIndents.pop()
        const ok = point[2] === 'ok'
        // File-level lines are the progress report; failures are shown with their details.
        if (indent === 0) process.stdout.write(`${line}\n`)
        else if (!ok) process.stdout.write(`${line}\n`)
        inFailure = !ok && !isParent
        if (isParent) return
        if (/# SKIP/.test(line)) counts.skipped++
        else if (ok || /# TODO/.test(line)) counts.passed++
        else counts.failed++
        return
      }
      if (inFailure) process.stdout.write(`${line}\n`)
      if (/^\s*\.\.\.$/.test(line)) inFailure = false
    }
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8')
      const lines = buffer.split('\n')
      buffer = lines.pop() ?? ''
      lines.forEach(onLine)
    })
    child.on('close', status => {
      if (buffer !== '') onLine(buffer)
      process.stdout.write(`${label}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`)
      resolve({ ...counts, status: status ?? 1 })
    })
  })
}

step('type-check (tsc)', process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'])
step('lint (eslint)', bin('eslint'), ['.'])

// dist/, as `npm run build` makes it: the compiled host some tests start as `npm start`
// does, and the browser code the pages and the browser tests use.
step('build (npm run build)', process.execPath, ['--import', 'tsx', path.join(root, 'scripts/build.ts')])
await ensureImage()
const runs: Array<[string, NodeJS.ProcessEnv]> = [['embedded', { SHOUTBOX_TEST_DB: 'embedded' }]]
process.stdout.write(`\n# Node ${process.version}\n`)
if (process.env.SHOUTBOX_TEST_DATABASES === 'embedded') {
  process.stdout.write('\n# SHOUTBOX_TEST_DATABASES=embedded: the PostgreSQL run is skipped\n')
} else if (process.env.TEST_DATABASE_URL !== undefined && process.env.TEST_DATABASE_URL !== '') {
  runs.push(['PostgreSQL', { SHOUTBOX_TEST_DB: 'postgres' }])
} else if (process.env.CI === 'true') {
  process.stdout.write('\nnot ok - CI requires the PostgreSQL run: set TEST_DATABASE_URL\n')
  failed++
} else {
  process.stdout.write('\n# TEST_DATABASE_URL is not set: the PostgreSQL run is skipped\n')
}
for (const [label, env] of runs) {
  const result = await runTap(label, env)
  passed += result.passed
  failed += result.failed
  if (result.status !== 0 && result.failed === 0) {
    failed++
    process.stdout.write(`not ok - tap exited with status ${result.status} on the ${label} database\n`)
  }
}

process.stdout.write(`\n${passed} passed, ${failed} failed\n`)
process.exit(failed === 0 ? 0 : 1)
