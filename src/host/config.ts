import net from 'node:net'
import { parseArgs } from 'node:util'
import path from 'node:path'

/** The host's settings, validated once at start-up. */
export interface HostConfig {
  readonly dev: boolean
  readonly port: number
  readonly host: string
  readonly dataDir: string
  readonly addonsDir: string
  /** `postgres://…`; unset → the embedded PostgreSQL (PGlite) under `dataDir`. */
  readonly databaseUrl: string | undefined
  /** PostgreSQL schema the host keeps its tables in. */
  readonly databaseSchema: string
  /** Connections this process keeps to PostgreSQL at most. */
  readonly databasePoolSize: number
  /**
   * Whose `X-Forwarded-*` headers are believed: a number of proxy hops (0 = none), or the
   * addresses and CIDR ranges of the proxies (the peer, and each hop, must be one of them).
   */
  readonly trustProxy: TrustProxy
  /** Extra origins allowed to send state-changing requests, e.g. `https://example.org`. */
  readonly allowedOrigins: readonly string[]
  /**
   * Sites whose pages may show the board through `embed.js` (`EMBED_ORIGINS`): their
   * scripts may read the public endpoints and the stream, never with credentials.
   */
  readonly embedOrigins: readonly string[]
  /**
   * The site's public origin (`PUBLIC_URL`, e.g. `https://shouts.example.org`): allowed in
   * the Origin check; when https, the session cookie is always Secure and `__Host-` prefixed.
   */
  readonly publicUrl: string | undefined
  /** Open event streams one client address may hold (an IPv6 client: its /64). */
  readonly streamsPerClient: number
  /** Open event streams this process holds at most. */
  readonly maxStreams: number
  /**
   * Event streams one client address may open a minute, after a first burst of twice
   * `streamsPerClient`: each open of a reconnect replays up to a thousand events.
   */
  readonly streamOpensPerMinute: number
  readonly logLevel: string
  /** Log one line per request (off by default in production: it costs more than the list itself). */
  readonly logRequests: boolean
  /** `SETUP_TOKEN`: the token finishing setup needs; unset → a random one, printed at start. */
  readonly setupToken: string | undefined
  /** `METRICS_PORT`: Prometheus metrics at http://127.0.0.1:<port>/metrics; unset → none. */
  readonly metricsPort: number | undefined
  /** `WEBHOOKS_ALLOW_HTTP=1`: webhooks may use plain `http://` URLs (otherwise `https://` only). */
  readonly webhooksAllowHttp: boolean
  /** `WEBHOOKS_ALLOW_PRIVATE=1`: webhooks may reach loopback and private addresses (tests, a receiver on the same machine). */
  readonly webhooksAllowPrivate: boolean
  /**
   * `ADDRESS_SECRET`: what the keys of the client addresses' HMACs are derived from (see
   * `AddressKeys`); unset → the data folder's `address-secret` file, made at the first
   * start. Never in the database.
   */
  readonly addressSecret: string | undefined
  /** `LOG_CLIENT_ADDRESSES=1`: log lines carry the client's address in clear (otherwise a pseudonym of the day). */
  readonly logClientAddresses: boolean
  /** libuv's thread pool, which Node sizes from `UV_THREADPOOL_SIZE` (4 unless set): password hashing leaves one of its threads free. */
  readonly threadPoolSize: number
  /** `SMTP_URL` (`smtp://` or `smtps://`, user and password when the server wants them); unset → mail goes to the log with `--dev`, else nowhere. */
  readonly smtpUrl: string | undefined
  /** `MAIL_FROM`: the sender of the site's mails; unset → `Shoutbox <no-reply@<PUBLIC_URL's host>>`. */
  readonly mailFrom: string | undefined
  /** `UPLOADS_DIR`: pictures' bytes are kept in files there; unset → in the database, which every process reads. */
  readonly uploadsDir?: string | undefined
}

/** A number of hops, or a list of addresses and CIDR ranges such as `10.0.0.0/8` and `::1`. */
export type TrustProxy = number | readonly string[]

export class ConfigError extends Error {
  override readonly name = 'ConfigError'
}

