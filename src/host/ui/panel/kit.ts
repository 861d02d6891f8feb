import { h, type ApiAnswer } from '../../../sdk/ui.js'
import { errorText, type T } from './strings.js'

let nextId = 0

/** A labelled form control: the label names the control for screen readers. */
export function field (label: string, control: HTMLElement, hint?: string): HTMLElement {
  const id = control.id !== '' ? control.id : `f${++nextId}`
  control.id = id
  const hintId = hint === undefined ? undefined : `${id}-hint`
  if (hintId !== undefined) control.setAttribute('aria-describedby', hintId)
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hint === undefined ? null : h('span', { class: 'hint', id: hintId }, hint))
}

/** A place for the outcome of an action, announced to screen readers. */
export function outcome (): HTMLElement & { ok (text: string): void, error (text: string): void, clear (): void } {
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

/** Disables a form's controls while `work` runs. */
export async function busy<T> (form: HTMLFormElement, work: () => Promise<T>): Promise<T> {
  const controls = [...form.querySelectorAll<HTMLButtonElement | HTMLInputElement>('button, input, select, textarea')]
  controls.forEach(c => { c.disabled = true })
  try {
    return await work()
  } finally {
    controls.forEach(c => { c.disabled = false })
  }
}

/**
 * On submit: `send` runs with the form's controls disabled; a refusal is shown in
 * `result` in words, a success goes to `done`. `send` may return nothing to send nothing
 * (a check of its own failed and said so).
 */
export function onSubmit (form: HTMLFormElement, result: ReturnType<typeof outcome>, t: T,
  send: () => Promise<ApiAnswer> | undefined, done: () => void | Promise<void>): void {
  form.addEventListener('submit', event => {
    event.preventDefault()
    void busy(form, async () => {
      const sending = send()
      if (sending === undefined) return
      const answer = await sending
      if (answer.ok) await done()
      else result.error(errorText(t, answer))
    })
  })
}
