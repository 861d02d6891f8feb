import { readFileSync } from 'node:fs'
import type http from 'node:http'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import cookie from '@fastify/cookie'
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { HostConfig } from './config.js'
import { ADDON_LAYOUT } from './addons/layout.js'
import { checkRoutes, loadAddons, loadHostCode, type AddonSource } from './addons/loader.js'
import { openDatabase, type OpenDatabase } from './database/connect.js'
import { BODY_LIMIT, MAX_PARAM_LENGTH } from './http/endpoint-route.js'
import { DrainingServer } from './http/draining-server.js'
import { ConditionLog } from './http/error-handler.js'
import { answerClientError, refusedWithoutHost } from './http/early-answers.js'
import { registerPages } from './http/pages.js'
import { rewriteEntryUrl } from './http/panel-rewrite.js'
import { trustProxyFunction } from './http/proxies.js'
import { validatorCompiler } from './http/validation.js'
import { AddressKeys } from './identity/address-keys.js'
import { loadAddressSecret } from './identity/address-secret.js'
import type { ThrottleOptions } from './identity/login-throttle.js'
import type { HashingLimits, PasswordHasher } from './identity/passwords.js'
import { sessionCookieFor } from './identity/sessions.js'
import { safeLogging } from './logging.js'
import { activityPlugin } from './plugins/activity.js'
import { notificationsPlugin } from './plugins/notifications.js'
import { addonsPlugin } from './plugins/addons.js'
import { answerCachePlugin } from './plugins/answer-cache.js'
import { clusterPlugin } from './plugins/cluster.js'
import { databasePlugin } from './plugins/database.js'
import { endpointsPlugin } from './plugins/endpoints.js'
import { eventStreamsPlugin } from './plugins/event-streams.js'
import { heavyAnswersPlugin } from './plugins/heavy-answers.js'
import { eventsPlugin } from './plugins/events.js'
import { httpConventions, routerErrors } from './plugins/http-conventions.js'
import { i18nPlugin } from './plugins/i18n.js'
import { siteFacePlugin } from './plugins/site-face.js'
import { identityPlugin } from './plugins/identity.js'
import { metricsPlugin } from './plugins/metrics.js'
import { openApiPlugin } from './plugins/openapi.js'
import { webhooksPlugin } from './plugins/webhooks.js'
import { mailPlugin } from './plugins/mail.js'
import type { MailSenderOptions } from './mail/sender.js'
import type { SenderOptions } from './webhooks/sender.js'

/** The repository's own addon: `addon.json` and `lang/` at the root, code in `src/shoutbox/` (or `dist/shoutbox/`). */
export const BUILTIN_ADDONS: readonly AddonSource[] = [{
  dir: fileURLToPath(new URL('../../', import.meta.url)),
  codeDir: fileURLToPath(new URL('../shoutbox/', import.meta.url)),
  // Browser code is always bundled (npm run build, or before the tests).
  uiDir: fileURLToPath(new URL('../../dist/addon/shoutbox/ui/', import.meta.url)),
  builtin: true
}]

/** The host's own code: `endpoints/`, `migrations/` and `lang/` laid out as an addon's. */
export const HOST_DIR = fileURLToPath(new URL('./', import.meta.url))

/** The panel and theme, as `npm run build` bundles them. */
/** The platform's version (package.json, two folders up from src/host/ and dist/host/ alike). */
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version

const UI_DIR = fileURLToPath(new URL('../../dist/ui/', import.meta.url))

export interface BuildOptions {
  readonly config: HostConfig
  /** An open database (tests); otherwise opened from the config. */
  readonly database?: OpenDatabase
  readonly logger?: FastifyServerOptions['logger']
  readonly hasher?: PasswordHasher
  readonly throttle?: ThrottleOptions
  /** Password hashes at once and waiting, per process. */
  readonly hashing?: Partial<HashingLimits>
  readonly builtinAddons?: readonly AddonSource[]
  /** The folder of the host's own endpoints, migrations and strings (tests add endpoints to a copy). */
  readonly hostDir?: string
  readonly uiDir?: string
  readonly serverTimeouts?: ServerTimeouts
  /** The webhook sender's timings (tests shorten them). */
  readonly webhooks?: Partial<Omit<SenderOptions, 'allowPrivate'>>
  /** The mail sender's timings (tests shorten them). */
  readonly mail?: MailSenderOptions
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
  /** While stopping, how long an idle connection may still bring a request before it is closed. */
  readonly stopGraceMs?: number
}

const SERVER_TIMEOUTS: ServerTimeouts = { requestMs: 30_000, headersMs: 15_000, keepAliveMs: 10_000, idleSocketMs: 60_000, checkEveryMs: 2000, stopGraceMs: 1000 }

function createServer (timeouts: ServerTimeouts, listener: http.RequestListener): http.Server {
  const server = new DrainingServer({
    requestTimeout: timeouts.requestMs,
    headersTimeout: timeouts.headersMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionsCheckingInterval: timeouts.checkEveryMs,
    // A missing Host is refused in the envelope (refusedWithoutHost), not by Node's bare 400.
    requireHostHeader: false
  }, listener, timeouts.stopGraceMs ?? SERVER_TIMEOUTS.stopGraceMs!)
  server.setTimeout(timeouts.idleSocketMs)
  return server
}

