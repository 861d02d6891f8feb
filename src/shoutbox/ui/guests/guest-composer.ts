import { isBlankText } from '../../../sdk/text.js'
import { h } from '../../../sdk/ui.js'
import type { FullShout } from '../../schemas.js'
import { ProofSupply } from './guest-proof.js'

/** Where the name a guest gave is kept (localStorage), for their next visit. */
const NAME_KEY = 'shoutbox-guest-name'

export interface GuestAnswer { readonly ok: boolean, readonly status: number, readonly body: Record<string, unknown> | undefined, readonly retryAfter: string | null }

export interface GuestComposerOptions {
  readonly t: (key: string, values?: Record<string, unknown>) => string
  /** The widget's own script address: its worker is beside it. */
  readonly base: string
  /** The room shown. */
  readonly room: () => string
  readonly post: (path: string, body: unknown) => Promise<GuestAnswer>
  /** A refusal in words. */
  readonly errorText: (answer: GuestAnswer) => string
  /** Published at once: the widget shows it. */
  readonly posted: (shout: FullShout) => void
  /** What the live region says. */
  readonly announce: (text: string) => void
}

function storedName (): string {
  try {
    return localStorage.getItem(NAME_KEY) ?? ''
  } catch {
    return ''
  }
}

function keepName (name: string): void {
  try {
    localStorage.setItem(NAME_KEY, name)
  } catch {
    // storage refused (a private window): they type it again next time
  }
}

/**
 * The composer of someone without an account, in a room that lets guests post: a name
 * (kept in the browser for next time) and the shout. The proof of work is made in a Web
 * Worker as soon as they start writing — nothing to look at or solve — and sent with the
 * shout; a refused proof is made again once. Enter sends, Shift+Enter starts a new line.
 */
export function guestComposer (options: GuestComposerOptions): HTMLElement {
  const { t } = options
  const proofs = new ProofSupply(options.base)
  const name = h('input', { id: 'shoutbox-guest-name', name: 'name', type: 'text', autocomplete: 'nickname', required: true, minlength: 2, maxlength: 24, value: storedName(), 'aria-describedby': 'shoutbox-guest-hint' }) as HTMLInputElement
  const area = h('textarea', { id: 'shoutbox-guest-message', name: 'message', rows: 2, required: true, 'aria-describedby': 'shoutbox-guest-hint' }) as HTMLTextAreaElement
  const problem = h('p', { class: 'shoutbox-error', id: 'shoutbox-guest-error', role: 'alert' })
  // What became of the last shout when it is not on the board yet (held): said, not an error.
  const note = h('p', { class: 'shoutbox-hint', id: 'shoutbox-guest-note' })
  const send = h('button', { type: 'submit' }, t('widget.guestSend')) as HTMLButtonElement
  const form = h('form', { class: 'shoutbox-composer shoutbox-guest' },
    h('label', { for: 'shoutbox-guest-name' }, t('widget.guestName')), name,
    h('label', { for: 'shoutbox-guest-message' }, t('widget.composer')), area,
    h('div', { class: 'shoutbox-row' }, h('span', { class: 'shoutbox-hint', id: 'shoutbox-guest-hint' }, t('widget.guestHint')), send),
    problem, note) as HTMLFormElement
  for (const field of [name, area]) field.addEventListener('input', () => proofs.prepare(), { once: true })
  area.addEventListener('keydown', event => {
    if (event.key !== 'Enter' || event.shiftKey || event.isComposing) return
    event.preventDefault()
    form.requestSubmit()
  })
  const fail = (text: string, field: HTMLInputElement | HTMLTextAreaElement): void => {
    problem.textContent = text
    field.setAttribute('aria-invalid', 'true')
    field.focus()
  }
  let sending = false
  const attempt = async (message: string, given: string, again: boolean): Promise<void> => {
    const proof = await proofs.take()
    if (proof === undefined) return fail(t('widget.guestProofFailed'), area)
    const answer = await options.post(`/api/shoutbox/rooms/${encodeURIComponent(options.room())}/guest-shouts`, { message, name: given, proof })
    if (answer.ok) {
      area.value = ''
      keepName(given)
      const shout = answer.body!.shout as FullShout & { held?: true }
      if (shout.held === true) options.announce(t('widget.guestHeld'))
      else {
        options.posted(shout)
        options.announce(t('widget.posted'))
      }
      note.textContent = shout.held === true ? t('widget.guestHeld') : ''
      proofs.prepare()
      area.focus()
      return
    }
    if (answer.body?.error === 'INVALID_PROOF' && !again) return await attempt(message, given, true)
    const onName = answer.body?.error === 'NAME_TAKEN' || (answer.body?.error === 'BAD_REQUEST' && String(answer.body.bodyValidationError ?? '').startsWith('body/name'))
    fail(options.errorText(answer), onName ? name : area)
  }
  form.addEventListener('submit', event => {
    event.preventDefault()
    if (sending) return
    problem.textContent = ''
    note.textContent = ''
    name.removeAttribute('aria-invalid')
    area.removeAttribute('aria-invalid')
    const given = name.value.trim()
    const length = [...given].length
    if (length < 2 || length > 24) return fail(t('widget.guestNameProblem'), name)
    if (isBlankText(area.value)) return fail(t('widget.guestEmpty'), area)
    sending = true
    send.disabled = true
    form.setAttribute('aria-busy', 'true')
    options.announce(t('widget.guestWorking'))
    void attempt(area.value, given, false).finally(() => {
      sending = false
      send.disabled = false
      form.removeAttribute('aria-busy')
    })
  })
  return form
}
