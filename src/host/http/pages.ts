import fs from 'node:fs/promises'
import path from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { accentStyleSheet } from '../site-face/accent.js'
import { FACE_STYLESHEET, renderPage } from '../site-face/render.js'

/**
 * Pages may run only their own scripts and styles (no inline script, so injected markup
 * cannot run), talk only to this site, and never be framed by another site.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data: blob:", "connect-src 'self'",
  "font-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'"
].join('; ')

function pageHeaders (reply: FastifyReply): void {
  void reply.headers({
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
    'cache-control': 'no-cache'
  })
}

/**
 * The theme's pages: the home page, the shout archive and each shout's own page (their
 * content comes from the Shoutbox's browser modules, as the home page's widget does), and
 * the privacy page (drawn from `GET /api/privacy`).
 */
const THEME_PAGES = [
  ['/', 'index.html'],
  ['/shouts', 'shouts.html'],
  ['/shouts/:id(^[0-9]{1,15}$)', 'shout.html'],
  ['/privacy', 'privacy.html'],
  ['/password-reset', 'password-reset.html'],
  ['/email-change', 'email-change.html'],
  ['/verify-email', 'verify-email.html'],
  ['/unsubscribe', 'unsubscribe.html']
] as const

/**
 * The script other sites include to show the board (`<script src="{base}/embed.js">`):
 * an addon's `ui/embed.js` (Shoutbox's, from ui/classic/embed.ts), the first one found.
 */
const EMBED_SCRIPT = 'embed.js'

async function isDirectory (dir: string): Promise<boolean> {
  return fs.stat(dir).then(s => s.isDirectory(), () => false)
}

/**
 * The panel at /panel/, the theme's pages (THEME_PAGES), the API reference at /docs/api,
 * each running addon's browser files at /addons/<id>/ui/, and /embed.js. Files only: no
 * directory listings, no path outside the root.
 */
export async function registerPages (app: FastifyInstance, uiDir: string): Promise<void> {
  const panelDir = path.join(uiDir, 'panel')
  const themeDir = path.join(uiDir, 'theme')
  const docsDir = path.join(uiDir, 'docs')
  if (!await isDirectory(panelDir)) {
    app.log.warn(`no panel or theme pages at ${uiDir}: run npm run build`)
  } else {
    const panelPage = await fs.readFile(path.join(panelDir, 'index.html'), 'utf8')
    // The panel's page is drawn per reader (its language, the site's strings); its scripts and styles are files.
    for (const url of ['/panel/', '/panel/index.html']) {
      app.get(url, async (request, reply) => {
        pageHeaders(reply)
        return reply.type('text/html; charset=utf-8').header('vary', 'accept-language, cookie').send(await renderPage(app, request, panelPage))
      })
    }
    await app.register(fastifyStatic, { root: panelDir, prefix: '/panel/', setHeaders: pageHeaders, decorateReply: false, index: false })
    app.get('/panel', (_request, reply) => reply.redirect('/panel/'))
    app.get(FACE_STYLESHEET, async (_request, reply) => reply
      .headers({ 'content-type': 'text/css; charset=utf-8', 'cache-control': 'no-cache' })
      .send(accentStyleSheet((await app.siteFace.current()).palette)))
    await app.register(fastifyStatic, { root: themeDir, prefix: '/theme/', setHeaders: pageHeaders, decorateReply: false, index: false })
    for (const [url, file] of THEME_PAGES) {
      const template = await fs.readFile(path.join(themeDir, file), 'utf8')
      app.get(url, async (request, reply) => {
        pageHeaders(reply)
        return reply.type('text/html; charset=utf-8').header('vary', 'accept-language, cookie').send(await renderPage(app, request, template))
      })
    }
    await app.register(fastifyStatic, { root: docsDir, prefix: '/docs/', setHeaders: pageHeaders, decorateReply: false, index: false })
    const reference = await fs.readFile(path.join(docsDir, 'index.html'))
    app.get('/docs/api', (_request, reply) => {
      pageHeaders(reply)
      return reply.type('text/html; charset=utf-8').send(reference)
    })
  }
  let embedScript: Buffer | undefined
  for (const runtime of app.addons.runtimes.values()) {
    const dir = runtime.addon.source.uiDir
    if (!await isDirectory(dir)) continue
    embedScript ??= await fs.readFile(path.join(dir, EMBED_SCRIPT)).catch(() => undefined)
    await app.register(fastifyStatic, {
      root: dir, prefix: `/addons/${runtime.id}/ui/`, setHeaders: pageHeaders, decorateReply: false, index: false
    })
  }
  if (embedScript !== undefined) {
    const script = embedScript
    app.get(`/${EMBED_SCRIPT}`, (_request, reply) => reply
      .headers({ 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache', 'cross-origin-resource-policy': 'cross-origin' })
      .send(script))
  }
}
