import type { DataMap } from '../sdk/index.js'
import { BRIDGES_DATA_MAP } from './bridges/data-map.js'
import { DIRECT_DATA_MAP } from './direct/member-data.js'
import { GUESTS_DATA_MAP } from './guests/data-map.js'
import { PICTURES_DATA_MAP } from './pictures/data-map.js'
import { PRESENCE_DATA_MAP } from './presence/data-map.js'

/**
 * The board's tables in the data map (see `src/sdk/data-map.ts`): each copy of a person's
 * text or name, and what export (`user-data.ts`: `memberData`), erasure (`eraseMember`), an
 * edit and a delete (`shout-changes.ts`) do to it.
 */
export const SHOUTBOX_DATA_MAP: DataMap = [
  {
    table: 'shoutbox_shouts',
    person: 'author_id',
    personal: {
      message: {
        holds: 'text',
        export: 'shouts[].message (the text as it is now); a direct message also conversations[].message, in the export of both its members',
        erase: 'anonymise: kept under `deleted user`; delete: the shout goes; a direct message goes whatever the mode (one that came in through an incoming hook has no author: staff delete it)',
        edit: 'replaced; the earlier events carry the new text',
        delete: 'the row goes'
      },
      username: { holds: 'name', export: 'implied (the author); a guest\'s name is in no member\'s export', erase: 'anonymise: `deleted user`, no author; delete: the shout goes; a guest\'s goes with their shouts (erasure by address); through an incoming hook: the name the sending tool gave, no account\'s' },
      guest_address: {
        holds: 'address',
        export: 'left out (a guest has no account; export walks authors, and a guest\'s shout has none)',
        erase: 'erasure by address (DELETE /api/shoutbox/guest-shouts) deletes that address\'s guest shouts; cleared on every shout after two days'
      },
      why: { holds: 'text', export: 'left out (the moderators\' reason a shout is held or hidden)', erase: 'a held or hidden shout of theirs goes, whatever the mode' },
      uploads: {
        holds: 'text',
        export: 'shouts[].uploads (each picture\'s url and alt text); pictures[] lists every upload',
        erase: 'anonymise: taken off their shouts and the stream\'s history, the pictures deleted (the host\'s uploads rows); delete: the shout goes',
        edit: 'unchanged (an edit changes the text)',
        delete: 'the row goes; the pictures, no longer shown, are removed by the sweep within the hour after'
      }
    },
    other: ['id', 'date', 'author_id', 'moderated', 'room_id', 'reply_to_id', 'reactions_announced_at', 'reactions_pending', 'bot', 'state', 'since', 'vouched', 'approved', 'edited_at', 'via', 'guest']
  },
  {
    table: 'shoutbox_events',
    personal: {
      shout: {
        holds: 'text',
        export: 'left out (the stream\'s history, a copy of shouts)',
        erase: 'as the shouts: renamed `deleted user`, or their events go',
        edit: 'earlier events and replies\' quotes carry the new text',
        delete: 'earlier events go; replies\' quotes are blanked'
      }
    },
    other: ['id', 'kind', 'created_at']
  },
  {
    table: 'shoutbox_reports',
    person: 'user_id',
    personal: {
      note: { holds: 'text', export: 'reports[].note', erase: 'the reporter\'s note goes; the report stays in the queue' },
      address_key: { holds: 'address', export: 'left out (an HMAC of the address under a key of the day, to tell reporters apart)', erase: 'kept: no address can be read from it' }
    },
    other: ['id', 'shout_id', 'user_id', 'reason', 'created_at', 'resolved_at', 'outcome', 'weighs']
  },
  {
    table: 'shoutbox_mutes',
    person: 'user_id',
    erase: 'rows',
    personal: {
      username: { holds: 'name', export: 'mute (the member\'s own)', erase: 'the muted member\'s row goes' },
      by_username: { holds: 'name', export: 'left out (the moderator\'s)', erase: 'a moderator erased: `deleted user`' },
      reason: { holds: 'text', export: 'mute.reason', erase: 'the muted member\'s row goes' }
    },
    other: ['user_id', 'until', 'by_id', 'created_at']
  },
  {
    table: 'shoutbox_reactions',
    person: 'user_id',
    erase: 'rows',
    personal: {},
    other: ['shout_id', 'user_id', 'emoji', 'created_at']
  },
  {
    table: 'shoutbox_ignores',
    person: 'user_id',
    personal: {},
    other: ['user_id', 'ignored_id', 'created_at']
  },
  {
    table: 'shoutbox_read_markers',
    person: 'user_id',
    erase: 'rows',
    personal: {},
    other: ['user_id', 'room_id', 'last_read_id', 'updated_at']
  },
  {
    table: 'shoutbox_flood_control',
    person: 'author_id',
    erase: 'rows',
    personal: {
      last_digest: { holds: 'secret', export: 'left out (a digest of the last shout, to refuse repeats)', erase: 'the row goes' }
    },
    other: ['author_id', 'recent', 'last_posted_at', 'room_posted_at', 'reactions_recent', 'refusals_recent', 'review_deletions_recent', 'ignores_recent']
  },
  {
    table: 'shoutbox_watched_words',
    personal: {},
    other: ['id', 'pattern', 'skeleton', 'action', 'created_by', 'created_at']
  },
  {
    table: 'shoutbox_rooms',
    personal: {},
    // A conversation of two is a room of kind `direct`: its members by id (emptied as a member is erased), no name of theirs.
    other: ['id', 'slug', 'name', 'description', 'read_access', 'post_access', 'position', 'archived', 'slow_mode_seconds', 'created_at', 'guests_post', 'kind', 'member_low', 'member_high', 'started_by']
  },
  { table: 'shoutbox_pins', personal: {}, other: ['id', 'shout_id', 'pinned_at'] },
  ...BRIDGES_DATA_MAP,
  ...DIRECT_DATA_MAP,
  ...GUESTS_DATA_MAP,
  ...PRESENCE_DATA_MAP,
  ...PICTURES_DATA_MAP
]
