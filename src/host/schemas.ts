import { Type, type Static } from '@sinclair/typebox'

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
