import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'

/**
 * The `:id` of a path, host and addon alike: digits only, so "1e3", " 7" and "1.0" are
 * not ids; 15 digits stay below 2^53. The endpoint reads it with `Number(call.params.id)`.
 */
export const IdParamsSchema = Type.Object({ id: Type.String({ pattern: '^[0-9]{1,15}$' }) })

/**
 * A compiled check of `schema`, for data that arrives from outside a request (a cluster
 * notice, a file): true when `value` matches it, and `value` is then typed so.
 */
export function checker<T extends TSchema> (schema: T): (value: unknown) => value is Static<T> {
  const compiled = TypeCompiler.Compile(schema)
  return (value: unknown): value is Static<T> => compiled.Check(value)
}
