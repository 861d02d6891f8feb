import type { FastifyServerOptions } from 'fastify'

type LoggerSetting = FastifyServerOptions['logger']
type LoggerOptions = Exclude<LoggerSetting, boolean | undefined>
type Fields = Record<string, unknown>

const REDACTED = '[redacted]'

/**
 * Paths pino blanks wherever they appear in a log line: credentials in headers, and the
 * fields of accounts and sign-ins, should any code (an addon's too) log a body, a user
 * row or a payload as it is.
 */
const REDACT_PATHS = [
  'req.headers.cookie', 'req.headers.authorization', 'req.headers["set-cookie"]', 'req.body',
  'res.headers["set-cookie"]',
  'headers.cookie', 'headers.authorization', 'headers["set-cookie"]',
  'body', 'password', 'passwordHash', 'password_hash', 'currentPassword', 'newPassword', 'token', 'token_hash', 'email', 'cookie',
  '*.password', '*.passwordHash', '*.password_hash', '*.currentPassword', '*.newPassword', '*.token', '*.token_hash', '*.email', '*.cookie'
]

/**
 * Where careless code (an addon's too) might put a client's address: blanked unless
 * addresses are logged in clear. The request line itself is written by `safeRequest`.
 */
const ADDRESS_PATHS = [
  'ip', 'ips', 'remoteAddress', '*.ip', '*.ips', '*.remoteAddress',
  'headers["x-forwarded-for"]', 'headers["x-real-ip"]', 'headers.forwarded',
  '*.headers["x-forwarded-for"]', '*.headers["x-real-ip"]', '*.headers.forwarded'
]

/**
 * How a client appears in the log: by its address in clear (`LOG_CLIENT_ADDRESSES=1`),
 * or by a pseudonym of the day (`AddressKeys.pseudonym`).
 */
export type ClientsInLog = 'in clear' | { pseudonym (address: string): string }

/** Query parameters whose values are secrets (a setup link, a token handed over in a URL). */
const SECRET_PARAM = /token|password|secret|key|session/i

/**
 * The host's logger settings with what must never reach a log taken out: passwords,
 * hashes, session tokens, e-mail addresses, SQL parameter values and, unless `clients` is
 * 'in clear', client addresses. Applied to whatever logger the host is built with
 * (server.ts's, or a test's).
 */
export function safeLogging (setting: LoggerSetting, clients: ClientsInLog): LoggerSetting {
  if (setting === undefined || setting === false) return false
  const options: LoggerOptions = setting === true ? {} : setting
  const paths = clients === 'in clear' ? REDACT_PATHS : [...REDACT_PATHS, ...ADDRESS_PATHS]
  const redact = options.redact === undefined
    ? paths
    : Array.isArray(options.redact) ? [...options.redact, ...paths] : { ...options.redact, paths: [...options.redact.paths, ...paths] }
  const formatLog = options.formatters?.log
  return {
    ...options,
    redact: Array.isArray(redact) ? { paths: redact, censor: REDACTED } : redact,
    serializers: { ...options.serializers, err: error => safeError(error) as { type: string, message: string, stack: string }, req: request => safeRequest(request, clients) },
    formatters: {
      ...options.formatters,
      // An Error under any key (not only `err`) is serialised the safe way.
      log: (object: Fields) => safeFields(formatLog === undefined ? object : formatLog(object))
    }
  }
}

function safeFields (object: Fields): Fields {
  let copy: Fields | undefined
  for (const [key, value] of Object.entries(object)) {
    if (key !== 'err' && value instanceof Error) (copy ??= { ...object })[key] = safeError(value)
  }
  return copy ?? object
}

interface LoggedRequest { method?: string, url?: string, host?: string, ip?: string, remoteAddress?: string, socket?: { remotePort?: number } }

/**
 * Fastify's request line (method, URL, host, client), with the values of secret query
 * parameters blanked, and the client as `clients` says: its address and port in clear,
 * or only its pseudonym of the day (a port is left out too: with the time, a carrier's
 * NAT log ties it to a subscriber).
 */
function safeRequest (request: LoggedRequest, clients: ClientsInLog): Fields {
  const line: Fields = {
    method: request.method,
    url: request.url === undefined ? undefined : safeUrl(request.url),
    host: request.host
  }
  const address = request.ip ?? request.remoteAddress
  if (clients === 'in clear') return { ...line, remoteAddress: address, remotePort: request.socket?.remotePort }
  return address === undefined ? line : { ...line, client: clients.pseudonym(address) }
}

/** An incoming hook's address: its last part is the hook's secret. */
const HOOK_SECRET_PATH = /^(\/(?:api\/)?hooks\/[^/?]+\/[^/?]+\/)[^/?]+/

export function safeUrl (logged: string): string {
  const url = logged.replace(HOOK_SECRET_PATH, `$1${REDACTED}`)
  const query = url.indexOf('?')
  if (query === -1) return url
  return url.slice(0, query + 1) + url.slice(query + 1).split('&').map(pair => {
    const equals = pair.indexOf('=')
    const name = equals === -1 ? pair : pair.slice(0, equals)
    return equals !== -1 && SECRET_PARAM.test(decodeURIComponentSafe(name)) ? `${name}=${REDACTED}` : pair
  }).join('&')
}

function decodeURIComponentSafe (text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** Fields of a PostgreSQL error that name things (never values) and may be logged. */
const DATABASE_ERROR_FIELDS = ['code', 'severity', 'routine', 'schema', 'table', 'column', 'dataType', 'constraint'] as const
/** Fields of other errors that may be logged; the rest of what an error carries is left out. */
const ERROR_FIELDS = ['code', 'statusCode', 'errno', 'syscall', 'address', 'port'] as const

/**
 * How an error is logged. An error from the database (it has a SQLSTATE and a severity)
 * is logged by what it names — code, table, constraint, the failed statement's text with
 * its `$n` placeholders — and never by its message, `detail`, `where`, parameters or
 * query with values: PostgreSQL writes values there (`Key (lower(email))=(a@b.c) already
 * exists`, a trigger's `RAISE` text), PGlite attaches the parameters, and knex prefixes
 * the message with the statement. Other errors keep their message and a few known
 * fields, not whatever else they carry. Causes are treated the same way.
 */
export function safeError (error: unknown, depth = 0): unknown {
  if (!(error instanceof Error)) return error
  const fields = error as unknown as Fields
  const type = error.constructor.name
  const frames = (error.stack ?? '').split('\n').filter(line => /^\s+at /.test(line)).join('\n')
  let safe: Fields
  if (isDatabaseError(fields)) {
    safe = { type, message: `database error ${String(fields.code)}` }
    for (const key of DATABASE_ERROR_FIELDS) if (fields[key] !== undefined) safe[key] = fields[key]
    const statement = (error as { [STATEMENT]?: string })[STATEMENT]
    if (statement !== undefined) safe.statement = statement
    safe.stack = frames
  } else {
    safe = { type, message: error.message }
    for (const key of ERROR_FIELDS) if (fields[key] !== undefined) safe[key] = fields[key]
    safe.stack = error.stack
  }
  if (depth < 5) {
    if (error.cause !== undefined) safe.cause = safeError(error.cause, depth + 1)
    if (error instanceof AggregateError) safe.errors = error.errors.map(inner => safeError(inner, depth + 1))
  }
  return safe
}

function isDatabaseError (error: Fields): boolean {
  return typeof error.code === 'string' && /^[0-9A-Z]{5}$/.test(error.code) && typeof error.severity === 'string'
}

/** Where the database layer keeps a failed statement's text (placeholders only) on its error. */
export const STATEMENT = Symbol('shoutbox.statement')
