import type { ApiAnswer, Outcome } from '../../../sdk/ui.js'

/**
 * Runs one button's request: the button is off meanwhile (marked, not disabled, so it
 * keeps the focus); a refusal is said in words in `said`, a success goes to `done`.
 */
export async function buttonAction (button: HTMLButtonElement, send: () => Promise<ApiAnswer>, done: () => void,
  said: Outcome, say: (answer: ApiAnswer) => string): Promise<void> {
  if (button.getAttribute('aria-disabled') === 'true') return
  button.setAttribute('aria-disabled', 'true')
  const answer = await send()
  button.removeAttribute('aria-disabled')
  if (answer.ok) done()
  else said.error(say(answer))
}
