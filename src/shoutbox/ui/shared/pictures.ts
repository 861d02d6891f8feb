import { h } from '../../../sdk/ui.js'
import type { AttachedPicture, ShoutPicture } from '../../schemas.js'
import { shoutboxStrings } from '../strings.js'

/** The longest side a thumbnail is drawn at, in CSS pixels (it is served at 320 for sharp screens). */
const THUMB_SIDE = 160
/** The most pictures one shout carries, and the longest alt text (the server's rules, kept out of the pages' bundle). */
export const MAX_PICTURES = 4
export const MAX_ALT = 200
const TAKEN = 'image/jpeg,image/png,image/webp,image/gif,image/avif'

/** A thumbnail's drawn size: the picture's proportions, the long side at most THUMB_SIDE. */
function thumbSize (picture: Pick<ShoutPicture, 'width' | 'height'>): { width: number, height: number } {
  const scale = Math.min(1, THUMB_SIDE / Math.max(picture.width, picture.height, 1))
  return { width: Math.max(1, Math.round(picture.width * scale)), height: Math.max(1, Math.round(picture.height * scale)) }
}

/**
 * A shout's pictures: thumbnails that are buttons (a keyboard reaches and opens each), each
 * opening the picture full size in a modal dialog — focus moves into it, Escape or Close
 * shuts it, and focus goes back to the thumbnail. `origin` prefixes the board's own urls
 * (the embed, on another site). Nothing for a shout without pictures.
 */
export function pictureGallery (pictures: readonly ShoutPicture[] | undefined, locale: string, origin = ''): HTMLElement | null {
  if (pictures === undefined || pictures.length === 0) return null
  const t = shoutboxStrings(locale)
  return h('ul', { class: 'shoutbox-pictures', 'aria-label': t('pictures.list', { count: pictures.length }) },
    ...pictures.map((picture, index) => {
      const size = thumbSize(picture)
      const label = picture.alt === '' ? t('pictures.openUnnamed', { number: index + 1 }) : t('pictures.open', { alt: picture.alt })
      const item = h('li', {})
      const button = h('button', { type: 'button', class: 'shoutbox-thumb', 'aria-label': label, 'aria-haspopup': 'dialog' },
        h('img', { src: origin + picture.thumbUrl, alt: '', width: size.width, height: size.height, loading: 'lazy', decoding: 'async' })) as HTMLButtonElement
      button.addEventListener('click', () => openPicture(item, button, picture, locale, origin))
      item.append(button)
      return item
    }))
}

/** The picture full size in a modal dialog, beside its thumbnail (inside the same shadow root, for the embed). */
function openPicture (beside: HTMLElement, opener: HTMLButtonElement, picture: ShoutPicture, locale: string, origin: string): void {
  const t = shoutboxStrings(locale)
  const titleId = `shoutbox-picture-${Math.random().toString(36).slice(2)}`
  const close = h('button', { type: 'button', class: 'shoutbox-picture-close' }, t('pictures.close')) as HTMLButtonElement
  const dialog = h('dialog', { class: 'shoutbox-picture', 'aria-labelledby': titleId },
    h('figure', {},
      h('img', { src: origin + picture.url, alt: picture.alt, width: picture.width, height: picture.height, decoding: 'async' }),
      h('figcaption', { id: titleId }, picture.alt === '' ? t('pictures.untitled') : picture.alt)),
    h('p', { class: 'shoutbox-picture-actions' },
      h('a', { href: origin + picture.url, target: '_blank', rel: 'noopener' }, t('pictures.original')), ' ', close)) as HTMLDialogElement
  close.addEventListener('click', () => dialog.close())
  // A click on the backdrop (outside the figure) closes it too.
  dialog.addEventListener('click', event => { if (event.target === dialog) dialog.close() })
  dialog.addEventListener('close', () => {
    dialog.remove()
    opener.focus()
  })
  beside.append(dialog)
  dialog.showModal()
  close.focus()
}

interface Attached {
  readonly id: number
  readonly alt: HTMLInputElement
  readonly row: HTMLElement
  readonly preview: string
}

/**
 * The composer's pictures: a button that picks files (each uploaded at once, up to 4), and
 * for each picture its preview, a required field for what it shows (alt text) that gets the
 * focus, and Remove. `problem` says what went wrong; `busy` while an upload is on its way.
 */
export class PictureAttacher {
  readonly element: HTMLElement
  private readonly list: HTMLElement
  private readonly input: HTMLInputElement
  private readonly add: HTMLButtonElement
  private attached: Attached[] = []
  private uploading = 0

