import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

/** The README stays a newcomer's page, and every link between the documents leads somewhere. */

const root = fileURLToPath(new URL('../', import.meta.url))
const documents = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter(name => name.endsWith('.md')).map(name => `docs/${name}`)]
const read = (file: string): string => fs.readFileSync(path.join(root, file), 'utf8')

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string): string => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-')
const anchors = new Map(documents.map(file => [file, new Set([...read(file).matchAll(/^#+ (.*)$/gm)].map(match => anchorOf(match[1]!)))]))

t.test('README.md is at most 20,000 bytes', async t => {
  const size = fs.statSync(path.join(root, 'README.md')).size
  t.ok(size <= 20_000, `README.md is ${size} bytes`)
})

t.test('.env.example names every variable src/host/config.ts reads, as `# NAME=`', async t => {
  const read = new Set([...fs.readFileSync(path.join(root, 'src/host/config.ts'), 'utf8').matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)].map(match => match[1]!))
  const example = fs.readFileSync(path.join(root, '.env.example'), 'utf8')
  t.ok(read.size >= 20, `${read.size} variables read`)
  t.same([...read].filter(name => !new RegExp(`^# ${name}=`, 'm').test(example)), [], 'none missing')
})

t.test('the README names each installed package whose engines leave out Node 20 (npm\'s EBADENGINE warnings)', async t => {
  const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { engines?: { node?: string }, dev?: boolean }> }
  // Those asking for Node 21 or later only: `>=22`, `^22 || ^24` and the like.
  const notOn20 = Object.entries(lock.packages)
    .filter(([name, entry]) => name !== '' && entry.dev !== true && /^\s*(>=\s*2[1-9]|\^2[1-9])/.test(entry.engines?.node ?? '') && !/\b20\b/.test(entry.engines?.node ?? ''))
    .map(([name]) => name.slice(name.lastIndexOf('node_modules/') + 'node_modules/'.length))
  const requirements = /\*\*Requirements:\*\*[^\n]*(\n[^\n]+)*/.exec(fs.readFileSync(path.join(root, 'README.md'), 'utf8'))?.[0] ?? ''
  t.ok(notOn20.length > 0, `found: ${notOn20.join(', ')}`)
  t.same([...new Set(notOn20)].filter(name => !requirements.includes(`\`${name}\``)), [], 'each named in the README\'s requirements')
})

t.test('every relative link in README.md and docs/ leads to a file, and to a heading in it', async t => {
  const broken: string[] = []
  let links = 0
  for (const file of documents) {
    for (const [, link] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(link!)) continue
      links++
      const [target, anchor] = link!.split('#') as [string, string | undefined]
      const resolved = target === '' ? file : path.normalize(path.join(path.dirname(file), target))
      if (!fs.existsSync(path.join(root, resolved))) broken.push(`${file}: ${link} (no such file)`)
      else if (anchor !== undefined && resolved.endsWith('.md') && anchors.get(resolved)?.has(anchor) !== true) broken.push(`${file}: ${link} (no such heading)`)
    }
  }
  t.ok(links > 50, `${links} links read`)
  t.same(broken, [])
})

t.test('no source file cites a document outside the repository', async t => {
  const citing = (fs.readdirSync(path.join(root, 'src'), { recursive: true }) as string[])
    .filter(file => file.endsWith('.ts') && /CONTRACT|§/.test(fs.readFileSync(path.join(root, 'src', file), 'utf8')))
  t.same(citing, [])
})