/** The shortest ADDRESS_SECRET taken: a secret that can be guessed gives the addresses away. */
export const MIN_ADDRESS_SECRET_LENGTH = 32

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

export function loadConfig (argv: readonly string[], env: NodeJS.ProcessEnv): HostConfig {
  let parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        dev: { type: 'boolean', default: false },
        port: { type: 'string' },
        host: { type: 'string' },
        'data-dir': { type: 'string' },
        'addons-dir': { type: 'string' }
      },
      strict: true,
      allowPositionals: false
    }).values
  } catch (error) {
    throw new ConfigError((error as Error).message)
  }
  const dev = parsed.dev === true
  const port = parsePort(parsed.port ?? env.PORT ?? (dev ? '8088' : '80'))
  const logLevel = env.LOG_LEVEL ?? (dev ? 'debug' : 'info')
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`)
  const databaseSchema = env.DATABASE_SCHEMA ?? 'public'
  if (!/^[a-z_][a-z0-9_]{0,49}$/.test(databaseSchema)) throw new ConfigError('DATABASE_SCHEMA must be a lower-case SQL identifier')
  const databaseUrl = emptyToUndefined(env.DATABASE_URL)
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://')
  }
  const setupToken = emptyToUndefined(env.SETUP_TOKEN)
  if (setupToken !== undefined && (setupToken.length < 16 || setupToken.length > 200)) {
    throw new ConfigError('SETUP_TOKEN must be 16 to 200 characters long (anyone who knows it can finish setup)')
  }
  const addressSecret = emptyToUndefined(env.ADDRESS_SECRET)?.trim()
  if (addressSecret !== undefined && addressSecret.length < MIN_ADDRESS_SECRET_LENGTH) {
    throw new ConfigError(`ADDRESS_SECRET must be ${MIN_ADDRESS_SECRET_LENGTH} characters or more (openssl rand -base64 32): one that can be guessed ties a copy of the database's counters to addresses`)
  }
  const smtpUrl = parseSmtpUrl(emptyToUndefined(env.SMTP_URL)?.trim())
  const publicUrl = parsePublicUrl(emptyToUndefined(env.PUBLIC_URL)?.trim())
  // A mail's links must name the site itself, never the Host a request claimed.
  if (smtpUrl !== undefined && publicUrl === undefined) throw new ConfigError('SMTP_URL needs PUBLIC_URL: the links in mails are made from it')
  return {
    dev,
    port,
    host: parsed.host ?? env.HOST ?? '0.0.0.0',
    dataDir: path.resolve(parsed['data-dir'] ?? env.DATA_DIR ?? 'data'),
    addonsDir: path.resolve(parsed['addons-dir'] ?? env.ADDONS_DIR ?? 'addons'),
    databaseUrl,
    databaseSchema,
    databasePoolSize: parseCount('DATABASE_POOL_SIZE', env.DATABASE_POOL_SIZE ?? '20') || 1,
    trustProxy: parseTrustProxy(env.TRUST_PROXY ?? '0'),
    allowedOrigins: parseOrigins('ALLOWED_ORIGINS', env.ALLOWED_ORIGINS),
    embedOrigins: parseOrigins('EMBED_ORIGINS', env.EMBED_ORIGINS),
    publicUrl,
    streamsPerClient: parseAtLeastOne('STREAMS_PER_CLIENT', env.STREAMS_PER_CLIENT ?? '20'),
    maxStreams: parseAtLeastOne('MAX_STREAMS', env.MAX_STREAMS ?? '10000'),
    streamOpensPerMinute: parseAtLeastOne('STREAM_OPENS_PER_MINUTE', env.STREAM_OPENS_PER_MINUTE ?? '60'),
    logLevel,
    logRequests: env.LOG_REQUESTS !== undefined ? env.LOG_REQUESTS === '1' || env.LOG_REQUESTS === 'true' : dev,
    setupToken,
    metricsPort: emptyToUndefined(env.METRICS_PORT) === undefined ? undefined : parsePort(env.METRICS_PORT!.trim()),
    webhooksAllowHttp: parseCount('WEBHOOKS_ALLOW_HTTP', env.WEBHOOKS_ALLOW_HTTP ?? '0') > 0,
    webhooksAllowPrivate: parseCount('WEBHOOKS_ALLOW_PRIVATE', env.WEBHOOKS_ALLOW_PRIVATE ?? '0') > 0,
    addressSecret,
    logClientAddresses: parseCount('LOG_CLIENT_ADDRESSES', env.LOG_CLIENT_ADDRESSES ?? '0') > 0,
    // Read as libuv reads it: anything but a positive number leaves its default.
    threadPoolSize: Number(env.UV_THREADPOOL_SIZE) || 4,
    smtpUrl,
    mailFrom: emptyToUndefined(env.MAIL_FROM)?.trim(),
    uploadsDir: emptyToUndefined(env.UPLOADS_DIR) === undefined ? undefined : path.resolve(env.UPLOADS_DIR!.trim())
  }
}

