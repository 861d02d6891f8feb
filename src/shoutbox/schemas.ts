import { Type, type Static } from '../sdk/index.js'

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

export const SettingsSchema = Type.Object({
  maxShouts: MaxShoutsSchema,
  maxMessageLength: MaxMessageLengthSchema
})

export type Settings = Static<typeof SettingsSchema>

export const UpdateSettingsSchema = {
  body: Type.Object({
    maxShouts: Type.Optional(MaxShoutsSchema),
    maxMessageLength: Type.Optional(MaxMessageLengthSchema)
  }, { minProperties: 1 })
}
