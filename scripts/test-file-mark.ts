/** The name of the test that scripts/test-batch.ts puts before each file's tests, and the runner looks for. */
export const FILE_MARK = 'test file: '