function parseSmtpUrl (value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  const url = URL.canParse(value) ? new URL(value) : undefined
  if (url === undefined || !['smtp:', 'smtps:'].includes(url.protocol) || url.hostname === '') {
    throw new ConfigError('SMTP_URL must be smtp://[user:password@]host[:port] or smtps://… (e.g. smtp://127.0.0.1:2525)')
  }
  return value
}

function emptyToUndefined (value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value
}

function parsePort (value: string): number {
  const port = Number(value)
  if (!/^\d+$/.test(value) || port < 0 || port > 65535) throw new ConfigError(`port must be a number from 0 to 65535, got "${value}"`)
  return port
}

function parseCount (name: string, value: string): number {
  if (value === 'true') return 1
  if (value === 'false') return 0
  if (!/^\d+$/.test(value)) throw new ConfigError(`${name} must be a whole number (0, 1, 2, …), got "${value}"`)
  return Number(value)
}

function parseAtLeastOne (name: string, value: string): number {
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) throw new ConfigError(`${name} must be a whole number from 1 up, got "${value}"`)
  return Number(value)
}

function parseTrustProxy (value: string): TrustProxy {
  const trimmed = value.trim()
  if (/^(\d+|true|false)$/.test(trimmed)) return parseCount('TRUST_PROXY', trimmed)
  const entries = trimmed.split(',').map(s => s.trim()).filter(Boolean)
  for (const entry of entries) {
    if (!isAddressOrRange(entry)) {
      throw new ConfigError(`TRUST_PROXY must be a number of proxy hops or a comma-separated list of addresses and CIDR ranges (e.g. 127.0.0.1,10.0.0.0/8,::1), got "${entry}"`)
    }
  }
  if (entries.length === 0) throw new ConfigError('TRUST_PROXY must be a number of proxy hops or a comma-separated list of addresses and CIDR ranges')
  return entries
}

/** `10.1.2.3`, `10.0.0.0/8`, `::1`, `fd00::/8`: what `net.BlockList` takes (no zone ids). */
function isAddressOrRange (entry: string): boolean {
  const [address = '', bits, extra] = entry.split('/')
  if (extra !== undefined) return false
  const family = net.isIP(address)
  if (family === 0 || address.includes('%')) return false
  if (bits === undefined) return true
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128)
}

/**
 * An origin only: the host serves every page and endpoint from `/`, and a `__Host-`
 * cookie must have path `/`, so a path, query or credentials would promise what is not so.
 */
function parsePublicUrl (value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  const refuse = (): never => {
    throw new ConfigError(`PUBLIC_URL must be the site's public origin, http(s)://host[:port] with no path, like https://shouts.example.org; got "${value}"`)
  }
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return refuse()
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '' || url.hash !== '' || value.endsWith('?') || value.endsWith('#')) refuse()
  return url.origin
}

/** A comma-separated list of origins (`https://example.org`, a port if any), as browsers send them in `Origin`. */
function parseOrigins (name: string, value: string | undefined): string[] {
  return (value ?? '').split(',').map(s => s.trim()).filter(Boolean).map(origin => {
    const url = URL.canParse(origin) ? new URL(origin) : undefined
    if (url === undefined || !['http:', 'https:'].includes(url.protocol)) throw new ConfigError(`${name}: "${origin}" is not an origin like https://example.org`)
    return url.origin
  })
}
