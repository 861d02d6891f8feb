import { Type, type Static, type TLiteral, type TObject, type TProperties, type TSchema } from '@sinclair/typebox'
import type { PlatformError } from './errors.js'

/**
 * What an endpoint declares it answers. The host serialises its success answer with
 * `ok` (so a field the schema does not name never leaves the server), documents both in
 * `/api/openapi.json`, and adds to `errors` the errors every endpoint of its access class,
 * body and parameters can answer: an endpoint names only the errors of its own logic.
 */
export interface EndpointAnswers {
  /** The whole success body, made with `okAnswer` (or `eventStreamAnswer` for a stream). */
  readonly ok: TSchema
  /** Error classes the endpoint's own logic throws (`NoPermission` for a permission check, `NotFound`, …). */
  readonly errors?: readonly ErrorClass[]
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- error classes take any constructor arguments
export type ErrorClass = abstract new (...args: any[]) => PlatformError

/**
 * The schema of `{"result":"ok", …fields}`, with one example answer (without `result`).
 * The example is documented and a test produces such an answer through the real app and
 * checks it against this schema, so the document cannot drift from the code.
 */
export function okAnswer<P extends TProperties> (fields: P, example: Static<TObject<P>>, description?: string): TObject<P & { result: TLiteral<'ok'> }> {
  return Type.Object({ result: Type.Literal('ok'), ...fields } as P & { result: TLiteral<'ok'> }, {
    additionalProperties: false,
    examples: [{ result: 'ok', ...example }],
    ...(description === undefined ? {} : { description })
  })
}

/** The media type of an event stream's answer. */
export const EVENT_STREAM_TYPE = 'text/event-stream'

/** An answer that is bytes of one media type (a picture: `BytesAnswer`), described in words. */
export function bytesAnswer (type: string, description: string): TSchema {
  return Type.String({ contentMediaType: type, description, examples: [`(the ${type} bytes)`] })
}

/** A Server-Sent Events answer (`call.openEventStream()`), described in words. */
export function eventStreamAnswer (description: string, example: string): TSchema {
  return Type.String({ contentMediaType: EVENT_STREAM_TYPE, description, examples: [example] })
}
