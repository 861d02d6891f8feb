import { Ajv, type AnySchema } from 'ajv'
import type { FastifySchemaCompiler } from 'fastify'

/**
 * Bodies are validated as sent: a `message` of 123 is a wrong type, not the string "123".
 * Path and query parameters arrive as text, so those are coerced (`:id` → integer).
 */
const strict = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: false })
const coercing = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: false, allErrors: false })

export const validatorCompiler: FastifySchemaCompiler<AnySchema> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strict : coercing).compile(schema)
