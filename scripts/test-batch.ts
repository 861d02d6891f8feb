/**
 * Runs several test files in one process, one after the other, for `npm test`
 * (scripts/run-tests.ts): node, tsx, tap, the compiled modules and the embedded databases
 * of test/helpers/database.ts are then paid for once a batch, not once a file.
 *
 * A tap file registers its tests on tap's root test as it is imported, and the root runs
 * them in that order; so before each file comes a test named `FILE_MARK` + the file,
 * which tells the runner where the file's test points begin.
 *
 *   node --import=tsx scripts/test-batch.ts test/a.test.ts test/b.test.ts
 */
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { FILE_MARK } from './test-file-mark.js'

for (const file of process.argv.slice(2)) {
  t.test(`${FILE_MARK}${file}`, async () => {})
  try {
    await import(pathToFileURL(path.resolve(file)).href)
  } catch (error) {
    t.fail(`${file} could not be loaded`, { error })
  }
}
