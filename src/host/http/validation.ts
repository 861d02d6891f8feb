import { Ajv, type AnySchema, type ErrorObject } from 'ajv'
import type { FastifySchemaCompiler } from 'fastify'

/**
 * Bodies are validated as sent: a `message` of 123 is a wrong type, not the string "123".
 * Path and query parameters arrive as text, so those are coerced (`:id` → integer).
 */
const strict = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: false })
const coercing = new Ajv({ coerceTypes: 'array', useDefaults: true, removeAdditional: false, allErrors: false })

export const validatorCompiler: FastifySchemaCompiler<AnySchema> = ({ schema, httpPart }) => {
  if (httpPart === 'body') return strict.compile(schema)
  const validate = coercing.compile(schema)
  const integers = integerProperties(schema)
  if (integers.length === 0) return validate
  // Ajv coerces any text JavaScript reads as a whole number: `1e2`, `0x10`, `+5`, ` 5`.
  // An integer in a URL is written in decimal digits, or it is not an integer.
  const checked = (data: Record<string, unknown>): boolean => {
    const wrong = integers.find(name => typeof data[name] === 'string' && !DECIMAL.test(data[name]))
    if (wrong === undefined) {
      const valid = validate(data) as boolean
      checked.errors = validate.errors
      return valid
    }
    checked.errors = [{ instancePath: `/${wrong}`, schemaPath: `#/properties/${wrong}/type`, keyword: 'type', params: { type: 'integer' }, message: 'must be integer' }]
    return false
  }
  checked.errors = null as ErrorObject[] | null | undefined
  return checked
}

const DECIMAL = /^-?[0-9]+$/

/** The names of the object schema's properties typed `integer`. */
function integerProperties (schema: AnySchema): string[] {
  const properties = typeof schema === 'object' ? (schema as { properties?: Record<string, { type?: unknown }> }).properties : undefined
  return Object.entries(properties ?? {}).filter(([, property]) => property.type === 'integer').map(([name]) => name)
}
