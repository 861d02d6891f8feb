/**
 * The API reference at /docs/api: reads /api/openapi.json from this site and draws every
 * operation (its access class, parameters, body, answer with its example, error codes).
 * No library and no other site: it works offline and under the pages' CSP.
 */
import { h } from '../../../sdk/ui.js'

type Schema = Record<string, unknown> & {
  type?: string | string[]
  properties?: Record<string, Schema>
  required?: string[]
  items?: Schema
  anyOf?: Schema[]
  enum?: unknown[]
  const?: unknown
  description?: string
  examples?: unknown[]
}

interface Parameter { name: string, in: string, required?: boolean, schema?: Schema, description?: string }
interface MediaType { schema?: Schema, example?: unknown, examples?: Record<string, { value: unknown }> }
interface Response { description?: string, content?: Record<string, MediaType> }
interface Operation {
  operationId?: string
  summary?: string
  tags?: string[]
  security?: Array<Record<string, string[]>>
  'x-access-class'?: string
  parameters?: Parameter[]
  requestBody?: { content?: Record<string, MediaType> }
  responses?: Record<string, Response>
}
interface Document {
  info: { title: string, version: string, description?: string }
  paths: Record<string, Record<string, Operation>>
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete']
const ACCESS: Record<string, string> = {
  Api: 'public (after setup)',
  LoggedInApi: 'signed in (session cookie)',
  PanelApi: 'signed in with panel.access (session cookie)',
  SetupApi: 'only before setup is finished'
}

const app = document.getElementById('app')!

async function start (): Promise<void> {
  let doc: Document
  try {
    const response = await fetch('/api/openapi.json')
    if (!response.ok) throw new Error(`HTTP ${response.status}`)
    doc = await response.json() as Document
  } catch (error) {
    app.replaceChildren(h('p', { class: 'error' }, `The API document could not be read: ${String(error)}`))
    return
  }
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter(method => item[method] !== undefined).map(method => ({ path, method, op: item[method]! })))
  const tags = [...new Set(operations.map(o => o.op.tags?.[0] ?? 'other'))]
  const anchor = (o: { path: string, method: string }): string => `${o.method}-${o.path}`.replace(/[^A-Za-z0-9]+/g, '-')
  document.title = `${doc.info.title} API ${doc.info.version}`
  app.replaceChildren(
    h('h1', {}, `${doc.info.title} API `, h('span', { class: 'note' }, doc.info.version)),
    h('p', { class: 'intro' }, ...withCode(doc.info.description ?? '')),
    h('nav', { class: 'toc', 'aria-label': 'Operations' }, ...operations.map(o =>
      h('a', { href: `#${anchor(o)}` }, h('span', { class: `method ${o.method}` }, o.method.toUpperCase()), ' ', h('span', { class: 'path' }, o.path)))),
    ...tags.flatMap(tag => [
      h('h2', { class: 'tag' }, tag === 'host' ? 'Host' : `Addon: ${tag}`),
      ...operations.filter(o => (o.op.tags?.[0] ?? 'other') === tag).map(o => operation(o.path, o.method, o.op, anchor(o)))
    ]))
  if (location.hash !== '') document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView()
}

