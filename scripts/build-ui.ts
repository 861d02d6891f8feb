/**
 * The browser side: the host's panel and theme bundled into dist/ui/, and the Shoutbox
 * addon packaged (its server code and its ui/) into dist/addon/shoutbox/. esbuild only,
 * so it is quick enough to run before every test run.
 */
import fs from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { packageAddon } from './package-addon.js'

const root = fileURLToPath(new URL('../', import.meta.url))

/** Builds into `dist` (dist/ by default): its ui/ and addon/shoutbox/. */
export async function buildUi (dist = path.join(root, 'dist')): Promise<void> {
  const out = path.join(dist, 'ui')
  await fs.rm(out, { recursive: true, force: true })
  await build({
    entryPoints: [path.join(root, 'src/host/ui/panel/main.ts')],
    outfile: path.join(out, 'panel/panel.js'),
    bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, sourcemap: 'linked', logLevel: 'error'
  })
  for (const file of ['index.html', 'panel.css']) await fs.copyFile(path.join(root, 'src/host/ui/panel', file), path.join(out, 'panel', file))
  await fs.cp(path.join(root, 'src/host/ui/theme'), path.join(out, 'theme'), { recursive: true })
  // The API reference at /docs/api, drawn from /api/openapi.json by its own small script.
  await build({
    entryPoints: [path.join(root, 'src/host/ui/docs/docs.ts')],
    outfile: path.join(out, 'docs/docs.js'),
    bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, sourcemap: 'linked', logLevel: 'error'
  })
  for (const file of ['index.html', 'docs.css']) await fs.copyFile(path.join(root, 'src/host/ui/docs', file), path.join(out, 'docs', file))
  // The theme's account area (sign in, sign up, sign out on the home page), and the privacy page's table.
  for (const name of ['account', 'privacy', 'password-reset', 'email-change', 'verify-email', 'unsubscribe']) {
    await build({
      entryPoints: [path.join(root, `src/host/ui/site/${name}.ts`)],
      outfile: path.join(out, `theme/${name}.js`),
      bundle: true, format: 'esm', platform: 'browser', target: 'es2022', minify: true, sourcemap: 'linked', logLevel: 'error'
    })
  }
  await packageAddon({ addonDir: root, codeDir: path.join(root, 'src/shoutbox'), outDir: path.join(dist, 'addon/shoutbox') })
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  await buildUi()
  process.stdout.write('built dist/ui/ and dist/addon/shoutbox/\n')
}