/** Builds the host: every service, the host's endpoints and each enabled addon. Does not listen. */
export async function buildApp (options: BuildOptions): Promise<FastifyInstance> {
  const { config } = options
  const hostDir = options.hostDir ?? HOST_DIR
  // Phase one: the host's code and every addon read, validated and imported before anything is registered.
  const host = { ...await loadHostCode(hostDir), langDir: path.join(hostDir, ADDON_LAYOUT.lang) }
  const found = await loadAddons(config.addonsDir, options.builtinAddons ?? BUILTIN_ADDONS)
  checkRoutes(host, found)

  // Client addresses reach the database and the log only as HMACs under keys of the day.
  const addresses = new AddressKeys(await loadAddressSecret(config))
  const allowedOrigins = config.publicUrl === undefined ? config.allowedOrigins : [...config.allowedOrigins, config.publicUrl]
  // One record of the 503s this app answered, for its error handler and the router's refusals alike.
  const conditions = new ConditionLog()
  // Requests reach this listener only after listen(), by when the answer cache (and app.addons) exist.
  const app: FastifyInstance = Fastify({
    serverFactory: handler => createServer(options.serverTimeouts ?? SERVER_TIMEOUTS, (request, response) => {
      if (refusedWithoutHost(request, response)) return
      app.embedCors.apply(request, response)
      if (!app.answerCache.serve(request, response)) handler(request, response)
    }),
    logger: safeLogging(options.logger, config.logClientAddresses ? 'in clear' : addresses),
    logController: new LogController({ disableRequestLogging: !config.logRequests }),
    rewriteUrl: request => rewriteEntryUrl(request.url ?? '/'),
    bodyLimit: BODY_LIMIT,
    trustProxy: trustProxyFunction(config.trustProxy),
    // A request that reached us before a stop began is served, not refused; and no
    // connection is closed while a request may be on its way (DrainingServer drains them).
    return503OnClosing: false,
    forceCloseConnections: false,
    clientErrorHandler: answerClientError,
    frameworkErrors: routerErrors(allowedOrigins, () => app.addons.stopping, config.publicUrl, conditions),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    ajv: { customOptions: { coerceTypes: false } }
  })
  app.setValidatorCompiler(validatorCompiler)

  const database = options.database ?? await openDatabase({
    url: config.databaseUrl, schema: config.databaseSchema, dataDir: config.dataDir, poolSize: config.databasePoolSize, logger: {
      debug: message => app.log.debug(message), warn: message => app.log.warn(message), error: message => app.log.error(message)
    }
  })
  try {
    // Host-wide services, each a named plugin declaring what it needs.
    await app.register(databasePlugin, { database })
    await app.register(clusterPlugin)
    await app.register(eventsPlugin)
    await app.register(i18nPlugin)
    await app.register(siteFacePlugin)
    await app.register(metricsPlugin, { port: config.metricsPort })
    await app.register(activityPlugin)
    await app.register(notificationsPlugin)
    await app.register(identityPlugin, {
      addresses,
      setupToken: config.setupToken,
      ...(options.hasher === undefined ? {} : { passwords: options.hasher }),
      ...(options.throttle === undefined ? {} : { throttle: options.throttle }),
      ...(options.hashing === undefined ? {} : { hashing: options.hashing }),
      sessionCookie: sessionCookieFor(config.publicUrl),
      threadPoolSize: config.threadPoolSize
    })
    await app.register(webhooksPlugin, {
      allowHttp: config.webhooksAllowHttp,
      sender: { allowPrivate: config.webhooksAllowPrivate, ...options.webhooks }
    })
    await app.register(mailPlugin, { smtpUrl: config.smtpUrl, mailFrom: config.mailFrom, publicUrl: config.publicUrl, dev: config.dev, port: config.port, ...(options.mail === undefined ? {} : { sender: options.mail }) })
    await app.register(addonsPlugin, { found, host, publicUrl: config.publicUrl, uploadsDir: config.uploadsDir })
    await app.register(answerCachePlugin, { logRequests: config.logRequests })
    await app.register(eventStreamsPlugin, { limits: { perClient: config.streamsPerClient, total: config.maxStreams, opensPerMinute: config.streamOpensPerMinute } })
    await app.register(heavyAnswersPlugin)
    await app.register(cookie)
    await app.register(httpConventions, { allowedOrigins, embedOrigins: config.embedOrigins, publicUrl: config.publicUrl, conditions })
    // Before any endpoint: the document is made from the routes as they are registered.
    await app.register(openApiPlugin, { version: VERSION })
    // Phase two: the host's endpoints, then each enabled addon in its own encapsulated context.
    await app.register(endpointsPlugin)
    await registerPages(app, options.uiDir ?? UI_DIR)
  } catch (error) {
    if (app.hasDecorator('cluster')) await app.cluster.stop()
    await database.knex.destroy().catch(() => {})
    throw error
  }
  return app
}
