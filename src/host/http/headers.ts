/**
 * Headers every answer carries, whichever way it is sent: through Fastify (the entry
 * hook), from memory before Fastify runs, as an event stream, or to bytes Node could not
 * parse. Browsers must not guess a type other than the one we send.
 */
export const EVERY_ANSWER: Readonly<Record<string, string>> = Object.freeze({ 'x-content-type-options': 'nosniff' })

export const JSON_TYPE = 'application/json; charset=utf-8'
