import type { MappedTable } from '../../sdk/index.js'

/**
 * The bridges' tables in the data map. A hook's name is staff's label for a tool, not a
 * person's; its secret is kept only as a hash. What comes in through a hook is stored as
 * shouts (`shoutbox_shouts`: `message` is text, `username` the name the sending tool gave,
 * `via` the hook's name) with no author account: no member's export or erasure reaches
 * them; staff delete them as any shout.
 */
export const BRIDGES_DATA_MAP: readonly MappedTable[] = [
  {
    table: 'shoutbox_incoming_hooks',
    personal: {
      secret_hash: { holds: 'secret', export: 'left out (the SHA-256 of the secret in the hook\'s URL)', erase: 'kept: it is no person\'s' }
    },
    other: ['id', 'room_id', 'name', 'created_by', 'created_at', 'recent']
  }
]
