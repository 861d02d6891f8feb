import { Type } from '@sinclair/typebox'

/**
 * The `:id` of a path, host and addon alike: digits only, so "1e3", " 7" and "1.0" are
 * not ids; 15 digits stay below 2^53. The endpoint reads it with `Number(call.params.id)`.
 */
export const IdParamsSchema = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,15}$' }) })
