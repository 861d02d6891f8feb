import fs from 'node:fs'

/**
 * The flags `npm start` gives node before `dist/host/server.js` (package.json's `start`
 * script), so tests and benches start the host as a site does.
 */
export const START_FLAGS: readonly string[] = (() => {
  const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }
  const match = /^node ((?:--[\w-]+(?:=\S+)? )*)dist\/host\/server\.js$/.exec(pkg.scripts.start)
  if (match === null) throw new Error(`package.json's start script is not "node [--flag ...] dist/host/server.js": ${pkg.scripts.start}`)
  return match[1]!.split(' ').filter(flag => flag !== '')
})()
