import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'

/** `npm audit --omit=dev`: no high or critical advisory in what production installs. */
const result = await promisify(execFile)('npm', ['audit', '--omit=dev', '--json'], { cwd: new URL('../../', import.meta.url) })
  .then(r => r.stdout, (error: { stdout?: string }) => error.stdout ?? '')
let report: { metadata?: { vulnerabilities?: Record<string, number> }, message?: string } = {}
try {
  report = JSON.parse(result) as typeof report
} catch {
  // no JSON: treated as unavailable below
}
const counts = report.metadata?.vulnerabilities

t.test('no high or critical advisory in the production dependencies', {
  skip: counts === undefined && `the registry's audit endpoint did not answer (${report.message ?? 'no report'})`
}, async t => {
  t.same({ high: counts!.high, critical: counts!.critical }, { high: 0, critical: 0 }, JSON.stringify(counts))
})
