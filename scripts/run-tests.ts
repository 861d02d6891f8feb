/**
 * `npm test`: the checks (type-check, lint and build, side by side), then the test files
 * on the embedded database and — when TEST_DATABASE_URL is set — once more on that
 * PostgreSQL, for the files that use a database (the others ran already). The long files
 * run in processes of their own, the short ones several to a process
 * (scripts/test-batch.ts); one process a core, the longest first. It prints the time of
 * each phase, the ten slowest files and, last, one line: `N passed, N failed`.
 *
 *   npm test -- test/shoutbox/pins.test.ts   the checks, then that file (or folder) on each database
 *   npm run test:timing                      the same, listing every file's time, slowest first
 *
 * Every file's time is also written to `.tap/test-times.tsv` (phase, file, seconds).
 * `SHOUTBOX_TEST_DATABASES=embedded` runs the embedded database only, and
 * `SHOUTBOX_TEST_CHECKS=build` leaves out the type-check and the lint (CI's other Node
 * versions: the first one ran those).
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ensureImage } from '../test/helpers/pglite-image.js'
import { FILE_MARK } from './test-file-mark.js'

const root = fileURLToPath(new URL('../', import.meta.url))
const bin = (name: string): string => path.join(root, 'node_modules/.bin', name)
const listEveryFile = process.argv.includes('--timing')
/** Test processes at a time: one a core; SHOUTBOX_TEST_JOBS sets another number. */
const JOBS = Number(process.env.SHOUTBOX_TEST_JOBS ?? os.availableParallelism())
const fileArgs = process.argv.slice(2).filter(arg => arg !== '--timing')

/**
 * The node flags of a test process: package.json's `tap.node-arg` (tsx), as `tap` gives
 * them. Node 24's V8 can abort a process that makes and drops many embedded databases
 * (nodejs/node#64500: "Check failed: jit_page_->allocations_.erase(addr) == 1", as V8
 * frees a compiled wasm-to-JS wrapper). So on Node 24 the test processes never compile,
 * nor free, single pieces of WebAssembly code: baseline code only (--liftoff-only, which
 * `npm start` passes too) and the generic import wrappers only (a tier-up budget never
 * spent). Node 20's V8 has no wrapper tier-up and takes no such flag.
 */
function testNodeArgs (): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { tap: { 'node-arg': string[], timeout: number } }
  const node24 = Number(process.versions.node.split('.')[0]) > 20 ? ['--liftoff-only', '--wasm-wrapper-tiering-budget=2147483647'] : []
  return ['--enable-source-maps', ...pkg.tap['node-arg'], ...node24]
}

/** Seconds a file may run (package.json's `tap.timeout`, as `tap` reads it). */
const FILE_TIMEOUT = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { tap: { timeout: number } }).tap.timeout

let passed = 0
let failed = 0
const phases: Array<{ label: string, seconds: number }> = []
const fileTimes: Array<{ phase: string, file: string, seconds: number }> = []

const seconds = (since: number): number => (Date.now() - since) / 1000
const clock = (s: number): string => s >= 60 ? `${Math.floor(s / 60)} min ${Math.round(s % 60)} s` : `${s.toFixed(1)} s`

/** Runs a command with its output kept until it ends (checks run side by side); one test point. */
function check (label: string, command: string, args: string[]): Promise<void> {
  return new Promise(resolve => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
    child.on('close', status => {
      if (output !== '') process.stdout.write(`\n== ${label}\n${output}`)
      if (status === 0) passed++
      else failed++
      process.stdout.write(`${status === 0 ? 'ok' : 'not ok'} - ${label}\n`)
      resolve()
    })
  })
}

/**
 * The test files whose imports reach test/helpers/database.ts: they build an app, start a
 * server or ask which database runs, so they run on each database. The others run once.
 */
