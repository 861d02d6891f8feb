import { IdParamsSchema, Type, type Static } from '../sdk/index.js'
import { EXCERPT_LENGTH } from './excerpt.js'

// A shout's pictures (the pictures/ folder takes them, and stores the uploads they name).
/** The most pictures one shout carries. */
export const MAX_PICTURES_PER_SHOUT = 4
/** The longest alt text (code units, as the schema counts). */
export const MAX_ALT_LENGTH = 200

/** A picture as a shout carries it: where it is served, its size, and its text for those who cannot see it. */
export const ShoutPictureSchema = Type.Object({
  url: Type.String({ description: '`/uploads/<sha256>.webp`: at most 2048 px on its long side' }),
  thumbUrl: Type.String({ description: '`/uploads/<sha256>.thumb.webp`: at most 320 px on its long side' }),
  width: Type.Integer(),
  height: Type.Integer(),
  alt: Type.String({ description: 'what the picture shows, in words' })
}, { additionalProperties: false })

export type ShoutPicture = Static<typeof ShoutPictureSchema>

export const ShoutPicturesSchema = Type.Array(ShoutPictureSchema, { maxItems: MAX_PICTURES_PER_SHOUT, description: 'its pictures, in order; absent when it has none' })

/** A picture a post attaches: one of the poster's uploads, and its alt text. */
export const AttachedPictureSchema = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'an upload of the poster (`POST /api/shoutbox/uploads`)' }),
  alt: Type.String({ maxLength: MAX_ALT_LENGTH, description: 'what the picture shows, in words (empty only for a picture that shows nothing to tell)' })
})

export const AttachedPicturesSchema = Type.Array(AttachedPictureSchema, { maxItems: MAX_PICTURES_PER_SHOUT, description: `up to ${MAX_PICTURES_PER_SHOUT} of the poster's uploads, each with its alt text` })

export type AttachedPicture = Static<typeof AttachedPictureSchema>

export const PICTURE_EXAMPLE: ShoutPicture = {
  url: '/uploads/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.webp',
  thumbUrl: '/uploads/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.thumb.webp',
  width: 2048,
  height: 1536,
  alt: 'The lighthouse at dusk'
}

/** A shout as the seed's list shows it: exactly these four fields (every other answer adds its room, what it answers and its reactions: FullShoutSchema). */
export const ShoutSchema = Type.Object({
  id: Type.Integer(),
  message: Type.String(),
  username: Type.String(),
  date: Type.Integer({ description: 'milliseconds since the Unix epoch, when stored' })
}, { additionalProperties: false })

export const SHOUT_EXAMPLE: Shout = { id: 42, message: 'Hello, board! https://example.org', username: 'ada', date: 1795000000000 }

/** A room's slug: lower-case letters, digits and dashes, 1–32, not starting with a dash. */
export const SLUG_PATTERN = '^[a-z0-9][a-z0-9-]{0,31}$'


/** What a reply quotes: the original's author and first words, or, once it is deleted, its id alone. */
export const ReplyToSchema = Type.Union([
  Type.Object({ id: Type.Integer(), username: Type.String(), excerpt: Type.String({ description: `the first ${EXCERPT_LENGTH} code points of the original's current text` }) }, { additionalProperties: false }),
  Type.Object({ id: Type.Integer(), deleted: Type.Literal(true) }, { additionalProperties: false }),
  Type.Null()
], { description: 'the shout this one answers; null when it answers none' })

export type ReplyTo = Static<typeof ReplyToSchema>

/**
 * A shout with the room it was said in (its slug) and the shout it answers: how the
 * stream carries a shout (its reactions come as their own events, `shout-reactions`).
 */
export const RoomShoutSchema = Type.Object({
  id: Type.Integer(),
  message: Type.String(),
  username: Type.String(),
  date: Type.Integer({ description: 'milliseconds since the Unix epoch, when stored' }),
  room: Type.String({ description: "the room's slug" }),
  replyTo: ReplyToSchema,
  bot: Type.Optional(Type.Literal(true, { description: 'posted by a bot account (through an API token) or through an incoming hook; absent otherwise' })),
  via: Type.Optional(Type.String({ description: 'the name of the incoming hook it came in through (a bridge); `username` is then the name the sending tool gave' })),
  guest: Type.Optional(Type.Literal(true, { description: 'posted by a guest, without an account (`username` is the name they gave); absent otherwise' })),
  uploads: Type.Optional(ShoutPicturesSchema),
  edited: Type.Optional(Type.Integer({ description: 'milliseconds since the Unix epoch, when its text was last changed (by its author or a moderator); absent if never' }))
}, { additionalProperties: false })

