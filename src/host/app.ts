import http from 'node:http'
import type { Duplex } from 'node:stream'
import { fileURLToPath } from 'node:url'
import cookie from '@fastify/cookie'
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { HostConfig } from './config.js'
import { loadAddons, type AddonSource } from './addons/loader.js'
import { openDatabase, type Database } from './database/connect.js'
import { BODY_LIMIT, registerEndpoint } from './http/endpoint-route.js'
import { registerPages } from './http/pages.js'
import { rewritePanelUrl } from './http/panel-rewrite.js'
import { validatorCompiler } from './http/validation.js'
import type { ThrottlePolicy } from './identity/login-throttle.js'
import type { PasswordHasher } from './identity/passwords.js'
import { Platform } from './platform.js'
import { hostEndpointsPlugin } from './plugins/host-endpoints.js'
import { httpConventions } from './plugins/http-conventions.js'
import { platformPlugin } from './plugins/platform.js'

/** The repository's own addon: `addon.json` and `lang/` at the root, code in `src/shoutbox/` (or `dist/shoutbox/`). */
export const BUILTIN_ADDONS: readonly AddonSource[] = [{
  dir: fileURLToPath(new URL('../../', import.meta.url)),
  codeDir: fileURLToPath(new URL('../shoutbox/', import.meta.url)),
  // Browser code is always bundled (npm run build, or before the tests).
  uiDir: fileURLToPath(new URL('../../dist/addon/shoutbox/ui/', import.meta.url)),
  builtin: true
}]

/** The panel and theme, as `npm run build` bundles them. */
export const UI_DIR = fileURLToPath(new URL('../../dist/ui/', import.meta.url))

export interface BuildOptions {
  readonly config: HostConfig
  /** An open database (tests); otherwise opened from the config. */
  readonly database?: Database
  readonly logger?: FastifyServerOptions['logger']
  readonly hasher?: PasswordHasher
  readonly throttle?: ThrottlePolicy
  readonly builtinAddons?: readonly AddonSource[]
  readonly uiDir?: string
  readonly serverTimeouts?: ServerTimeouts
}

export interface ServerTimeouts {
  /** The whole request must arrive within this (slow-body clients). */
  readonly requestMs: number
  /** Its headers within this (slowloris). */
  readonly headersMs: number
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveMs: number
  /** A socket silent this long is closed (event streams send a comment every 15 s). */
  readonly idleSocketMs: number
  /** How often Node looks for requests past their time (its default, 30 s, would let them linger). */
  readonly checkEveryMs: number
}

export const SERVER_TIMEOUTS: ServerTimeouts = { requestMs: 30_000, headersMs: 15_000, keepAliveMs: 10_000, idleSocketMs: 60_000, checkEveryMs: 2000 }

function createServer (timeouts: ServerTimeouts, listener: http.RequestListener): http.Server {
  const server = http.createServer({
    requestTimeout: timeouts.requestMs,
    headersTimeout: timeouts.headersMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionsCheckingInterval: timeouts.checkEveryMs
  }, listener)
  server.setTimeout(timeouts.idleSocketMs)
  return server
}

/** Bytes Node could not parse as HTTP get an answer in the envelope too, then the socket closes. */
function answerClientError (error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy()
    return
  }
  const [status, reason, code] = error.code === 'HPE_HEADER_OVERFLOW'
    ? [431, 'Request Header Fields Too Large', 'BAD_REQUEST']
    : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'Request Timeout', 'REQUEST_TIMEOUT'] : [400, 'Bad Request', 'BAD_REQUEST']
  const body = JSON.stringify({ result: 'error', error: code })
  socket.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${body.length}\r\n` +
    `x-content-type-options: nosniff\r\nconnection: close\r\n\r\n${body}`)
}

/** Builds the host: every service, the host's endpoints and each enabled addon. Does not listen. */
export async function buildApp (options: BuildOptions): Promise<FastifyInstance> {
  const { config } = options
  // Phase one: every addon read, validated and imported before anything is registered.
  const addons = await loadAddons(config.addonsDir, options.builtinAddons ?? BUILTIN_ADDONS)

  // Fastify gets the server late (the platform needs the logger); requests reach this
  // listener only after listen(), by when both are set.
  let memory: Platform['answers'] | undefined
  const app = Fastify({
    serverFactory: handler => createServer(options.serverTimeouts ?? SERVER_TIMEOUTS, (request, response) => {
      if (memory?.serve(request, response) !== true) handler(request, response)
    }),
    logger: options.logger ?? false,
    logController: new LogController({ disableRequestLogging: !config.logRequests }),
    rewriteUrl: request => rewritePanelUrl(request.url ?? '/'),
    bodyLimit: BODY_LIMIT,
    trustProxy: config.trustProxy === 0 ? false : (_address: string, hop: number) => hop < config.trustProxy,
    // A request that reached us before a stop began is served, not refused.
    return503OnClosing: false,
    clientErrorHandler: answerClientError,
    routerOptions: { maxParamLength: 200 },
    ajv: { customOptions: { coerceTypes: false } }
  })
  app.setValidatorCompiler(validatorCompiler)

  const database = options.database ?? await openDatabase({ url: config.databaseUrl, schema: config.databaseSchema, dataDir: config.dataDir, poolSize: config.databasePoolSize })
  const platform = new Platform({
    database,
    log: app.log,
    addons,
    hostLangDir: fileURLToPath(new URL('./lang/', import.meta.url)),
    ...(options.hasher === undefined ? {} : { hasher: options.hasher }),
    ...(options.throttle === undefined ? {} : { throttle: options.throttle })
  })
  try {
    await platform.init()
  } catch (error) {
    await database.knex.destroy().catch(() => {})
    throw error
  }
  // With request logging on (--dev) every request goes through Fastify, so each is logged.
  if (!config.logRequests) memory = platform.answers

  await app.register(platformPlugin, { platform })
  await app.register(cookie)
  await app.register(httpConventions, { allowedOrigins: config.allowedOrigins })
  await app.register(hostEndpointsPlugin)
  await registerPages(app, platform, options.uiDir ?? UI_DIR)

  // Phase two: each enabled addon in its own encapsulated context.
  for (const runtime of platform.runtimes.values()) {
    await app.register(async scope => {
      // Called on the addon's scope itself (not registered as a child) so its hooks cover its routes.
      await runtime.addon.definition.plugin?.(scope, {})
      const owner = { ctx: runtime.ctx, isReady: () => runtime.state === 'started' }
      for (const { instance } of runtime.addon.endpoints) registerEndpoint(scope, instance, owner, platform)
    })
  }
  return app
}