function filesUsingADatabase (files: readonly string[]): string[] {
  const database = path.join(root, 'test/helpers/database.ts')
  const known = new Map<string, boolean>()
  const reaches = (file: string, seen: Set<string>): boolean => {
    if (file === database) return true
    const cached = known.get(file)
    if (cached !== undefined) return cached
    if (seen.has(file) || !file.startsWith(path.join(root, 'test'))) return false
    seen.add(file)
    const source = fs.readFileSync(file, 'utf8')
    const imported = [...source.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)]
      .map(match => path.resolve(path.dirname(file), match[1]!).replace(/\.js$/, '.ts'))
      .filter(candidate => fs.existsSync(candidate))
    const result = imported.some(next => reaches(next, seen))
    known.set(file, result)
    return result
  }
  return files.filter(file => reaches(path.resolve(root, file), new Set()))
}

/** Every test file tap would run: package.json's `tap.include` is test/**\/*.test.ts. */
function allTestFiles (): string[] {
  return (fs.readdirSync(path.join(root, 'test'), { recursive: true }) as string[])
    .filter(file => file.endsWith('.test.ts'))
    .map(file => path.join('test', file))
    .sort()
}

interface FileResult { file: string, passed: number, failed: number, skipped: number, seconds: number, report: string }

/**
 * Runs test files in one process, one after the other (scripts/test-batch.ts), and counts
 * each file's leaf test points (parents of subtests are not counted twice). A file's report
 * is its line, and the lines of each failure.
 */
