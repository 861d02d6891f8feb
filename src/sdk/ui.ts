/**
 * The browser side of the SDK: what an addon's panel module receives from the host's
 * panel, and small helpers that keep every piece of user text as text (never HTML).
 * An addon's `ui/panel.ts` default-exports a function taking a PanelHost.
 */

import { formatMessage } from './message-format.js'

export interface PanelUser {
  readonly id: number
  readonly username: string
  readonly role: { readonly id: number, readonly name: string }
  readonly permissions: readonly string[]
}

export interface ApiAnswer {
  readonly ok: boolean
  readonly status: number
  // The envelope of the answer; `undefined` when the server could not be reached.
  readonly body: Record<string, unknown> | undefined
}

export interface PanelPage {
  /** Part of the address: `/panel/#/<addon>/<id>`. */
  readonly id: string
  readonly title: string
  /** The permission node a user needs to see it. */
  readonly permission: string
  /** Draws the page into `root`; may return a function run when the page is left. */
  render (root: HTMLElement): void | (() => void)
}

export interface PanelHost {
  readonly user: PanelUser
  readonly locale: string
  /** As the server decides: admins hold every permission. */
  can (node: string): boolean
  /** Calls the API under `/panel/api/…` or `/api/…`; never throws. */
  api (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<ApiAnswer>
  /** The panel's sentence for an error answer, in the panel's language. */
  errorText (answer: ApiAnswer, addonStrings?: (key: string, values?: Record<string, unknown>) => string | undefined): string
  addPage (page: PanelPage): void
  /** Adds a section to the panel's overview page (the first page), shown to holders of its permission. */
  addOverview (section: OverviewSection): void
  /** Adds a question the setup wizard asks right after the first administrator is made. */
  addSetupStep (step: SetupStep): void
}

/**
 * A question of the setup wizard's, asked once, right after setup (the administrator is
 * signed in by then): an addon's first settings, with a good answer filled in.
 */
export interface SetupStep {
  readonly title: string
  /** The permission node a user needs to answer it. */
  readonly permission: string
  /** Draws the step into `root`; calls `done` once it is answered. */
  render (root: HTMLElement, done: () => void): void
}

/** An addon's part of the overview page: its figures, drawn by itself. */
export interface OverviewSection {
  readonly title: string
  /** The permission node a user needs to see it. */
  readonly permission: string
  /** Draws the section into `root` (a card); may return a function run when the page is left. */
  render (root: HTMLElement): void | (() => void)
}

/**
 * A bar chart drawn here (no library): an SVG with one bar per value, the largest reaching
 * the top, each with a `<title>` (its label and value) for pointers and screen readers;
 * the first, middle and last labels and the largest value are text under it, so they stay
 * readable at any width.
 */
export function barChart (bars: ReadonlyArray<{ readonly label: string, readonly value: number }>, options: { readonly title: string, readonly height?: number }): HTMLElement {
  const NS = 'http://www.w3.org/2000/svg'
  const svg = (tag: string, attributes: Record<string, string | number>): SVGElement => {
    const element = document.createElementNS(NS, tag)
    for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value))
    return element
  }
  const width = 600
  const height = options.height ?? 150
  const max = Math.max(1, ...bars.map(bar => bar.value))
  const step = width / Math.max(1, bars.length)
  const chart = svg('svg', { viewBox: `0 0 ${width} ${height + 1}`, role: 'img', class: 'chart', preserveAspectRatio: 'none', 'aria-label': options.title })
  const title = svg('title', {})
  title.textContent = options.title
  chart.append(title, svg('line', { x1: 0, y1: height + 0.5, x2: width, y2: height + 0.5, class: 'chart-axis' }))
  bars.forEach((bar, i) => {
    const barHeight = Math.round((bar.value / max) * height)
    const rect = svg('rect', { x: i * step + step * 0.15, y: height - barHeight, width: step * 0.7, height: barHeight, class: 'chart-bar' })
    const tip = svg('title', {})
    tip.textContent = `${bar.label}: ${bar.value}`
    rect.append(tip)
    chart.append(rect)
  })
  const labels = [...new Set([0, Math.floor((bars.length - 1) / 2), bars.length - 1])].map(i => bars[i]?.label ?? '')
  const highest = bars.find(bar => bar.value === max)
  return h('div', { class: 'chart-box' },
    highest === undefined || highest.value === 0 ? null : h('div', { class: 'chart-max' }, `${highest.value}`),
    chart,
    h('div', { class: 'chart-labels' }, ...labels.map(label => h('span', {}, label))))
}

export type PanelModule = (panel: PanelHost) => void

type Child = Node | string | number | null | undefined | false

/**
 * Builds an element. Text children become text nodes, so markup in user text is shown
 * as typed. Properties starting with `on` are listeners; the rest are attributes.
 */
export function h (tag: string, props: Record<string, unknown> = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag)
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2).toLowerCase(), value as EventListener)
    } else if (value === true) {
      element.setAttribute(name, '')
    } else {
      element.setAttribute(name, String(value))
    }
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    element.append(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child)
  }
  return element
}

