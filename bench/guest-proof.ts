/**
 * `node --import tsx bench/guest-proof.ts [--tries 20] [--costs 10000,20000,50000]`: what a
 * guest's proof of work (ALTCHA, `altcha-lib`) costs on this machine's core — the guest's
 * side (solving, with WebCrypto's SHA-256 as a browser's worker does) for each
 * `guestProofCost`, and the server's (making a challenge, checking a solution). The
 * browser story (test/ui/stories/guests.ts) prints Chromium's own figure for the default.
 * The target: about half a second on a phone, which hashes a few times slower than a desktop core.
 */
import { parseArgs } from 'node:util'
import { createChallenge, solveChallenge, verifySolution } from 'altcha-lib/v1'
import { percentile } from './stats.js'

const { values } = parseArgs({ options: { tries: { type: 'string', default: '20' }, costs: { type: 'string', default: '10000,20000,50000' } } })
const tries = Number(values.tries)
const hmacKey = 'bench-key'

for (const cost of values.costs.split(',').map(Number)) {
  const solving: number[] = []
  const making: number[] = []
  const checking: number[] = []
  for (let i = 0; i < tries; i++) {
    let started = performance.now()
    const challenge = await createChallenge({ hmacKey, maxNumber: cost, expires: new Date(Date.now() + 600_000) })
    making.push(performance.now() - started)
    started = performance.now()
    const solution = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, cost).promise
    solving.push(performance.now() - started)
    const payload = Buffer.from(JSON.stringify({ ...challenge, number: solution!.number })).toString('base64')
    started = performance.now()
    if (!await verifySolution(payload, hmacKey, true)) throw new Error('a solution did not verify')
    checking.push(performance.now() - started)
  }
  const mean = (list: number[]): number => list.reduce((a, b) => a + b, 0) / list.length
  process.stdout.write(`guestProofCost ${cost}: solving mean ${mean(solving).toFixed(0)} ms, p50 ${percentile(solving, 50).toFixed(0)} ms, p90 ${percentile(solving, 90).toFixed(0)} ms, max ${Math.max(...solving).toFixed(0)} ms; ` +
    `the server: a challenge ${mean(making).toFixed(2)} ms, a check ${mean(checking).toFixed(2)} ms (${tries} tries)\n`)
}