export type RoomShout = Static<typeof RoomShoutSchema>

/** One emoji's reactions to a shout: how many, and (for a signed-in caller) whether the caller's is one of them. */
export const ReactionSchema = Type.Object({
  emoji: Type.String(),
  count: Type.Integer({ minimum: 1 }),
  mine: Type.Optional(Type.Boolean({ description: 'only for a signed-in caller' }))
}, { additionalProperties: false })

export type Reaction = Static<typeof ReactionSchema>

/**
 * A shout as every answer but the seed's list (`/api/shoutbox/list`, which keeps its four
 * fields) shows it: its room, the shout it answers, and its reactions (nonzero only, in
 * the order of the site's set).
 */
export const FullShoutSchema = Type.Object({
  ...RoomShoutSchema.properties,
  reactions: Type.Array(ReactionSchema, { description: "nonzero only, in the order of the `reactions` setting; `mine` only for a signed-in caller" }),
  held: Type.Optional(Type.Literal(true, { description: 'waiting for review (a watched word, or a new member\'s first shouts): shown to its author alone until a moderator approves it' }))
}, { additionalProperties: false })

export type FullShout = Static<typeof FullShoutSchema>

export const ROOM_SHOUT_EXAMPLE: FullShout = { ...SHOUT_EXAMPLE, room: 'general', replyTo: null, reactions: [{ emoji: '👍', count: 2, mine: true }] }

/** Shouts in the list's order, newest first (the archive's pages, the latest). */
export const NewestShoutsSchema = Type.Array(FullShoutSchema, { description: 'newest first' })
/** Where the archive goes on: the `before` of the next older page, or null when there is none. */
export const NextPageSchema = Type.Union([Type.Integer(), Type.Null()], { description: 'the archive\'s `before` for the older shouts; null when there are none' })

export type Shout = Static<typeof ShoutSchema>

/** A shout's id as a body names it. */
export const ShoutIdSchema = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })

/** A member's post: the text, and the shout it answers (in the same room). */
export const PostBodySchema = Type.Object({
  message: Type.String(),
  replyTo: Type.Optional(Type.Union([ShoutIdSchema, Type.Null()], { description: 'the id of a shout in the same room that this one answers' }))
})

/** A member's post: as staff's, and up to 4 pictures they uploaded, each with its alt text. */
export const MemberPostBodySchema = Type.Object({
  ...PostBodySchema.properties,
  uploads: Type.Optional(AttachedPicturesSchema)
})

export const PublishShoutSchema = {
  body: PostBodySchema
}

const MaxShoutsSchema = Type.Union([Type.Integer({ minimum: 0, maximum: 2_147_483_647 }), Type.Null()])
const MaxMessageLengthSchema = Type.Integer({ minimum: 1, maximum: 10_000 })
// Members' posting (flood control and editing one's own shouts).
const MinSecondsBetweenShoutsSchema = Type.Integer({ minimum: 0, maximum: 3600 })
const MaxShoutsPerMinuteSchema = Type.Integer({ minimum: 1, maximum: 600 })
const EditWindowSecondsSchema = Type.Integer({ minimum: 0, maximum: 86_400 })
// History (pins and retention).
const MaxPinnedSchema = Type.Integer({ minimum: 0, maximum: 20 })
const KeepDaysSchema = Type.Union([Type.Integer({ minimum: 1, maximum: 3650 }), Type.Null()])
// Conversation: the emoji members react with (each one grapheme, checked as the settings are changed).
const ReactionSetSchema = Type.Array(Type.String({ minLength: 1, maxLength: 32 }), { minItems: 1, maxItems: 12, uniqueItems: true, description: '1–12 distinct single emoji, in the order shown' })

