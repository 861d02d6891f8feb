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
  /** Honour `X-Forwarded-*` from this many proxy hops (0 = none). */
  readonly trustProxy: number
  /** Extra origins allowed to send state-changing requests, e.g. `https://example.org`. */
  readonly allowedOrigins: readonly string[]
  readonly logLevel: string
  /** Log one line per request (off by default in production: it costs more than the list itself). */
  readonly logRequests: boolean
  /** `SETUP_TOKEN`: the token finishing setup needs; unset → a random one, printed at start. */
  readonly setupToken: string | undefined
  /** `METRICS_PORT`: Prometheus metrics at http://127.0.0.1:<port>/metrics; unset → none. */
  readonly metricsPort: number | undefined
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError'
}

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
  return {
    dev,
    port,
    host: parsed.host ?? env.HOST ?? '0.0.0.0',
    dataDir: path.resolve(parsed['data-dir'] ?? env.DATA_DIR ?? 'data'),
    addonsDir: path.resolve(parsed['addons-dir'] ?? env.ADDONS_DIR ?? 'addons'),
    databaseUrl,
    databaseSchema,
    databasePoolSize: parseCount('DATABASE_POOL_SIZE', env.DATABASE_POOL_SIZE ?? '20') || 1,
    trustProxy: parseCount('TRUST_PROXY', env.TRUST_PROXY ?? '0'),
    allowedOrigins: (env.ALLOWED_ORIGINS ?? '').split(',').map(s => s.trim()).filter(Boolean).map(parseOrigin),
    logLevel,
    logRequests: env.LOG_REQUESTS !== undefined ? env.LOG_REQUESTS === '1' || env.LOG_REQUESTS === 'true' : dev,
    setupToken,
    metricsPort: emptyToUndefined(env.METRICS_PORT) === undefined ? undefined : parsePort(env.METRICS_PORT!.trim())
  }
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
  if (!/^\d+$/.test(value)) throw new ConfigError(`${name} must be a number of proxy hops (0, 1, 2, …)`)
  return Number(value)
}

function parseOrigin (value: string): string {
  try {
    const url = new URL(value)
    return url.origin
  } catch {
    throw new ConfigError(`ALLOWED_ORIGINS: "${value}" is not an origin like https://example.org`)
  }
}
