/*
 * A guest's proof for one post: a challenge asked of the server, solved in a Web Worker
 * (ui/guest-proof-worker.js), as ALTCHA's payload (base64 JSON). Asked for as soon as a
 * guest starts writing, so it is usually ready when they send.
 */

interface Challenge { algorithm: string, challenge: string, maxnumber: number, salt: string, signature: string }

/** The worker's script, beside the widget's own. */
const workerUrl = (base: string): URL => new URL('guest-proof-worker.js', base)

/** A solved proof, or undefined when it could not be made (no network, no worker). */
export async function guestProof (base: string): Promise<string | undefined> {
  let challenge: Challenge
  try {
    const response = await fetch('/api/shoutbox/guest-challenge', { credentials: 'same-origin' })
    if (!response.ok) return undefined
    challenge = (await response.json() as { challenge: Challenge }).challenge
  } catch {
    return undefined
  }
  const worker = new Worker(workerUrl(base), { type: 'module' })
  try {
    const solution = await new Promise<{ number: number, took: number } | null>((resolve, reject) => {
      worker.addEventListener('message', event => resolve((event as MessageEvent<{ number: number, took: number } | null>).data))
      worker.addEventListener('error', reject)
      worker.postMessage({ algorithm: challenge.algorithm, challenge: challenge.challenge, maxnumber: challenge.maxnumber, salt: challenge.salt })
    })
    if (solution === null) return undefined
    const payload = { algorithm: challenge.algorithm, challenge: challenge.challenge, number: solution.number, salt: challenge.salt, signature: challenge.signature, took: solution.took }
    return btoa(JSON.stringify(payload))
  } catch {
    return undefined
  } finally {
    worker.terminate()
  }
}

/** Proofs made ahead: one waiting while the guest writes, a new one after each use. */
export class ProofSupply {
  private next: Promise<string | undefined> | undefined

  constructor (private readonly base: string) {}

  /** Starts making one now, if none is being made (the guest began writing). */
  prepare (): void {
    this.next ??= guestProof(this.base)
  }

  /** The proof for this post; the next post gets a new one. */
  async take (): Promise<string | undefined> {
    this.prepare()
    const proof = await this.next
    this.next = undefined
    return proof
  }
}