// Moderation in depth: reports that hide, new members held, automatic silence.
const HideAfterReportsSchema = Type.Integer({ minimum: 0, maximum: 100, description: 'distinct members whose open reports hide a shout pending review; 0: never' })
const ReportMinAccountAgeHoursSchema = Type.Integer({ minimum: 0, maximum: 8760, description: 'how old (hours) a reporter\'s account must be for their report to count toward hiding; younger ones queue' })
const HoldFirstShoutsSchema = Type.Integer({ minimum: 0, maximum: 10, description: "a member's first shouts held for review; 0: none" })
const AutoMuteAfterSchema = Type.Integer({ minimum: 0, maximum: 1000, description: 'flood refusals within 10 minutes that silence a member; 0: never' })
const AutoMuteMinutesSchema = Type.Integer({ minimum: 1, maximum: 10_080, description: 'how long an automatic silence lasts' })
// Guests (people without an account, in rooms that let them).
const GuestProofCostSchema = Type.Integer({ minimum: 1000, maximum: 10_000_000, description: 'the largest number a guest\'s proof of work may have to try (ALTCHA `maxnumber`): half of it, on average, SHA-256 hashes' })
const HoldGuestShoutsSchema = Type.Boolean({ description: 'guests\' shouts wait for review before they are on the board' })
// Direct messages between two members.
const DirectMessagesSchema = Type.Boolean({ description: 'members may write to one another in conversations of two' })
// Pictures in shouts.
const MaxUploadBytesSchema = Type.Integer({ minimum: 1024, maximum: 20 * 1024 * 1024, description: "the largest picture a member may upload, in bytes (as sent, before it is written again)" })
const HoldUploadsSchema = Type.Boolean({ description: "a member's shout with pictures is held for review until they have max(holdFirstShouts, 1) shouts on the board" })

/** The reactions a site starts with. */
export const DEFAULT_REACTIONS = ['👍', '❤️', '😂', '😮', '😢', '🎉'] as const

export const SettingsSchema = Type.Object({
  maxShouts: MaxShoutsSchema,
  maxMessageLength: MaxMessageLengthSchema,
  minSecondsBetweenShouts: MinSecondsBetweenShoutsSchema,
  maxShoutsPerMinute: MaxShoutsPerMinuteSchema,
  editWindowSeconds: EditWindowSecondsSchema,
  maxPinned: MaxPinnedSchema,
  keepDays: KeepDaysSchema,
  reactions: ReactionSetSchema,
  hideAfterReports: HideAfterReportsSchema,
  reportMinAccountAgeHours: ReportMinAccountAgeHoursSchema,
  holdFirstShouts: HoldFirstShoutsSchema,
  autoMuteAfter: AutoMuteAfterSchema,
  autoMuteMinutes: AutoMuteMinutesSchema,
  guestProofCost: GuestProofCostSchema,
  holdGuestShouts: HoldGuestShoutsSchema,
  directMessages: DirectMessagesSchema,
  maxUploadBytes: MaxUploadBytesSchema,
  holdUploads: HoldUploadsSchema
})

export type Settings = Static<typeof SettingsSchema>

export const SETTINGS_EXAMPLE: Settings = {
  maxShouts: 50, maxMessageLength: 500, minSecondsBetweenShouts: 3, maxShoutsPerMinute: 10, editWindowSeconds: 300, maxPinned: 3, keepDays: null, reactions: [...DEFAULT_REACTIONS],
  hideAfterReports: 3, reportMinAccountAgeHours: 24, holdFirstShouts: 0, autoMuteAfter: 10, autoMuteMinutes: 30, guestProofCost: 20_000, holdGuestShouts: true, directMessages: true, maxUploadBytes: 5_242_880, holdUploads: true
}

