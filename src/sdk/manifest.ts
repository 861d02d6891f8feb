import { Type, type Static } from '@sinclair/typebox'

export const PermissionDeclarationSchema = Type.Object({
  /** How the addon's code names it, e.g. `MANAGE_SHOUTBOX`. */
  key: Type.String({ pattern: '^[A-Z][A-Z0-9_]*$' }),
  /** The node stored in roles, e.g. `addon.shoutbox.manage.shoutbox`. */
  node: Type.String({ pattern: '^addon\\.[a-z0-9-]+(\\.[a-z0-9-]+)+$' }),
  /** Granted to the built-in member role when the host first runs an addon that declares it. */
  default: Type.Optional(Type.Boolean())
})

const JsonValue = Type.Union([Type.Null(), Type.Boolean(), Type.Number(), Type.String(), Type.Array(Type.String())])

/** `addon.json`: what the loader validates before it imports any code. */
export const AddonManifestSchema = Type.Object({
  id: Type.String({ pattern: '^[a-z][a-z0-9-]{1,31}$' }),
  name: Type.String({ minLength: 1, maxLength: 100 }),
  version: Type.String({ pattern: '^\\d+\\.\\d+\\.\\d+([-+].+)?$' }),
  description: Type.Optional(Type.String({ maxLength: 500 })),
  /** The module that default-exports `defineAddon(...)`, relative to the addon's code folder. */
  entry: Type.String({ pattern: '^[^/].*\\.js$' }),
  permissions: Type.Array(PermissionDeclarationSchema, { default: [] }),
  /** Config keys with their defaults; `null` means "no default". */
  config: Type.Record(Type.String({ pattern: '^[a-zA-Z][a-zA-Z0-9]*$' }), JsonValue, { default: {} })
})

export type AddonManifest = Static<typeof AddonManifestSchema>
export type PermissionDeclaration = Static<typeof PermissionDeclarationSchema>