export type Strings = Readonly<Record<string, Readonly<Record<string, string>>>>

/** `t(key, values)` over `{ en: {...}, tr: {...} }` (see `formatMessage`), English fallback, the key itself last. */
export function translator (strings: Strings, locale: string) {
  const lookup = (key: string): string | undefined => strings[locale]?.[key] ?? strings.en?.[key]
  // An English fallback is read with English plural rules.
  const t = (key: string, values: Record<string, unknown> = {}): string =>
    formatMessage(lookup(key) ?? key, values, strings[locale]?.[key] === undefined ? 'en' : locale)
  return Object.assign(t, { has: (key: string) => lookup(key) !== undefined })
}

/**
 * The strings of `owner` the page was drawn with: the server puts each owner's strings in
 * the reader's language into the page, as `<script type="application/json" data-strings>`
 * (English is bundled into each script, so an English page carries none).
 */
export function pageStrings (owner: string): { locale: string, strings: Record<string, string> } | undefined {
  if (typeof document === 'undefined') return undefined
  const block = document.querySelector<HTMLScriptElement>(`script[type="application/json"][data-strings="${owner}"]`)
  if (block === null) return undefined
  try {
    const strings = JSON.parse(block.textContent ?? '') as Record<string, string>
    return { locale: block.dataset.locale ?? document.documentElement.lang, strings }
  } catch {
    return undefined
  }
}

/** The page's language, as the server drew it (`<html lang>`); English where it says none. */
export function pageLocale (): string {
  return typeof document === 'undefined' ? 'en' : document.documentElement.lang || 'en'
}

/**
 * An owner's translator for this page: its bundled English, and the page's language as
 * the server carried it in (`pageStrings`).
 */
export function pageTranslator (owner: string, english: Readonly<Record<string, string>>) {
  const carried = pageStrings(owner)
  const locale = carried?.locale ?? 'en'
  return translator(carried === undefined ? { en: english } : { en: english, [locale]: carried.strings }, locale)
}

/** "3 minutes ago", in the reader's language. */
export function relativeTime (ms: number, locale: string, now = Date.now()): string {
  const seconds = Math.round((ms - now) / 1000)
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' })
  const units: Array<[Intl.RelativeTimeFormatUnit, number]> = [['year', 31_536_000], ['month', 2_592_000], ['week', 604_800], ['day', 86_400], ['hour', 3600], ['minute', 60]]
  for (const [unit, size] of units) if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit)
  return format.format(seconds, 'second')
}

let nextId = 0

/** A labelled form control: the label names the control for screen readers. */
export function field (label: string, control: HTMLElement, hint?: string): HTMLElement {
  const id = control.id !== '' ? control.id : `f${++nextId}`
  control.id = id
  const hintId = hint === undefined ? undefined : `${id}-hint`
  if (hintId !== undefined) control.setAttribute('aria-describedby', hintId)
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hint === undefined ? null : h('span', { class: 'hint', id: hintId }, hint))
}

export type Outcome = HTMLElement & { ok (text: string): void, error (text: string): void, clear (): void }

/** A place for the outcome of an action, announced to screen readers. */
export function outcome (): Outcome {
  const box = h('div', { role: 'status', 'aria-live': 'polite' })
  const show = (kind: string, text: string): void => {
    box.replaceChildren(h('p', { class: `message ${kind}` }, text))
  }
  return Object.assign(box, {
    ok: (text: string) => show('ok', text),
    error: (text: string) => show('error', text),
    clear: () => box.replaceChildren()
  })
}

/**
 * Disables a form's controls while `work` runs. A disabled control loses the focus, so a
 * keyboard or screen-reader user would be thrown back to the top of the page: the focus
 * goes back where it was, unless `work` moved it on purpose.
 */
export async function busy<T> (form: HTMLFormElement, work: () => Promise<T>): Promise<T> {
  const controls = [...form.querySelectorAll<HTMLButtonElement | HTMLInputElement>('button, input, select, textarea')]
  const focused = document.activeElement
  controls.forEach(c => { c.disabled = true })
  try {
    return await work()
  } finally {
    controls.forEach(c => { c.disabled = false })
    const lost = document.activeElement === null || document.activeElement === document.body
    if (lost && focused instanceof HTMLElement && focused.isConnected) focused.focus()
  }
}

/**
 * On submit: `send` runs with the form's controls disabled; a refusal is shown in
 * `result` in words (`say`, e.g. the panel's `errorText`), a success goes to `done`.
 * `send` may return nothing to send nothing (a check of its own failed and said so).
 */
export function onSubmit (form: HTMLFormElement, result: Outcome, say: (answer: ApiAnswer) => string,
  send: () => Promise<ApiAnswer> | undefined, done: (answer: ApiAnswer) => void | Promise<void>): void {
  form.addEventListener('submit', event => {
    event.preventDefault()
    void busy(form, async () => {
      const sending = send()
      if (sending === undefined) return
      const answer = await sending
      if (answer.ok) await done(answer)
      else result.error(say(answer))
    })
  })
}
