import { Type, type Static } from '@sinclair/typebox'
import type { ErasureMode } from '../sdk/index.js'

/** Shared pieces of the host's request schemas. */
export const UsernameSchema = Type.String({ minLength: 3, maxLength: 32, pattern: '^[A-Za-z0-9_-]+$' })
export const EmailSchema = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' })
export const PasswordSchema = Type.String({ minLength: 8, maxLength: 128 })
export const PermissionNodeSchema = Type.String({ minLength: 1, maxLength: 200 })

export const NewAccountSchema = Type.Object({
  username: UsernameSchema,
  email: EmailSchema,
  password: PasswordSchema
})

export type NewAccount = Static<typeof NewAccountSchema>

/*
 * What the host's endpoints answer. Each answer's schema serialises it (a field not named
 * here never leaves the server) and is documented in /api/openapi.json.
 */
const IdSchema = Type.Integer({ minimum: 1 })
const MillisecondsSchema = Type.Integer({ description: 'milliseconds since the Unix epoch' })

/** The user of a sign-in answer. */
export const SignedInUserSchema = Type.Object({
  id: IdSchema,
  username: Type.String(),
  role: Type.Object({ id: IdSchema, name: Type.String() }, { additionalProperties: false })
}, { additionalProperties: false })

export const SIGNED_IN_EXAMPLE = { id: 2, username: 'ada', role: { id: 2, name: 'member' } }

export const RoleSchema = Type.Object({
  id: IdSchema,
  name: Type.String(),
  permissions: Type.Array(Type.String()),
  builtin: Type.Boolean()
}, { additionalProperties: false })

export const ROLE_EXAMPLE = { id: 3, name: 'moderator', permissions: ['panel.access', 'addon.shoutbox.manage.shoutbox'], builtin: false }

/** A user as the panel's user endpoints show one: never the password hash. */
export const UserSchema = Type.Object({
  id: IdSchema,
  username: Type.String(),
  email: Type.String(),
  roleId: IdSchema,
  disabled: Type.Boolean(),
  bot: Type.Boolean({ description: 'a bot account: no password, it acts only through API tokens' }),
  createdAt: MillisecondsSchema
}, { additionalProperties: false })

export const USER_EXAMPLE = { id: 2, username: 'ada', email: 'ada@example.org', roleId: 2, disabled: false, bot: false, createdAt: 1795000000000 }

export const ActivityEntrySchema = Type.Object({
  id: IdSchema,
  type: Type.String({ description: 'CREATED_SHOUT, SIGNED_UP, …' }),
  userId: Type.Union([IdSchema, Type.Null()]),
  username: Type.Union([Type.String(), Type.Null()]),
  addonId: Type.Union([Type.String(), Type.Null()], { description: 'null for the host\'s own entries' }),
  details: Type.Object({}, { additionalProperties: true, description: 'what the entry is about; its keys depend on its type' }),
  createdAt: MillisecondsSchema,
  text: Type.String({ description: 'the entry as a sentence in the chosen language' })
}, { additionalProperties: false })

export const SiteSettingsFields = {
  signUp: Type.Boolean({ description: 'visitors may create their own account' }),
  defaultRoleId: Type.Integer({ minimum: 1, description: 'the role new accounts get' }),
  activityKeepDays: Type.Union([Type.Integer({ minimum: 30, maximum: 3650 }), Type.Null()], { description: 'days the activity log keeps an entry (30–3650); null: forever' }),
  erasure: Type.Unsafe<ErasureMode>({ type: 'string', enum: ['anonymise', 'delete'], description: "a deleted account's shouts: kept under the name 'deleted user' (anonymise), or deleted" }),
  verifyEmail: Type.Boolean({ description: 'a member who signs up may post only after following the link mailed to their address' })
}
