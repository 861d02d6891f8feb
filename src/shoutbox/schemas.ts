import { IdParamsSchema, Type, type Static } from '../sdk/index.js'

export const ShoutSchema = Type.Object({
  id: Type.Integer(),
  message: Type.String(),
  username: Type.String(),
  date: Type.Integer({ description: 'milliseconds since the Unix epoch, when stored' })
})

export type Shout = Static<typeof ShoutSchema>

export const PublishShoutSchema = {
  body: Type.Object({ message: Type.String() })
}

const MaxShoutsSchema = Type.Union([Type.Integer({ minimum: 0, maximum: 2_147_483_647 }), Type.Null()])
const MaxMessageLengthSchema = Type.Integer({ minimum: 1, maximum: 10_000 })
const MaxPinnedSchema = Type.Integer({ minimum: 0, maximum: 20 })
const KeepDaysSchema = Type.Union([Type.Integer({ minimum: 1, maximum: 3650 }), Type.Null()])

export const SettingsSchema = Type.Object({
  maxShouts: MaxShoutsSchema,
  maxMessageLength: MaxMessageLengthSchema,
  maxPinned: MaxPinnedSchema,
  keepDays: KeepDaysSchema
})

export type Settings = Static<typeof SettingsSchema>

export const UpdateSettingsSchema = {
  body: Type.Object({
    maxShouts: Type.Optional(MaxShoutsSchema),
    maxMessageLength: Type.Optional(MaxMessageLengthSchema),
    maxPinned: Type.Optional(MaxPinnedSchema),
    keepDays: Type.Optional(KeepDaysSchema)
  }, { minProperties: 1 })
}

export const ArchiveSchema = {
  querystring: Type.Object({
    /** An id: the page holds shouts older than it (the previous page's `next`). */
    before: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$' })),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    /** Words to find; blank is no search. */
    q: Type.Optional(Type.String({ maxLength: 200 }))
  })
}

export const PinSchema = {
  params: IdParamsSchema,
  body: Type.Object({ pinned: Type.Boolean() })
}
