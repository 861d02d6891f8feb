import { Api, NoPermission, NotFound, Successful, TooManyRequests, Type, Viewer, okAnswer, type PublicCall } from '../../../sdk/index.js'
import { InvalidProof, MessageTooLong, Muted, NameTaken, RoomArchived, WatchedWord } from '../../errors.js'
import { Rooms } from '../../rooms.js'
import { FullShoutSchema, RoomSlugSchema, ROOM_SHOUT_EXAMPLE } from '../../schemas.js'
import { ShoutboxSettings } from '../../settings.js'
import { eraseGuestShouts } from '../guest-erasure.js'
import { postAsGuest } from '../guest-posting.js'
import { GUEST_NAME_MAX, GUEST_NAME_MIN } from '../guest-name.js'
import { GuestProofs, MAX_PROOF_LENGTH, PROOF_VALID_MS } from '../proof.js'

const ChallengeSchema = Type.Object({
  algorithm: Type.String({ description: 'ALTCHA\'s hash: `SHA-256`' }),
  challenge: Type.String({ description: 'the hash of the salt and the secret number' }),
  maxnumber: Type.Integer({ description: 'the numbers to try run from 0 to this (`guestProofCost`)' }),
  salt: Type.String({ description: 'random, with the challenge\'s expiry (`?expires=` seconds)' }),
  signature: Type.String({ description: 'the server\'s HMAC of the challenge' })
}, { additionalProperties: false })

/**
 * GET /api/shoutbox/guest-challenge — public: a proof-of-work challenge (ALTCHA) for one
 * guest's post, valid for ten minutes, costing up to `guestProofCost` hashes to solve
 * (half of them on average). The widget solves it in a Web Worker; nothing is sent to
 * anyone else, and there is no puzzle to look at.
 */
export class GuestChallenge extends Api {
  readonly method = 'GET'
  readonly path = '/api/shoutbox/guest-challenge'
  readonly schema = {}
  override readonly answers = {
    ok: okAnswer({ challenge: ChallengeSchema, expiresIn: Type.Integer({ description: 'milliseconds it stays valid' }) }, {
      challenge: { algorithm: 'SHA-256', challenge: '4d5c…', maxnumber: 20000, salt: '1f0a…?expires=1795000600', signature: '9b1e…' }, expiresIn: PROOF_VALID_MS
    })
  }

  async handle ({ ctx }: PublicCall): Promise<Successful> {
    const { guestProofCost } = await ShoutboxSettings.of(ctx).current()
    return new Successful({ challenge: await GuestProofs.of(ctx).challenge(guestProofCost), expiresIn: PROOF_VALID_MS })
  }
}

const GuestPostSchema = {
  params: Type.Object({ slug: RoomSlugSchema }),
  body: Type.Object({
    message: Type.String(),
    name: Type.String({ maxLength: 200, description: `${GUEST_NAME_MIN}–${GUEST_NAME_MAX} characters once trimmed; not one that passes for a member's username` }),
    proof: Type.String({ maxLength: MAX_PROOF_LENGTH, description: 'the solved challenge: ALTCHA\'s payload (base64 JSON of algorithm, challenge, number, salt, signature)' })
  })
}

/**
 * POST /api/shoutbox/rooms/:slug/guest-shouts {message, name, proof} — someone without an
 * account talks in a room that lets guests post (`guestsPost`, where everyone reads): 404
 * for a room a visitor may not read, as for none; 403 NO_PERMISSION where guests may not
 * post, and for a signed-in caller (members post as themselves). The name is refused when
 * it passes for a member's (400 NAME_TAKEN); the proof when it is forged, expired or used
 * (400 INVALID_PROOF). Flood limits count per address (its HMAC of the day), and per room
 * for all guests; a muted address → 403 MUTED. With `holdGuestShouts` (the default) the
 * shout waits for review (`held: true`). A guest's shout carries `guest: true`; guests
 * cannot edit, react, report, and their mentions notify no one.
 */
export class PostAsGuest extends Api<typeof GuestPostSchema> {
  readonly method = 'POST'
  readonly path = '/api/shoutbox/rooms/:slug/guest-shouts'
  readonly schema = GuestPostSchema
  override readonly readsSession = true
  override readonly answers = {
    ok: okAnswer({ shout: FullShoutSchema }, { shout: { ...ROOM_SHOUT_EXAMPLE, username: 'Visitor', guest: true, reactions: [], held: true } }, 'The shout as stored (held: waiting for review)'),
    errors: [NotFound, NoPermission, RoomArchived, Muted, MessageTooLong, NameTaken, WatchedWord, InvalidProof, TooManyRequests]
  }

  async handle ({ ctx, params, body, viewer, ip }: PublicCall<typeof GuestPostSchema>): Promise<Successful> {
    const room = await Rooms.of(ctx).readableBySlug(params.slug, Viewer.visitor)
    if (viewer.signedIn) throw new NoPermission()
    return new Successful({ shout: await postAsGuest(ctx, room, { name: body.name, message: body.message, proof: body.proof, ip }) })
  }
}

/**
 * DELETE /api/shoutbox/guest-shouts — a guest erases what they wrote: every guest's shout
 * sent from the caller's address (compared as its HMAC of today and yesterday: after that
 * nothing ties a shout to an address any more), on the board or waiting for review, and
 * the proofs used from it. Answers how many shouts went.
 */
export class EraseGuestShouts extends Api {
  readonly method = 'DELETE'
  readonly path = '/api/shoutbox/guest-shouts'
  readonly schema = {}
  override readonly answers = { ok: okAnswer({ erased: Type.Integer({ minimum: 0 }) }, { erased: 2 }, 'How many shouts went') }

  async handle ({ ctx, ip }: PublicCall): Promise<Successful> {
    return new Successful({ erased: await eraseGuestShouts(ctx, ip) })
  }
}
