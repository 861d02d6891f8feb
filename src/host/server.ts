import net from 'node:net'
import { buildApp } from './app.js'
import { AddonLoadError } from './addons/loader.js'
import { ConfigError, loadConfig, type HostConfig } from './config.js'
import { embeddedMemoryWarning } from './database/connect.js'
import { DataDirInUse } from './database/data-dir-claim.js'
import type { DrainReport } from './http/draining-server.js'
import { MetricsPortError } from './services/metrics.js'

/** How long a stop may take before the process gives up on stragglers. */
const STOP_TIMEOUT_MS = 10_000

function fail (line: string, code = 1): never {
  process.stderr.write(`shoutbox: ${line}\n`)
  process.exit(code)
}

/** Tries the port before opening the database, so a wrong port fails at once and plainly. */
function probePort (port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer()
    probe.once('error', reject)
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()))
  })
}

function explainListenError (error: unknown, port: number): never {
  if (error instanceof MetricsPortError) explainMetricsPortError(error)
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'EACCES') fail(`no permission to listen on port ${port}; run with --dev (port 8088) or choose a port with --port N / PORT=N`)
  if (code === 'EADDRINUSE') fail(`port ${port} is already in use; choose another with --port N / PORT=N`)
  throw error
}

/** The metrics listener opens as the host starts listening: its port is named, not the host's. */
function explainMetricsPortError (error: MetricsPortError): never {
  if (error.code === 'EACCES') fail(`no permission to listen on metrics port ${error.port}; choose another with METRICS_PORT=N`)
  if (error.code === 'EADDRINUSE') fail(`metrics port ${error.port} is already in use; choose another with METRICS_PORT=N`)
  throw error
}

function loggerOptions (config: HostConfig) {
  if (!config.dev) return { level: config.logLevel }
  return { level: config.logLevel, transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss', ignore: 'pid,hostname' } } }
}

/**
 * Until setup is done, the log says how to finish it: the token, and with --dev a link
 * to the wizard that fills it in.
 */
async function announceSetup (app: Awaited<ReturnType<typeof buildApp>>, config: HostConfig): Promise<void> {
  const token = await app.identity.setup.token()
  if (token === undefined) return
  const port = (app.server.address() as net.AddressInfo).port
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host
  const wizard = `http://${host.includes(':') ? `[${host}]` : host}:${port}/panel/#/setup?token=${encodeURIComponent(token)}`
  const line = config.dev
    ? `setup is not finished: open ${wizard}`
    : `setup is not finished: the setup token is ${token} (the wizard at /panel/ asks for it)`
  // At warn, so a quieter LOG_LEVEL still shows how to finish setup; quieter still (error,
  // fatal, silent), as a plain line on stderr: without the token setup cannot be finished.
  if (LEVELS_WITH_WARN.has(app.log.level)) app.log.warn(line)
  else process.stderr.write(`shoutbox: ${line}\n`)
}

const LEVELS_WITH_WARN = new Set(['trace', 'debug', 'info', 'warn'])

async function main (): Promise<void> {
  let config: HostConfig
  try {
    config = loadConfig(process.argv.slice(2), process.env)
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message, 2)
    throw error
  }

  if (config.port !== 0) await probePort(config.port, config.host).catch(error => explainListenError(error, config.port))

  let app
  try {
    app = await buildApp({ config, logger: loggerOptions(config) })
  } catch (error) {
    if (error instanceof AddonLoadError) fail(error.message)
    // The address secret is looked for as the app is built (ADDRESS_SECRET, the data folder's file).
    if (error instanceof ConfigError) fail(error.message, 2)
    if (error instanceof DataDirInUse) fail(`${error.message}; stop it first, or give this one its own --data-dir`)
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === '28P01' || code === '3D000') {
      fail(`cannot reach the database at DATABASE_URL (${(error as Error).message})`)
    }
    throw error
  }
  const memoryWarning = config.databaseUrl === undefined ? embeddedMemoryWarning() : undefined
  if (memoryWarning !== undefined) app.log.warn(memoryWarning)

  try {
    await app.listen({ port: config.port, host: config.host })
  } catch (error) {
    await app.close()
    explainListenError(error, config.port)
  }

  await announceSetup(app, config)

  let stopping = false
  const stop = (signal: string): void => {
    if (stopping) return
    stopping = true
    app.log.info({ signal }, 'stopping: finishing requests in flight')
    setTimeout(() => fail(`did not stop within ${STOP_TIMEOUT_MS / 1000} s; exiting`), STOP_TIMEOUT_MS).unref()
    app.server.once('drained', (report: DrainReport) => app.log.info(report, 'stopped: every connection closed'))
    // Stop listening: the connections already in the listen queue are accepted and served,
    // one the kernel completes after that is refused (its client may safely retry
    // elsewhere), and those open are drained (DrainingServer).
    app.server.close()
    // From now on /api/health says stopping, and every answer closes its connection.
    app.addons.stopping = true
    app.close().then(() => process.exit(0), error => {
      app.log.error({ err: error }, 'error while stopping')
      process.exit(1)
    })
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
}

main().catch(error => {
  process.stderr.write(`shoutbox: could not start: ${(error as Error).stack ?? String(error)}\n`)
  process.exit(1)
})
