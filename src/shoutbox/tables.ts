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
/** Guests' proofs of work already used (each is used once), until they expire. */
export const GUEST_PROOFS_TABLE = 'shoutbox_guest_proofs'
/** Guests' addresses (their HMAC of the day) a moderator silenced. */
export const GUEST_MUTES_TABLE = 'shoutbox_guest_mutes'
/** The key guests' challenges are signed with. */
export const GUEST_SECRET_TABLE = 'shoutbox_guest_secret'
/** Who has each room open, as each process last wrote it. */
export const PRESENCE_TABLE = 'shoutbox_presence'
/** Members who turned `showPresence` off. */
export const PRESENCE_HIDDEN_TABLE = 'shoutbox_presence_hidden'

/*
 * The first keys of the addon's advisory locks: constants no other lock of the platform
 * uses (the host's are in src/host/database/tables.ts). The second key is the schema's,
 * so sites sharing a database wait only for their own.
 */
/** Serialises pins (a count against maxPinned, and the shout's row). */
export const PINS_LOCK = 7_310_002
/** Held by the one pruning run at a time. */
export const RETENTION_LOCK = 7_310_003
/** Serialises guests' posts from one address (its flood counts), and a room's guests' posts (the room's guest limit). */
export const GUEST_POST_LOCK = 7_310_004
/** Each member's choice of who may start a conversation of two with them (a row only for one who changed it). */
export const DIRECT_PREFERENCES_TABLE = 'shoutbox_direct_preferences'

/** Each member's uploads a day (shouts' pictures: at most 20 a day). */
export const UPLOAD_DAYS_TABLE = 'shoutbox_upload_days'