export const UpdateSettingsSchema = {
  body: Type.Object({
    maxShouts: Type.Optional(MaxShoutsSchema),
    maxMessageLength: Type.Optional(MaxMessageLengthSchema),
    minSecondsBetweenShouts: Type.Optional(MinSecondsBetweenShoutsSchema),
    maxShoutsPerMinute: Type.Optional(MaxShoutsPerMinuteSchema),
    editWindowSeconds: Type.Optional(EditWindowSecondsSchema),
    maxPinned: Type.Optional(MaxPinnedSchema),
    keepDays: Type.Optional(KeepDaysSchema),
    reactions: Type.Optional(ReactionSetSchema),
    hideAfterReports: Type.Optional(HideAfterReportsSchema),
    reportMinAccountAgeHours: Type.Optional(ReportMinAccountAgeHoursSchema),
    holdFirstShouts: Type.Optional(HoldFirstShoutsSchema),
    autoMuteAfter: Type.Optional(AutoMuteAfterSchema),
    autoMuteMinutes: Type.Optional(AutoMuteMinutesSchema),
    guestProofCost: Type.Optional(GuestProofCostSchema),
    holdGuestShouts: Type.Optional(HoldGuestShoutsSchema),
    directMessages: Type.Optional(DirectMessagesSchema),
    maxUploadBytes: Type.Optional(MaxUploadBytesSchema),
    holdUploads: Type.Optional(HoldUploadsSchema)
  }, { minProperties: 1, additionalProperties: false })
}

/** The keys of the settings, in the order they are answered. */
export const SETTINGS_KEYS = Object.keys(SettingsSchema.properties) as ReadonlyArray<keyof Settings>

export const ShoutIdParamsSchema = {
  params: IdParamsSchema
}

export const EditShoutSchema = {
  params: IdParamsSchema,
  body: Type.Object({ message: Type.String() })
}

/** Moderation: mutes. */
export const MAX_MUTE_MINUTES = 525_600
export const MAX_REASON_LENGTH = 500

export const ModeratorEditSchema = EditShoutSchema

export const MuteSchema = {
  body: Type.Object({
    userId: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
    minutes: Type.Union([Type.Integer({ minimum: 1, maximum: MAX_MUTE_MINUTES }), Type.Null()]),
    reason: Type.Optional(Type.Union([Type.String({ maxLength: MAX_REASON_LENGTH }), Type.Null()]))
  })
}

/** A mute as answered: the member, when it ends (ms; null: until lifted), why, and who made it. */
export const MuteAnswerSchema = Type.Object({
  userId: Type.Integer(),
  username: Type.String(),
  until: Type.Union([Type.Integer(), Type.Null()], { description: 'ms since the Unix epoch; null: until lifted' }),
  reason: Type.Union([Type.String(), Type.Null()]),
  by: Type.Union([Type.String(), Type.Null()], { description: "the moderator's username; null: the board itself (an automatic silence)" })
}, { additionalProperties: false })

export const MUTE_EXAMPLE: Static<typeof MuteAnswerSchema> = { userId: 2, username: 'ayse', until: 1795308600000, reason: 'spam', by: 'mod' }

export const MutedUserParamsSchema = {
  params: Type.Object({ userId: Type.String({ pattern: '^[0-9]{1,15}$' }) })
}

/** A page of a room's shouts: where it starts, how long it is, and words to find. */
const PageQuery = {
  /** An id: the page holds shouts older than it (the previous page's `next`). */
  before: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$' })),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  /** Words to find; blank is no search. */
  q: Type.Optional(Type.String({ maxLength: 200 })),
  /** `show`: the shouts of accounts the caller ignores too (they are left out otherwise). */
  ignored: Type.Optional(Type.String({ pattern: '^(show|hide)$' }))
}

/**
 * A room as a path names it. Any text up to 64 characters is taken as a slug and looked
 * up, so a slug that cannot exist answers the same 404 as one that does not, or one the
 * caller may not read.
 */
export const RoomSlugSchema = Type.String({ maxLength: 64 })

export const ArchiveSchema = {
  querystring: Type.Object({
    /** The room's slug; the default room when absent. */
    room: Type.Optional(RoomSlugSchema),
    ...PageQuery
  })
}

export const RoomPageSchema = {
  params: Type.Object({ slug: RoomSlugSchema }),
  querystring: Type.Object(PageQuery)
}

export const LatestSchema = {
  querystring: Type.Object({
    /** The room's slug; the default room when absent. */
    room: Type.Optional(RoomSlugSchema),
    /** How many of the newest; without it, `maxShouts` (50 when unset). */
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    /** `show`: the shouts of accounts the caller ignores too. */
    ignored: Type.Optional(Type.String({ pattern: '^(show|hide)$' }))
  })
}

export const PinSchema = {
  params: IdParamsSchema,
  body: Type.Object({ pinned: Type.Boolean() })
}
