import type { MappedTable } from '../../sdk/index.js'

/**
 * The guests' tables in the data map. A guest has no account: what identifies one is the
 * HMAC of their address (`address_key`), which no member's export reaches and erasure by
 * address removes. Their shouts are the board's (`shoutbox_shouts`: `guest_address`).
 */
export const GUESTS_DATA_MAP: readonly MappedTable[] = [
  {
    table: 'shoutbox_guest_proofs',
    personal: {
      address_key: { holds: 'address', export: 'left out (a guest has no account)', erase: 'erasure by address deletes them; each goes an hour after its challenge expired' }
    },
    other: ['signature', 'expires_at', 'room_id', 'used_at']
  },
  {
    table: 'shoutbox_guest_mutes',
    personal: {
      address_key: { holds: 'address', export: 'left out (a guest has no account)', erase: 'kept until the mute ends (a day at most): a muted guest cannot lift it by erasure' },
      reason: { holds: 'text', export: 'left out (a moderator\'s note about an address)', erase: 'goes with the mute when it ends' }
    },
    other: ['id', 'until', 'shout_id', 'by_id', 'created_at']
  },
  {
    table: 'shoutbox_guest_secret',
    personal: {
      secret: { holds: 'secret', export: 'left out (the key guests\' challenges are signed with: nobody\'s)', erase: 'kept: nobody\'s' }
    },
    other: ['id']
  }
]