function operation (path: string, method: string, op: Operation, id: string): HTMLElement {
  const access = op['x-access-class'] ?? ''
  const parts: HTMLElement[] = [
    h('h3', {}, h('span', { class: `method ${method}` }, method.toUpperCase()), h('span', { class: 'path' }, path),
      h('span', { class: 'badge', title: ACCESS[access] ?? '' }, access), h('span', { class: 'note' }, op.summary ?? ''))
  ]
  parts.push(h('p', { class: 'note' }, `Who may call it: ${ACCESS[access] ?? access}.`))
  if (op.parameters !== undefined && op.parameters.length > 0) {
    parts.push(h('h4', {}, 'Parameters'), h('ul', { class: 'schema' }, ...op.parameters.map(p =>
      h('li', {}, h('span', { class: 'name' }, p.name), ` (${p.in}${p.required === true ? ', required' : ''}) `, describe(p.schema ?? {})))))
  }
  const body = op.requestBody?.content?.['application/json']?.schema
  if (body !== undefined) parts.push(h('h4', {}, 'Body (application/json)'), describe(body))
  const responses = op.responses ?? {}
  for (const [status, response] of Object.entries(responses)) {
    if (!status.startsWith('2') && status !== '304') continue
    const [type, media] = Object.entries(response.content ?? {})[0] ?? []
    parts.push(h('h4', {}, `Answer ${status}${type === undefined ? '' : ` (${type})`}`))
    if (response.description !== undefined) parts.push(h('p', { class: 'note' }, response.description))
    if (media?.schema !== undefined) parts.push(describe(media.schema))
    const example = media === undefined ? undefined : exampleOf(media)
    if (example !== undefined) parts.push(h('pre', {}, typeof example === 'string' ? example : JSON.stringify(example, null, 2)))
  }
  const errors = Object.entries(responses).filter(([status]) => /^[45]/.test(status))
  if (errors.length > 0) {
    parts.push(h('h4', {}, 'Errors (the error envelope)'), h('table', { class: 'errors' },
      h('tr', {}, h('th', {}, 'status'), h('th', {}, 'codes')),
      ...errors.map(([status, response]) => {
        const schema = Object.values(response.content ?? {})[0]?.schema
        const codes = (schema?.properties?.error?.enum as string[] | undefined) ?? [response.description ?? '']
        return h('tr', {}, h('td', {}, status), h('td', {}, codes.join(', ')))
      })))
  }
  return h('section', { class: 'op', id }, ...parts)
}

function exampleOf (media: MediaType): unknown {
  if (media.example !== undefined) return media.example
  const named = Object.values(media.examples ?? {})[0]
  if (named !== undefined) return named.value
  return media.schema?.examples?.[0]
}

/** A schema as a short type, with an object's properties as a nested list. */
function describe (schema: Schema): HTMLElement {
  const line = h('span', {}, h('span', { class: 'type' }, typeName(schema)))
  const notes = constraints(schema)
  if (notes !== '') line.append(' ', h('span', { class: 'note' }, notes))
  if (typeof schema.description === 'string') line.append(' — ', h('span', { class: 'note' }, schema.description))
  const object = schema.properties !== undefined ? schema : schema.items?.properties !== undefined ? schema.items : undefined
  if (object?.properties === undefined) return line
  const required = new Set(object.required ?? [])
  return h('div', {}, line, h('ul', { class: 'schema' }, ...Object.entries(object.properties).map(([name, property]) =>
    h('li', {}, h('span', { class: 'name' }, name), required.has(name) ? '' : h('span', { class: 'note' }, ' (optional)'), ': ', describe(property)))))
}

function typeName (schema: Schema): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const)
  if (schema.enum !== undefined) return schema.enum.map(value => JSON.stringify(value)).join(' | ')
  if (schema.anyOf !== undefined) return schema.anyOf.map(typeName).join(' | ')
  if (schema.type === 'array') return `${schema.items === undefined ? 'any' : typeName(schema.items)}[]`
  if (Array.isArray(schema.type)) return schema.type.join(' | ')
  return schema.type ?? 'any'
}

function constraints (schema: Schema): string {
  const notes: string[] = []
  const range = (low: unknown, high: unknown, unit: string): void => {
    if (low !== undefined && high !== undefined) notes.push(`${String(low)}–${String(high)}${unit}`)
    else if (low !== undefined) notes.push(`≥ ${String(low)}${unit}`)
    else if (high !== undefined) notes.push(`≤ ${String(high)}${unit}`)
  }
  range(schema.minLength, schema.maxLength, ' characters')
  range(schema.minimum, schema.maximum, '')
  range(schema.minItems, schema.maxItems, ' items')
  if (typeof schema.pattern === 'string') notes.push(`pattern ${schema.pattern}`)
  if (schema.default !== undefined) notes.push(`default ${JSON.stringify(schema.default)}`)
  if (schema.minProperties !== undefined) notes.push(`at least ${String(schema.minProperties)} of these`)
  return notes.join(', ')
}

void start()

/** Text with `backticked` parts as code elements (as text nodes, never parsed as HTML). */
function withCode (text: string): Array<string | HTMLElement> {
  return text.split(/(`[^`]+`)/).filter(part => part !== '').map(part => /^`[^`]+`$/.test(part) ? h('code', {}, part.slice(1, -1)) : part)
}
