/**
 * Another site that shows the board: a page with the one tag a site owner adds,
 *
 *   <script src="https://board.example.org/embed.js" data-room="general" async></script>
 *
 * served from an origin of its own. The board lets that origin read it when it is listed
 * in the board's EMBED_ORIGINS:
 *
 *   EMBED_ORIGINS=http://localhost:8080 npm start                  (the board, on :8088)
 *   BOARD_URL=http://127.0.0.1:8088 PORT=8080 node examples/embed-demo.mjs
 *
 * then open http://localhost:8080/. Plain Node, no dependencies.
 */
import http from 'node:http'
import process from 'node:process'
import { pathToFileURL } from 'node:url'

/** Text made safe to place in HTML (an attribute or an element's content). */
const escape = text => String(text).replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`)

/**
 * The demo site's one page, with the board's tag in its sidebar.
 *
 * @param {object} options
 * @param {string} options.board the board's address, e.g. `https://board.example.org`
 * @param {string} [options.room] the room to show (the default room when absent)
 * @returns {string}
 */
export function demoPage ({ board, room = 'general' }) {
  const src = new URL('/embed.js', board).href
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>The Gardening Club</title>
  <style>
    body { margin: 0; font: 16px/1.5 Georgia, serif; background: #f4f1ea; color: #2b2b2b; }
    header { background: #3f5d3a; color: #fff; padding: 1rem 1.5rem; }
    main { display: grid; grid-template-columns: minmax(0, 2fr) minmax(16rem, 1fr); gap: 1.5rem; max-width: 64rem; margin: 1.5rem auto; padding: 0 1rem; }
    @media (max-width: 40rem) { main { grid-template-columns: 1fr; } }
    /* The board's look, restyled through its custom properties. */
    .shoutbox-embed { --shoutbox-accent: #3f5d3a; }
  </style>
</head>
<body>
  <header><h1>The Gardening Club</h1></header>
  <main>
    <article>
      <h2>Planting garlic in late autumn</h2>
      <p>Break the bulbs into cloves a day before planting, and set each one pointed end up, two inches deep.</p>
    </article>
    <aside aria-label="What members are saying">
      <script src="${escape(src)}" data-room="${escape(room)}" async></script>
    </aside>
  </main>
</body>
</html>
`
}

/**
 * The demo site: a `node:http` Server, not listening yet (call `.listen()`). `/?room=<slug>`
 * shows another room.
 *
 * @param {{ board: string, room?: string }} options as for demoPage
 * @returns {http.Server}
 */
export function createDemoSite (options) {
  return http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://demo')
    if (request.method !== 'GET' || url.pathname !== '/') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n')
      return
    }
    // `/?room=games` shows another room.
    const room = url.searchParams.get('room') ?? options.room
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(demoPage({ ...options, room }))
  })
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const board = process.env.BOARD_URL ?? 'http://127.0.0.1:8088'
  const port = Number(process.env.PORT ?? 8080)
  createDemoSite({ board, room: process.env.ROOM }).listen(port, () => {
    process.stdout.write(`The Gardening Club on http://localhost:${port}/, showing ${board}'s board (list http://localhost:${port} in its EMBED_ORIGINS)\n`)
  })
}
