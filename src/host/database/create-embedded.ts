/**
 * Runs as a child process (see connect.ts): creates the embedded database's files in
 * the directory given as its argument, then exits, giving back the memory initdb took.
 */
import { PGlite } from '@electric-sql/pglite'

const dir = process.argv[2]
if (dir === undefined) throw new Error('usage: create-embedded <data directory>')
const pglite = await PGlite.create(dir)
await pglite.close()
