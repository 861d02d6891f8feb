import { randomBytes } from 'node:crypto'
import { createChallenge, extractParams, verifySolution } from 'altcha-lib/v1'
import type { AddonContext, Database, Transaction } from '../../sdk/index.js'
import { perContext } from '../per-context.js'
import { GUEST_PROOFS_TABLE, GUEST_SECRET_TABLE } from '../tables.js'

/*
 * A guest's proof of work (ALTCHA, `altcha-lib`): the server hands out a challenge — a
 * SHA-256 of a random salt and a secret number below `guestProofCost`, signed with a key
 * only the server holds — and the guest's page finds the number by trying them (in a Web
 * Worker: nothing to look at, nothing sent to anyone else). Checking it costs one hash.
 * A challenge is good for PROOF_VALID_MS (its expiry is inside the signed salt) and
 * for one post: a used one is remembered in the database until it expires, so no process
 * takes it twice.
 */

/** How long a challenge may be solved and used. */
export const PROOF_VALID_MS = 10 * 60_000
/** The longest proof a body may carry (ALTCHA's base64 JSON is about 300 characters). */
export const MAX_PROOF_LENGTH = 2000

/** A challenge as the widget's solver takes it (ALTCHA's own fields). */
export interface GuestChallenge {
  readonly algorithm: string
  readonly challenge: string
  readonly maxnumber: number
  readonly salt: string
  readonly signature: string
}

/** What a proof proved: the signature that names its challenge (once used, never again), and when it expires. */
export interface CheckedProof {
  readonly signature: string
  readonly expiresAt: number
}

/** The proofs used, and the key challenges are signed with. */
export function proofsRepository (db: Database) {
  return {
    /**
     * Records `proof` as used, from `addressKey` in `roomId`; false when it was used already
     * (in this transaction's view: the primary key decides between two at once).
     */
    async use (proof: CheckedProof, addressKey: string, roomId: number, trx: Transaction): Promise<boolean> {
      const rows = await trx.raw<{ rows: unknown[] }>('insert into ?? (signature, expires_at, address_key, room_id, used_at) values (?, ?, ?, ?, ?) on conflict (signature) do nothing returning 1',
        [GUEST_PROOFS_TABLE, proof.signature, proof.expiresAt, addressKey, roomId, Date.now()])
      return rows.rows.length > 0
    },

    /** Forgets the proofs whose challenges have expired (they cannot be used again anyway). */
    async prune (now: number): Promise<number> {
      return await db(GUEST_PROOFS_TABLE).where('expires_at', '<', now).delete()
    },

    /** The key, made once for every process (the first to ask makes it). */
    async secret (): Promise<string> {
      await db(GUEST_SECRET_TABLE).insert({ id: 1, secret: randomBytes(32).toString('base64url') }).onConflict('id').ignore()
      const row = await db(GUEST_SECRET_TABLE).where({ id: 1 }).first<{ secret: string }>('secret')
      return row!.secret
    }
  }
}

/** Makes and checks challenges with the board's key (read once per process). */
export class GuestProofs {
  static readonly of = perContext(ctx => new GuestProofs(ctx))

  private key: Promise<string> | undefined

  private constructor (private readonly ctx: AddonContext) {}

  private secret (): Promise<string> {
    this.key ??= proofsRepository(this.ctx.db).secret().catch(error => {
      this.key = undefined
      throw error
    })
    return this.key
  }

  /** A new challenge costing up to `cost` hashes, valid PROOF_VALID_MS from now. */
  async challenge (cost: number): Promise<GuestChallenge> {
    const made = await createChallenge({ hmacKey: await this.secret(), maxNumber: cost, expires: new Date(Date.now() + PROOF_VALID_MS) })
    return { algorithm: made.algorithm, challenge: made.challenge, maxnumber: made.maxnumber ?? cost, salt: made.salt, signature: made.signature }
  }

  /**
   * What `proof` (ALTCHA's payload: base64 JSON) proves, when it solves a challenge this
   * board made that has not expired; undefined for anything else — forged, tampered,
   * expired, or not a payload at all. Whether it was used already is the caller's to ask
   * (`proofsRepository.use`), in the transaction that uses it.
   */
  async check (proof: string): Promise<CheckedProof | undefined> {
    if (proof.length > MAX_PROOF_LENGTH) return undefined
    let payload: unknown
    try {
      payload = JSON.parse(Buffer.from(proof, 'base64').toString('utf8'))
    } catch {
      return undefined
    }
    if (!isPayload(payload)) return undefined
    const expires = Number(extractParams(payload).expires)
    // Every challenge this board makes carries its expiry; one without is not ours.
    if (!Number.isSafeInteger(expires) || expires * 1000 > Date.now() + PROOF_VALID_MS + 60_000) return undefined
    try {
      if (!await verifySolution(payload, await this.secret(), true)) return undefined
    } catch {
      return undefined
    }
    return { signature: payload.signature, expiresAt: expires * 1000 }
  }
}

interface Payload { algorithm: 'SHA-256', challenge: string, number: number, salt: string, signature: string }

function isPayload (value: unknown): value is Payload {
  if (typeof value !== 'object' || value === null) return false
  const { algorithm, challenge, number, salt, signature } = value as Record<string, unknown>
  return algorithm === 'SHA-256' && typeof challenge === 'string' && /^[0-9a-f]{64}$/.test(challenge) &&
    typeof number === 'number' && Number.isSafeInteger(number) && number >= 0 &&
    typeof salt === 'string' && salt.length <= 200 && typeof signature === 'string' && /^[0-9a-f]{64}$/.test(signature)
}
