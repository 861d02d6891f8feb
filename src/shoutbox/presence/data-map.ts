import type { MappedTable } from '../../sdk/index.js'

/**
 * Presence's tables in the data map: who has a room open now (names, rewritten every few
 * seconds by each process) and who asked not to be shown.
 */
export const PRESENCE_DATA_MAP: readonly MappedTable[] = [
  {
    table: 'shoutbox_presence',
    personal: {
      members: { holds: 'name', export: 'left out (who has a room open now, rewritten every few seconds)', erase: 'gone within seconds: their streams end, and the next beat writes the room without them' }
    },
    other: ['process', 'room_id', 'guests', 'seen_at']
  },
  {
    table: 'shoutbox_presence_hidden',
    person: 'user_id',
    erase: 'rows',
    personal: {},
    other: ['user_id', 'created_at']
  }
]
