import { IdParamsSchema, Type, type Static } from '../sdk/index.js'

/** A shout: exactly these four fields, wherever it is shown. */
export const ShoutSchema = Type.Object({
  id: Type.Integer(),
  message: Type.String(),
  username: Type.String(),
  date: Type.Integer({ description: 'milliseconds since the Unix epoch, when stored' })
}, { additionalProperties: false })

export const SHOUT_EXAMPLE: Shout = { id: 42, message: 'Hello, board! https://example.org', username: 'ada', date: 1795000000000 }

export type Shout = Static<typeof ShoutSchema>

export const PublishShoutSchema = {
  body: Type.Object({ message: Type.String() })
}

const MaxShoutsSchema = Type.Union([Type.Integer({ minimum: 0, maximum: 2_147_483_647 }), Type.Null()])
const MaxMessageLengthSchema = Type.Integer({ minimum: 1, maximum: 10_000 })
// Members' posting (flood control and editing one's own shouts).
const MinSecondsBetweenShoutsSchema = Type.Integer({ minimum: 0, maximum: 3600 })
const MaxShoutsPerMinuteSchema = Type.Integer({ minimum: 1, maximum: 600 })
const EditWindowSecondsSchema = Type.Integer({ minimum: 0, maximum: 86_400 })

export const SettingsSchema = Type.Object({
  maxShouts: MaxShoutsSchema,
  maxMessageLength: MaxMessageLengthSchema,
  minSecondsBetweenShouts: MinSecondsBetweenShoutsSchema,
  maxShoutsPerMinute: MaxShoutsPerMinuteSchema,
  editWindowSeconds: EditWindowSecondsSchema
})

export type Settings = Static<typeof SettingsSchema>

export const SETTINGS_EXAMPLE: Settings = {
  maxShouts: 50, maxMessageLength: 500, minSecondsBetweenShouts: 3, maxShoutsPerMinute: 10, editWindowSeconds: 300
}

export const UpdateSettingsSchema = {
  body: Type.Object({
    maxShouts: Type.Optional(MaxShoutsSchema),
    maxMessageLength: Type.Optional(MaxMessageLengthSchema),
    minSecondsBetweenShouts: Type.Optional(MinSecondsBetweenShoutsSchema),
    maxShoutsPerMinute: Type.Optional(MaxShoutsPerMinuteSchema),
    editWindowSeconds: Type.Optional(EditWindowSecondsSchema)
  }, { minProperties: 1 })
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
