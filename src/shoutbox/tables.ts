/**
 * The addon's tables and advisory locks, in one place. Migrations write the names out:
 * they describe the tables as they were made, whatever these say later.
 */
export const SHOUTS_TABLE = 'shoutbox_shouts'
/** The stream's history: one row per change that is on the stream. */
export const EVENTS_TABLE = 'shoutbox_events'
export const PINS_TABLE = 'shoutbox_pins'
/** The rooms: several conversations on one board (the shouts' `room_id`). */
export const ROOMS_TABLE = 'shoutbox_rooms'
/** How far each member has read each room. */
export const READ_MARKERS_TABLE = 'shoutbox_read_markers'
/** Members' reactions to shouts: one row per member, shout and emoji. */
export const REACTIONS_TABLE = 'shoutbox_reactions'
/** Each member's ignore list. */
export const IGNORES_TABLE = 'shoutbox_ignores'
export const MUTES_TABLE = 'shoutbox_mutes'
/** The patterns kept out of members' shouts (blocked, censored or held). */
export const WATCHED_WORDS_TABLE = 'shoutbox_watched_words'
/** Members' reports of shouts. */
export const REPORTS_TABLE = 'shoutbox_reports'
/** Each member's recent posts and edits, for flood control. */
export const FLOOD_CONTROL_TABLE = 'shoutbox_flood_control'

/*
 * The first keys of the addon's advisory locks: constants no other lock of the platform
 * uses (the host's are in src/host/database/tables.ts). The second key is the schema's,
 * so sites sharing a database wait only for their own.
 */
/** Serialises pins (a count against maxPinned, and the shout's row). */
export const PINS_LOCK = 7_310_002
/** Held by the one pruning run at a time. */
export const RETENTION_LOCK = 7_310_003

/** Each member's uploads a day (shouts' pictures: at most 20 a day). */
export const UPLOAD_DAYS_TABLE = 'shoutbox_upload_days'
