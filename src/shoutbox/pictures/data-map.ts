import type { MappedTable } from '../../sdk/index.js'

/**
 * The pictures' tables of the board in the data map: a member's uploads a day (for the
 * quota). The pictures themselves are the host's (`uploads`); a shout's pictures, with
 * their alt text, are in `shoutbox_shouts.uploads`.
 */
export const PICTURES_DATA_MAP: readonly MappedTable[] = [
  {
    table: 'shoutbox_upload_days',
    person: 'user_id',
    erase: 'rows',
    personal: {},
    other: ['user_id', 'day', 'count']
  }
]