  constructor (private readonly locale: string, private readonly problem: (text: string) => void, private readonly onBusy: (busy: boolean) => void = () => {}) {
    const t = shoutboxStrings(locale)
    this.input = h('input', { type: 'file', accept: TAKEN, multiple: true, hidden: true, tabindex: -1, 'aria-hidden': 'true' }) as HTMLInputElement
    this.add = h('button', { type: 'button', class: 'shoutbox-action shoutbox-add-picture' }, t('pictures.add')) as HTMLButtonElement
    this.list = h('ul', { class: 'shoutbox-attached', 'aria-label': t('pictures.attached') })
    this.list.hidden = true
    this.add.addEventListener('click', () => this.input.click())
    this.input.addEventListener('change', () => {
      const files = [...this.input.files ?? []]
      this.input.value = ''
      void this.upload(files)
    })
    this.element = h('div', { class: 'shoutbox-attacher' }, this.add, this.input, this.list)
  }

  private get t () {
    return shoutboxStrings(this.locale)
  }

  /** Uploads `files`, one after the other (the server decodes a few at a time anyway). */
  async upload (files: readonly File[]): Promise<void> {
    const room = MAX_PICTURES - this.attached.length - this.uploading
    if (files.length > room) this.problem(this.t('pictures.tooMany', { count: MAX_PICTURES }))
    for (const file of files.slice(0, Math.max(0, room))) {
      this.uploading++
      this.onBusy(true)
      this.add.disabled = this.attached.length + this.uploading >= MAX_PICTURES
      try {
        const body = new FormData()
        body.append('file', file)
        const response = await fetch('/api/shoutbox/uploads', { method: 'POST', body, credentials: 'same-origin' })
        const answer = await response.json().catch(() => ({})) as { upload?: { id: number }, error?: string }
        if (response.ok && answer.upload !== undefined) this.attach(answer.upload.id, file)
        else this.problem(this.t(`pictures.refused.${answer.error ?? 'other'}`, { name: file.name }))
      } catch {
        this.problem(this.t('pictures.refused.other', { name: file.name }))
      } finally {
        this.uploading--
        this.onBusy(this.uploading > 0)
        this.add.disabled = this.attached.length + this.uploading >= MAX_PICTURES
      }
    }
  }

  private attach (id: number, file: File): void {
    const t = this.t
    const fieldId = `shoutbox-alt-${id}`
    const preview = URL.createObjectURL(file)
    const alt = h('input', { type: 'text', id: fieldId, maxlength: MAX_ALT, 'aria-required': 'true', autocomplete: 'off', placeholder: t('pictures.altPlaceholder') }) as HTMLInputElement
    const remove = h('button', { type: 'button', class: 'shoutbox-action', 'aria-label': t('pictures.removeLabel', { name: file.name }) }, t('pictures.remove')) as HTMLButtonElement
    const row = h('li', { class: 'shoutbox-attached-picture' },
      h('img', { src: preview, alt: '', width: 48, height: 48 }),
      h('label', { for: fieldId }, t('pictures.altLabel')), alt, remove)
    const entry: Attached = { id, alt, row, preview }
    remove.addEventListener('click', () => {
      this.drop(entry)
      this.add.focus()
    })
    this.attached.push(entry)
    this.list.append(row)
    this.list.hidden = false
    alt.focus()
  }

  private drop (entry: Attached): void {
    URL.revokeObjectURL(entry.preview)
    entry.row.remove()
    this.attached = this.attached.filter(each => each !== entry)
    this.list.hidden = this.attached.length === 0
    this.add.disabled = this.attached.length + this.uploading >= MAX_PICTURES
  }

  /** Whether an upload is still on its way. */
  get busy (): boolean {
    return this.uploading > 0
  }

  /**
   * What the post attaches; undefined when a picture has no alt text yet (its field is
   * marked and focused, and the problem said).
   */
  pictures (): AttachedPicture[] | undefined {
    for (const { alt } of this.attached) alt.removeAttribute('aria-invalid')
    const missing = this.attached.find(({ alt }) => alt.value.trim() === '')
    if (missing !== undefined) {
      missing.alt.setAttribute('aria-invalid', 'true')
      this.problem(this.t('pictures.altMissing'))
      missing.alt.focus()
      return undefined
    }
    return this.attached.map(({ id, alt }) => ({ id, alt: alt.value.trim() }))
  }

  /** Once the post is on the board: nothing attached any more. */
  clear (): void {
    for (const entry of [...this.attached]) this.drop(entry)
  }
}