function runBatch (files: readonly string[], env: NodeJS.ProcessEnv): Promise<FileResult[]> {
  return new Promise(resolve => {
    const child = spawn(process.execPath, [...testNodeArgs(), path.join(root, 'scripts/test-batch.ts'), ...files], {
      cwd: root, env: { ...process.env, ...env, TAP_TIMEOUT: String(FILE_TIMEOUT * files.length) }, stdio: ['ignore', 'pipe', 'pipe']
    })
    // tap's limit (which a file may raise for itself) ends the tests; this ends a process
    // that does not stop after it.
    const killer = setTimeout(() => child.kill('SIGKILL'), (FILE_TIMEOUT * files.length + 900) * 1000)
    const results: Array<FileResult & { failures: string[], started: number }> = []
    let current: (typeof results)[number] | undefined
    let planned = false
    const subtestIndents: number[] = []
    let buffer = ''
    let stderr = ''
    let inFailure = false
    const onLine = (line: string): void => {
      if (/^1\.\.\d+/.test(line)) planned = true
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
        const name = point[4] ?? ''
        if (indent === 0 && name.startsWith(FILE_MARK)) {
          // The next file begins: the one before it has ended.
          if (current !== undefined) current.seconds = (Date.now() - current.started) / 1000
          current = { file: name.slice(FILE_MARK.length).replace(/ # time=.*$/, ''), passed: 0, failed: 0, skipped: 0, seconds: 0, report: '', failures: [], started: Date.now() }
          results.push(current)
          return
        }
        if (current === undefined) return
        const ok = point[2] === 'ok'
        if (!ok) current.failures.push(line)
        inFailure = !ok && !isParent
        if (isParent) return
        if (/# SKIP/.test(line)) current.skipped++
        else if (ok || /# TODO/.test(line)) current.passed++
        else current.failed++
        return
      }
      if (inFailure) current?.failures.push(line)
      if (/^\s*\.\.\.$/.test(line)) inFailure = false
    }
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8')
      const lines = buffer.split('\n')
      buffer = lines.pop() ?? ''
      lines.forEach(onLine)
    })
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8') })
    child.on('close', (status, signal) => {
      clearTimeout(killer)
      if (buffer !== '') onLine(buffer)
      if (current !== undefined) current.seconds = (Date.now() - current.started) / 1000
      // A file the batch never reached, and a batch that ends badly without a failing
      // point (a crash, a hang), are failures: of each file not reached, or of the last.
      for (const file of files.filter(file => !results.some(result => result.file === file))) {
        results.push({ file, passed: 0, failed: 1, skipped: 0, seconds: 0, report: '', failures: ['not ok - never ran: the batch ended before it'], started: Date.now() })
      }
      if ((status !== 0 || !planned) && results.every(result => result.failed === 0)) {
        const last = results.at(-1)!
        last.failed++
        last.failures.push(`not ok - the process ended with ${signal ?? `exit code ${status}`}${planned ? '' : ', before its plan'}`)
      }
      resolve(results.map(({ failures, started: _started, ...result }) => {
        const ok = result.failed === 0
        const report = [`${ok ? 'ok' : 'not ok'} - ${result.file} # ${result.seconds.toFixed(1)} s, ${result.passed} passed${result.skipped > 0 ? `, ${result.skipped} skipped` : ''}${ok ? '' : `, ${result.failed} failed`}`,
          ...failures.map(line => `    ${line}`),
          ...(ok || stderr === '' ? [] : ['  # the stderr of its process:', ...stderr.trimEnd().split('\n').map(line => `  # ${line}`)])]
        return { ...result, report: report.join('\n') }
      }))
    })
  })
}

/** Last run's seconds per file (.tap/test-times.tsv), to start the longest files first. */
function lastTimes (): Map<string, number> {
  const times = new Map<string, number>()
  try {
    for (const line of fs.readFileSync(path.join(root, '.tap/test-times.tsv'), 'utf8').split('\n').slice(1)) {
      const [, file, seconds] = line.split('\t')
      if (file !== undefined && seconds !== undefined) times.set(file, Math.max(times.get(file) ?? 0, Number(seconds)))
    }
  } catch {
    // no earlier run on this checkout
  }
  return times
}

/**
 * Without an earlier run: a guess from the file itself. Browsers and server processes
 * cost seconds each; otherwise a longer file runs longer.
 */
function guessSeconds (file: string): number {
  const source = fs.readFileSync(path.join(root, file), 'utf8')
  const starts = (source.match(/startServer\(|launchBrowser\(|generate_series\(1, 1000000\)/g) ?? []).length
  return source.length / 2000 + 5 * starts + (source.includes('launchBrowser(') ? 60 : 0)
}

/** A file that takes this long (last time, or by the guess) runs in a process of its own. */
const ALONE_SECONDS = 10
/** How many seconds of files one process runs, at most, when they are shorter. */
const BATCH_SECONDS = 30

/**
 * Runs `files`, `jobs` processes at a time: the long files each in its own process, the
 * short ones several to a process (scripts/test-batch.ts), the longest first so that no
 * long one starts last while the other cores are idle. Prints each file's line as its
 * process ends.
 */
async function runFiles (label: string, env: NodeJS.ProcessEnv, files: readonly string[], jobs: number): Promise<{ passed: number, failed: number }> {
  const known = lastTimes()
  // Each file's estimate once: a guess reads the file.
  const estimates = new Map(files.map(file => [file, known.get(file) ?? guessSeconds(file)]))
  const estimate = (file: string): number => estimates.get(file)!
  const batches: Array<{ files: string[], seconds: number }> = []
  for (const file of [...files].sort((a, b) => estimate(b) - estimate(a))) {
    const seconds = estimate(file)
    const open = seconds < ALONE_SECONDS ? batches.find(batch => batch.seconds + seconds <= BATCH_SECONDS && batch.seconds < ALONE_SECONDS * 10) : undefined
    if (open === undefined) batches.push({ files: [file], seconds })
    else {
      open.files.push(file)
      open.seconds += seconds
    }
  }
  const queue = batches.sort((a, b) => b.seconds - a.seconds).map(batch => batch.files)
  process.stdout.write(`\n== tests on the ${label} database (${files.length} files in ${queue.length} processes, ${jobs} at a time)\n`)
  const totals = { passed: 0, failed: 0 }
  const worker = async (): Promise<void> => {
    for (let batch = queue.shift(); batch !== undefined; batch = queue.shift()) {
      for (const result of await runBatch(batch, env)) {
        totals.passed += result.passed
        totals.failed += result.failed
        fileTimes.push({ phase: label, file: result.file, seconds: result.seconds })
        process.stdout.write(`${result.report}\n`)
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(jobs, queue.length) }, worker))
  return totals
}

async function phase (label: string, run: () => Promise<void>): Promise<void> {
  const started = Date.now()
  await run()
  phases.push({ label, seconds: seconds(started) })
}

const started = Date.now()
process.stdout.write(`# Node ${process.version}\n`)

// dist/, as `npm run build` makes it (the compiled host the tests start as `npm start`
// does, and the browser code the pages use), beside the embedded database's image; the
// type-check and the lint beside them (one core's work each). Not beside the tests: the
// longest test files start first, and slowing them makes the whole run longer.
const buildOnly = process.env.SHOUTBOX_TEST_CHECKS === 'build'
await phase(buildOnly ? 'build' : 'checks (type-check, lint, build)', async () => {
  await Promise.all([
    ...(buildOnly
      ? []
      : [check('type-check (tsc)', process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']),
          check('lint (eslint)', bin('eslint'), ['.'])]),
    check('build (npm run build)', process.execPath, ['--import', 'tsx', path.join(root, 'scripts/build.ts')]),
    ensureImage()
  ])
})

// Files as given, or the test files under a folder given.
const files = fileArgs.length === 0
  ? allTestFiles()
  : fileArgs.flatMap(arg => fs.statSync(arg).isDirectory() ? allTestFiles().filter(file => file.startsWith(path.join(path.relative(root, path.resolve(arg)), '/'))) : [path.relative(root, path.resolve(arg))])
const runs: Array<[string, NodeJS.ProcessEnv, string[]]> = [['embedded', { SHOUTBOX_TEST_DB: 'embedded' }, files]]
if (process.env.SHOUTBOX_TEST_DATABASES === 'embedded') {
  process.stdout.write('\n# SHOUTBOX_TEST_DATABASES=embedded: the PostgreSQL run is skipped\n')
} else if (process.env.TEST_DATABASE_URL !== undefined && process.env.TEST_DATABASE_URL !== '') {
  // The browser's pages (test/ui/) run once, on the embedded database: they read the board
  // through the same endpoints every other file tests on both databases, and a second run
  // of Chromium on PostgreSQL (four minutes of CI's fifteen) found nothing the first did not.
  const usingOne = filesUsingADatabase(files)
  const again = usingOne.filter(file => !file.startsWith(`test${path.sep}ui${path.sep}`))
  process.stdout.write(`\n# ${files.length - usingOne.length} of ${files.length} files use no database, and ${usingOne.length - again.length} are the browser's pages: they run on the embedded run only\n`)
  if (again.length > 0) runs.push(['PostgreSQL', { SHOUTBOX_TEST_DB: 'postgres' }, again])
} else if (process.env.CI === 'true') {
  process.stdout.write('\nnot ok - CI requires the PostgreSQL run: set TEST_DATABASE_URL\n')
  failed++
} else {
  process.stdout.write('\n# TEST_DATABASE_URL is not set: the PostgreSQL run is skipped\n')
}
for (const [label, env, runList] of runs) {
  await phase(`tests on the ${label} database`, async () => {
    const result = await runFiles(label, env, runList, JOBS)
    passed += result.passed
    failed += result.failed
  })
}

// This run's times replace the earlier ones of the same files; the others are kept.
const timesFile = path.join(root, '.tap/test-times.tsv')
const kept = fs.existsSync(timesFile) ? fs.readFileSync(timesFile, 'utf8').split('\n').slice(1).filter(line => line !== '') : []
const ran = new Set(fileTimes.map(({ phase, file }) => `${phase}\t${file}`))
fs.mkdirSync(path.dirname(timesFile), { recursive: true })
fs.writeFileSync(timesFile, ['phase\tfile\tseconds',
  ...kept.filter(line => !ran.has(line.split('\t').slice(0, 2).join('\t'))),
  ...fileTimes.map(({ phase, file, seconds }) => `${phase}\t${file}\t${seconds.toFixed(2)}`)].join('\n') + '\n')
const slowest = [...fileTimes].sort((a, b) => b.seconds - a.seconds).slice(0, listEveryFile ? undefined : 10)
process.stdout.write(`\n# time of each phase\n${phases.map(p => `#   ${clock(p.seconds).padStart(12)}  ${p.label}`).join('\n')}\n#   ${clock(seconds(started)).padStart(12)}  in all\n`)
process.stdout.write(`\n# ${listEveryFile ? 'every file' : 'the ten slowest files'} (.tap/test-times.tsv has them all)\n`)
process.stdout.write(slowest.map(f => `#   ${clock(f.seconds).padStart(12)}  ${f.file} (${f.phase})`).join('\n') + '\n')
process.stdout.write(`\n${passed} passed, ${failed} failed\n`)
process.exit(failed === 0 ? 0 : 1)
