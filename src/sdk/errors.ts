import { PLATFORM_ERROR } from './brands.js'
import { errorCode } from './error-code.js'

/**
 * Throw one of these from an endpoint; the host answers
 * `{"result":"error","error":"<CODE>", ...extras}` with the class's status.
 * An addon defines its own errors by extending `PlatformError` (or one of the classes
 * below) and setting `status`; the code comes from the class name.
 */
export class PlatformError extends Error {
  readonly [PLATFORM_ERROR] = true
  /** HTTP status of the answer. */
  readonly status: number = 500
  /** Extra fields of the error body, e.g. `bodyValidationError`. */
  readonly extras: Record<string, unknown>
  /** Extra response headers, e.g. `Retry-After`. */
  readonly headers: Record<string, string> = {}

  constructor (extras: Record<string, unknown> = {}, message?: string) {
    super(message ?? new.target.name)
    this.name = new.target.name
    this.extras = extras
  }

  get code (): string {
    return errorCode(this.constructor.name)
  }
}

export class BadRequest extends PlatformError {
  override readonly status: number = 400
}

export class NotLoggedIn extends PlatformError {
  override readonly status = 401
}

export class InvalidCredentials extends PlatformError {
  override readonly status = 401
}

export class NoPermission extends PlatformError {
  override readonly status = 403
}

/**
 * The member has not yet followed the link mailed to their address at sign-up, and the
 * site asks that before they post (the site setting `verifyEmail`) → EMAIL_NOT_VERIFIED, 403.
 */
export class EmailNotVerified extends NoPermission {}

export class InvalidOrigin extends PlatformError {
  override readonly status = 403
}

export class NotFound extends PlatformError {
  override readonly status = 404
}

export class Conflict extends PlatformError {
  override readonly status: number = 409
}

export class PlatformAlreadyInstalled extends Conflict {}

export class PayloadTooLarge extends PlatformError {
  override readonly status = 413
}

/** The request did not arrive in time (answered by the HTTP server before any endpoint runs). */
export class RequestTimeout extends PlatformError {
  override readonly status = 408
}

export class TooManyRequests extends PlatformError {
  override readonly status = 429

  constructor (retryAfterSeconds: number) {
    super()
    this.headers['retry-after'] = String(Math.max(1, Math.ceil(retryAfterSeconds)))
  }
}

export class InternalServerError extends PlatformError {
  override readonly status = 500
}

export class InstallationRequired extends PlatformError {
  override readonly status = 503
}

export class ServiceUnavailable extends PlatformError {
  override readonly status = 503
}

/** True for any SDK error, including one thrown by an addon's bundled copy of the SDK. */
export function isPlatformError (value: unknown): value is PlatformError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PLATFORM_ERROR] === true
}
