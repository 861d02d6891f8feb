import { KnownUsers } from '../../sdk/rich-text.js'
import { isBlankText } from '../../sdk/text.js'
import { h, relativeTime } from '../../sdk/ui.js'
import type { FullShout, Reaction } from '../schemas.js'
import { NotificationBell } from './shared/notifications.js'
import { EmojiPicker, expandShortcodes } from './shared/emoji-picker.js'
import { excerptOf } from '../excerpt.js'
import { LiveShouts } from './shared/live-shouts.js'
import { DirectMessages } from './direct/messages.js'
import { archiveOf, botBadge, DEFAULT_ROOM, isRoomSlug, ownTag, pageLocale, permalinkOf, quoteLine, quotedWords, reactionLabel, shoutItem, shoutText, useStylesheet } from './shared/shout-view.js'
import { shoutboxStrings } from './strings.js'
import { composerPreview } from './composer/preview.js'
import { OlderShouts } from './shared/older-shouts.js'
import { guestComposer } from './guests/guest-composer.js'
import { PresenceView } from './presence/presence-view.js'
import { PictureAttacher, pictureGallery } from './shared/pictures.js'

/**
 * The theme widget. A theme embeds it with one tag:
 *   <script type="module" src="/addons/shoutbox/ui/widget.js" data-shoutbox></script>
 * It shows the pinned shouts, then the newest `maxShouts` (50 when unset), where the tag
 * is, and keeps them current by applying the event stream's events (shared/live-shouts.ts):
 * after the first load, a post elsewhere costs it one frame, not a request. Each shout
 * links to its permalink page, and the widget to the archive.
 * Members who may post get a composer, and edit and delete buttons on their own shouts;
 * visitors get a way to sign in (and to sign up, when the site allows it). A muted member
 * is told so, and until when, in place of the composer. Moderators (MANAGE_SHOUTBOX with
 * panel access) get edit, delete and mute beside everyone else's shouts. A page that signs
 * people in or out tells it with a `site:session` event on `document`.
 * Each room the reader may read has a tab (the default room first; arrow keys, Home and
 * End move between them); a signed-in reader sees on each other tab how many shouts
 * arrived there since it was last shown. The tab chosen is remembered in the browser.
 * Members reply to a shout (its quoted line shows above the composer, and above the reply;
 * a click on it shows the original) and react to it with the site's emoji, whose counts
 * arrive live.
 */

const MANAGE_NODE = 'addon.shoutbox.manage.shoutbox'
const PANEL_NODE = 'panel.access'
/** The mute lengths offered, in minutes; null: until lifted. */
const MUTE_CHOICES: ReadonlyArray<[number | null, string]> = [[10, 'widget.for10'], [60, 'widget.for60'], [1440, 'widget.for1440'], [10080, 'widget.for10080'], [null, 'widget.forever']]

const here = import.meta.url
const tag = ownTag('data-shoutbox', here)
const locale = pageLocale()
const t = shoutboxStrings(locale)

interface Me { readonly username: string, readonly permissions: readonly string[], readonly emailUnconfirmed?: true }
interface Room {
  readonly slug: string
  readonly name: string
  readonly description: string
  readonly canPost: boolean
  /** Guests (no account) may post here. */
  readonly guestsPost?: true
  /** Signed in: how far the reader has read it, and how many newer shouts of others it holds (up to 100). */
  readonly lastReadId?: number
  readonly unread?: number
}
/** Where the room last shown is kept (localStorage). */
const ROOM_KEY = 'shoutbox-room'
interface Rules { maxMessageLength: number, editWindowSeconds: number, reactions: readonly string[] }
interface OwnMute { readonly until: number | null, readonly reason: string | null }
interface Answer { readonly ok: boolean, readonly status: number, readonly body: Record<string, unknown> | undefined, readonly retryAfter: string | null }

/** JSON over fetch with the session cookie; never throws (`body` undefined: the server could not be reached). */
async function call (method: string, path: string, body?: unknown): Promise<Answer> {
  try {
    const response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { ok: response.ok, status: response.status, body: await response.json() as Record<string, unknown>, retryAfter: response.headers.get('retry-after') }
  } catch {
    return { ok: false, status: 0, body: undefined, retryAfter: null }
  }
}

/** A refusal in words, in the reader's language. */
function errorText (answer: Answer): string {
  if (answer.body === undefined) return t('errors.NETWORK')
  const code = typeof answer.body.error === 'string' ? answer.body.error : 'UNKNOWN'
  const values = { ...answer.body, code, seconds: answer.retryAfter ?? '60' }
  return t.has(`errors.${code}`) ? t(`errors.${code}`, values) : t('errors.UNKNOWN', values)
}

const codePoints = (text: string): number => [...text].length

useStylesheet('palette.css', here)
useStylesheet('widget.css', here)
useStylesheet('pictures.css', here)
const you = h('div', { class: 'shoutbox-you' })
// The one live region: what became of one's own post, edit or deletion, and others' new
// shouts ("3 new shouts in General", at most once every 5 s), read out by screen readers.
const announcer = h('div', { class: 'shoutbox-sr', role: 'status', 'aria-live': 'polite' })
const list = h('ol', { class: 'shoutbox-list' })
// A chat's log, not read out shout by shout: the announcer counts new ones instead.
const log = h('div', { role: 'log', 'aria-live': 'off', 'aria-labelledby': 'shoutbox-title', 'aria-busy': 'true' }, list)
const pinnedList = h('ol', { class: 'shoutbox-list' })
// A region of its own, named "Pinned", so a screen reader announces it as such.
const pinnedBox = h('section', { class: 'shoutbox-pinned', 'aria-labelledby': 'shoutbox-pinned-title', hidden: true },
  h('p', { class: 'label', id: 'shoutbox-pinned-title' }, h('span', { class: 'pin', 'aria-hidden': 'true' }), t('widget.pinned')), pinnedList)
const tabs = h('div', { class: 'shoutbox-tabs', role: 'tablist', 'aria-label': t('widget.rooms'), hidden: true })
// The room shown: what is said in it, and what one may say there.
const roomPanel = h('div', { class: 'shoutbox-room', id: 'shoutbox-room' }, you, announcer, pinnedBox, log)
const archiveLink = h('a', { href: '/shouts' }, t('widget.all'))
// Whom the reader ignores, each with a way back (shown only when there is someone).
const ignoredBox = h('details', { class: 'shoutbox-ignored', hidden: true })
// A signed-in reader's notifications (a mention), beside the title.
const bell = new NotificationBell(t, slug => rooms.find(room => room.slug === slug)?.name ?? slug, by => { void messages.writeTo(by) })
// Who has the room shown open: "N here", the names on demand.
const presence = new PresenceView(t)
// A member's conversations of two, in place of the room while open.
const messages = new DirectMessages({ t, locale, reactions: () => rules.reactions, announce: text => { announce(text) }, errorText }, roomPanel)
const widget = h('section', { class: 'shoutbox-widget', 'aria-labelledby': 'shoutbox-title' },
  h('div', { class: 'shoutbox-head' }, h('h2', { id: 'shoutbox-title' }, t('widget.title')), presence.element, messages.button, bell.element), tabs, roomPanel, messages.element,
  ignoredBox, h('p', { class: 'shoutbox-more' }, archiveLink))
if (tag !== undefined) tag.after(widget)
else document.body.append(widget)

const announce = (...texts: string[]): void => {
  announcer.replaceChildren(...texts.map(text => h('p', {}, text)))
}

let me: Me | null = null
/** The rooms the reader may read, by position (the default room until the server says). */
let rooms: Room[] = [{ slug: DEFAULT_ROOM, name: 'General', description: '', canPost: false }]
/** Shouts of others in each room not shown, not yet read (signed-in readers): the server's count, and those heard since. */
const unread = new Map<string, number>()
/** The room shown was read up to here when it was shown: the "new since your last visit" line goes below the newer shouts. */
let readUpTo: number | null = null
/** The newest shout id marked read in the room shown, and the mark waiting to be sent. */
let markedUpTo = 0
let marking: ReturnType<typeof setTimeout> | undefined
/** How far this page marked each room read (newer than the rooms list may say). */
const marked = new Map<string, number>()
let signUpOpen = false
let myMute: OwnMute | null = null
let muteEnds: ReturnType<typeof setTimeout> | undefined
let rules: Rules = { maxMessageLength: 500, editWindowSeconds: 300, reactions: [] }
/** The shout the composer answers, if any. */
let replyTarget: FullShout | null = null
/** Whom the reader ignores (GET /api/users/me/ignored): their shouts are hidden as they arrive. */
let ignored: ReadonlyArray<{ userId: number, username: string }> = []
const isIgnored = (username: string): boolean => ignored.some(each => each.username.toLowerCase() === username.toLowerCase())
/** The room shown. */
const currentRoom = (): Room | undefined => rooms.find(room => room.slug === live.room)
// The server says, per room, whether one may post there (Manage shoutbox may everywhere).
const mayPost = (): boolean => me !== null && currentRoom()?.canPost === true
const holds = (node: string): boolean => me !== null && (me.permissions.includes('*') || me.permissions.includes(node))
const isModerator = (): boolean => holds(MANAGE_NODE) && holds(PANEL_NODE)
const isOwn = (shout: FullShout): boolean => me !== null && shout.username === me.username
const when = (ms: number): string => new Date(ms).toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'short' })
// A muted member's edit is refused as their post is: no Edit while muted.
const editable = (shout: FullShout): boolean => isOwn(shout) && mayPost() && myMute === null && Date.now() - shout.date < rules.editWindowSeconds * 1000
/** Whether the reader may answer and react here now: posting rights in the room shown, and no mute. */
const mayTalk = (): boolean => mayPost() && myMute === null

// ---------------------------------------------------------------------------------------------
// Writing: the composer, or a way in

/** A textarea where Enter sends (its form) and Shift+Enter starts a new line; Escape runs `onEscape`. */
function sendOnEnter (area: HTMLTextAreaElement, form: HTMLFormElement, onEscape?: () => void): void {
  area.addEventListener('keydown', event => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault()
      form.requestSubmit()
    } else if (event.key === 'Escape' && onEscape !== undefined) {
      event.preventDefault()
      onEscape()
    }
  })
}

/** The characters left for `area`, kept current; `over` when the text is too long. */
function counter (area: HTMLTextAreaElement, id: string): { element: HTMLElement, update (): void } {
  const element = h('span', { class: 'shoutbox-left', id })
  const update = (): void => {
    const left = rules.maxMessageLength - codePoints(area.value)
    element.textContent = left >= 0 ? t('widget.left', { count: left }) : t('widget.over', { count: -left })
    element.classList.toggle('over', left < 0)
  }
  area.addEventListener('input', update)
  update()
  return { element, update }
}

/** A text refused before it is sent: `message` says why, in words. */
class Refusal extends Error {}

/** What is wrong with `message` before it is sent, in words; undefined when nothing is. */
function problemWith (message: string): string | undefined {
  if (isBlankText(message)) return t('errors.BLANK_MESSAGE')
  if (codePoints(message) > rules.maxMessageLength) return t('errors.MESSAGE_TOO_LONG', { maxMessageLength: rules.maxMessageLength })
  return undefined
}

let composerArea: HTMLTextAreaElement | undefined
/** Above the composer: the shout it answers, with a way to stop answering it. */
const replying = h('div', { class: 'shoutbox-replying', id: 'shoutbox-replying', hidden: true })

/** The composer answers `shout` (null: none); the quoted line above it follows. */
function replyTo (shout: FullShout | null): void {
  replyTarget = shout
  replying.hidden = shout === null
  if (shout === null) {
    replying.replaceChildren()
    return
  }
  replying.replaceChildren(
    h('span', { class: 'quote-author' }, t('widget.replyingTo', { username: shout.username })), ' ',
    h('q', {}, quotedWords(excerptOf(shout.message), locale)),
    h('button', { type: 'button', class: 'shoutbox-action shoutbox-stop-reply', 'aria-label': t('widget.cancelReply'), title: t('widget.cancelReply'), onclick: () => { replyTo(null); composerArea?.focus() } }, '×'))
  composerArea?.focus()
}

function composer (): HTMLElement {
  const area = h('textarea', { id: 'shoutbox-message', name: 'message', rows: 2, placeholder: t('widget.formatting'), 'aria-describedby': 'shoutbox-replying shoutbox-hint shoutbox-left' }) as HTMLTextAreaElement
  const left = counter(area, 'shoutbox-left')
  const preview = composerPreview(area, locale, 'shoutbox-preview')
  const problem = h('p', { class: 'shoutbox-error', id: 'shoutbox-error', role: 'alert' })
  const send = h('button', { type: 'submit' }, t('widget.send')) as HTMLButtonElement
  const emoji = new EmojiPicker(t, area)
  const pictures = new PictureAttacher(locale, text => { problem.textContent = text })
  const form = h('form', { class: 'shoutbox-composer' },
    h('label', { for: 'shoutbox-message' }, t('widget.composer')),
    replying,
    area,
    preview.element,
    pictures.element,
    h('div', { class: 'shoutbox-row' }, emoji.element, h('span', { class: 'shoutbox-hint', id: 'shoutbox-hint' }, t('widget.hint')), left.element, send),
    problem) as HTMLFormElement
  const fail = (text: string): void => {
    problem.textContent = text
    area.setAttribute('aria-invalid', 'true')
    area.focus()
  }
  let sending = false
  form.addEventListener('submit', event => {
    event.preventDefault()
    if (sending) return
    problem.textContent = ''
    area.removeAttribute('aria-invalid')
    emoji.close()
    if (pictures.busy) {
      problem.textContent = t('pictures.uploading')
      return
    }
    // Each picture says what it shows before the shout goes (its field is focused otherwise).
    const attached = pictures.pictures()
    if (attached === undefined) return
    sending = true
    send.disabled = true
    form.setAttribute('aria-busy', 'true')
    const answering = replyTarget
    const written = area.value
    void expandShortcodes(written).then(message => {
      const wrong = problemWith(message)
      if (wrong !== undefined) throw new Refusal(wrong)
      return call('POST', `/api/shoutbox/rooms/${encodeURIComponent(live.room)}/shouts`, { message, ...(answering === null ? {} : { replyTo: answering.id }), ...(attached.length === 0 ? {} : { uploads: attached }) })
    }).then(answer => {
      if (answer.ok) {
        area.value = ''
        left.update()
        preview.update()
        pictures.clear()
        if (replyTarget === answering) replyTo(null)
        live.put(answer.body!.shout as FullShout)
        announce(t('widget.posted'))
      } else if (answer.body?.error === 'BAD_REQUEST' && answering !== null) {
        // The shout answered was deleted meanwhile.
        replyTo(null)
        fail(t('widget.replyGone'))
      } else if (answer.body?.error === 'MUTED') {
        learnMute(answer)
      } else {
        fail(errorText(answer))
        if (answer.status === 401 || answer.status === 403) void refreshSession()
      }
    }).catch((refused: unknown) => {
      if (!(refused instanceof Refusal)) throw refused
      fail(refused.message)
    }).finally(() => {
      sending = false
      send.disabled = false
      form.removeAttribute('aria-busy')
    })
  })
  // Escape stops answering a shout.
  sendOnEnter(area, form, () => { if (replyTarget !== null) replyTo(null) })
  composerArea = area
  return form
}

/** Told by a refusal that one is muted: say so at once, then ask for the reason too. */
function learnMute (answer: Answer): void {
  myMute = { until: answer.body!.until as number | null, reason: null }
  drawYou()
  announce(mutedText(myMute))
  void refreshSession()
}

function mutedText (mute: OwnMute): string {
  return mute.until === null ? t('widget.mutedForever') : t('widget.mutedUntil', { time: when(mute.until) })
}

/** In place of the composer while muted; the composer comes back by itself when the mute ends. */
function mutedNotice (mute: OwnMute): HTMLElement {
  if (muteEnds !== undefined) clearTimeout(muteEnds)
  muteEnds = undefined
  if (mute.until !== null) {
    // Timers cap at about 24.8 days; a longer mute is looked at again then.
    muteEnds = setTimeout(() => void refreshSession(), Math.min(Math.max(mute.until - Date.now(), 0) + 500, 2_000_000_000))
  }
  return h('p', { class: 'shoutbox-prompt shoutbox-muted', id: 'shoutbox-muted' },
    mutedText(mute), mute.reason === null ? null : ' ', mute.reason === null ? null : t('widget.mutedReason', { reason: mute.reason }))
}

/** Why a member who signed up cannot post yet (the site asks for a confirmed address), and a button for the link again. */
function confirmEmailNotice (): HTMLElement {
  const resend = h('button', { type: 'button', class: 'shoutbox-resend' }, t('widget.resendLink')) as HTMLButtonElement
  const said = h('span', { role: 'status' })
  resend.addEventListener('click', () => {
    resend.disabled = true
    void call('POST', `/api/auth/verify-email/resend?locale=${locale}`, {}).then(answer => {
      said.textContent = answer.ok ? t('widget.linkResent') : errorText(answer)
      resend.disabled = answer.ok
    })
  })
  return h('p', { class: 'shoutbox-prompt shoutbox-unconfirmed', id: 'shoutbox-unconfirmed' }, t('widget.confirmEmail'), ' ', resend, ' ', said)
}

function drawYou (): void {
  composerArea = undefined
  if (me === null && currentRoom()?.guestsPost === true) {
    you.replaceChildren(guestComposer({
      t, base: here, room: () => live.room, post: async (path, body) => await call('POST', path, body), errorText,
      posted: shout => live.put(shout), announce
    }), h('p', { class: 'shoutbox-prompt' }, t('widget.guestOrSignIn'), ' ', h('a', { href: '/#sign-in' }, t('widget.signIn'))))
  } else if (me === null) {
    you.replaceChildren(h('p', { class: 'shoutbox-prompt' },
      signUpOpen ? t('widget.signInOrUpPrompt') : t('widget.signInPrompt'), ' ',
      h('a', { href: '/#sign-in' }, t('widget.signIn')),
      signUpOpen ? ' · ' : null,
      signUpOpen ? h('a', { href: '/#sign-up' }, t('widget.signUp')) : null))
  } else if (me.emailUnconfirmed === true) {
    you.replaceChildren(confirmEmailNotice())
  } else if (!mayPost()) {
    you.replaceChildren(h('p', { class: 'shoutbox-prompt' }, t('widget.cannotPost')))
  } else if (myMute !== null) {
    you.replaceChildren(mutedNotice(myMute))
  } else {
    you.replaceChildren(composer())
  }
}

async function refreshSession (): Promise<void> {
  const [who, signUp, limits, posting, readable, ignoring] = await Promise.all([
    call('GET', '/api/auth/me'), call('GET', '/api/auth/signup'), call('GET', '/api/shoutbox/rules'), call('GET', '/api/shoutbox/me'), call('GET', '/api/shoutbox/rooms'),
    call('GET', '/api/users/me/ignored')])
  if (who.body?.error === 'INSTALLATION_REQUIRED') {
    // Every call answers 503 until the administrator finishes setup: no "sign in", no "no shouts yet".
    you.replaceChildren(h('p', { class: 'shoutbox-prompt' }, t('widget.notSetUp')))
    log.hidden = true
    return
  }
  log.hidden = false
  const wasSignedIn = me !== null
  me = who.ok ? who.body!.user as Me : null
  // The stream hears the events of whoever was signed in when it opened (the page's first
  // answer tells who that was): signed in or out since, it opens anew.
  const member = me?.username ?? null
  if (streamMember !== undefined && streamMember !== member) live.reopen()
  if (streamMember !== member) {
    bell.signedIn(member !== null)
    messages.signedIn(member !== null)
  }
  streamMember = member
  myMute = me !== null && posting.ok ? posting.body!.mute as OwnMute | null : null
  signUpOpen = signUp.ok && signUp.body!.signUp === true
  if (limits.ok) rules = limits.body as unknown as Rules
  if (readable.ok) learnRooms(readable.body!.rooms as Room[])
  learnIgnored(me !== null && ignoring.ok ? ignoring.body!.ignored as typeof ignored : [])
  drawYou()
  render()
  markRead()
  // Just signed in here: straight to writing.
  if (!wasSignedIn && me !== null && sessionAsked) composerArea?.focus()
  sessionAsked = false
}

/** Who the stream was opened for (a username, null: nobody); undefined until the first answer about the session. */
let streamMember: string | null | undefined
let sessionAsked = false
document.addEventListener('site:session', () => {
  sessionAsked = true
  void refreshSession()
})

// ---------------------------------------------------------------------------------------------
// Rooms: a tab each

/** The rooms the reader may read now; the room shown stays unless it is no longer one of them. True when they changed. */
function learnRooms (readable: Room[]): boolean {
  if (readable.length === 0 || JSON.stringify(readable) === JSON.stringify(rooms)) return false
  rooms = readable
  for (const slug of unread.keys()) if (!rooms.some(room => room.slug === slug)) unread.delete(slug)
  // The server counts what the reader has not read of each room, since any visit.
  for (const room of rooms) if (room.unread !== undefined && room.slug !== live.room) unread.set(room.slug, room.unread)
  const shown = currentRoom()
  if (readUpTo === null && shown?.lastReadId !== undefined) {
    readUpTo = shown.lastReadId
    markedUpTo = shown.lastReadId
  }
  if (currentRoom() === undefined) void showRoom(rooms[0]!.slug, false)
  drawTabs()
  return true
}

function tabOf (room: Room): HTMLElement {
  const selected = room.slug === live.room
  const count = selected || me === null ? 0 : unread.get(room.slug) ?? 0
  return h('button', {
    type: 'button',
    role: 'tab',
    id: `shoutbox-tab-${room.slug}`,
    class: 'shoutbox-tab',
    'aria-selected': String(selected),
    'aria-controls': 'shoutbox-room',
    tabindex: selected ? 0 : -1,
    title: room.description === '' ? undefined : room.description,
    'data-room': room.slug,
    onclick: () => void showRoom(room.slug, true)
  }, room.name, count === 0 ? null : h('span', { class: 'shoutbox-unread' }, ' ', h('span', { 'aria-hidden': 'true' }, String(count > 99 ? '99+' : count)),
    h('span', { class: 'shoutbox-sr' }, t('widget.unread', { count }))))
}

function drawTabs (): void {
  const focused = tabs.contains(document.activeElement) ? (document.activeElement as HTMLElement).dataset.room : undefined
  tabs.hidden = rooms.length < 2
  tabs.replaceChildren(...rooms.map(tabOf))
  roomPanel.setAttribute('role', rooms.length < 2 ? 'region' : 'tabpanel')
  roomPanel.setAttribute('aria-labelledby', rooms.length < 2 ? 'shoutbox-title' : `shoutbox-tab-${live.room}`)
  if (focused !== undefined) tabs.querySelector<HTMLElement>(`[data-room="${focused}"]`)?.focus()
  archiveLink.setAttribute('href', archiveOf(live.room))
}

/** Shows room `slug`; with `focus`, its tab takes the focus (a choice made with the keyboard). */
async function showRoom (slug: string, focus: boolean): Promise<void> {
  messages.close()
  unread.delete(slug)
  if (slug !== live.room) {
    replyTo(null)
    clearTimeout(marking)
    marking = undefined
    // How far it was read: by the server's marker, or this page's own marks since.
    const server = rooms.find(each => each.slug === slug)?.lastReadId
    const here = marked.get(slug)
    readUpTo = server === undefined && here === undefined ? null : Math.max(server ?? 0, here ?? 0)
    markedUpTo = readUpTo ?? 0
  }
  try {
    localStorage.setItem(ROOM_KEY, slug)
  } catch {
    // storage refused (a private window): the choice holds for this page
  }
  if (slug !== live.room) {
    items.forEach(item => item.li.remove())
    items.clear()
    log.setAttribute('aria-busy', 'true')
    const shown = live.show(slug)
    void presence.show(slug)
    drawTabs()
    drawYou()
    await shown
  }
  drawTabs()
  if (focus) tabs.querySelector<HTMLElement>(`[data-room="${slug}"]`)?.focus()
}

// Arrow keys move between tabs (and show the room), Home and End to the first and last.
tabs.addEventListener('keydown', event => {
  const at = rooms.findIndex(room => room.slug === live.room)
  const next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: rooms.length - 1 }[event.key]
  if (next === undefined || rooms.length === 0) return
  event.preventDefault()
  void showRoom(rooms[(next + rooms.length) % rooms.length]!.slug, true)
})

/** An event of a room not shown: a shout someone else said there is one more unread. */
/**
 * Tells the server the room shown is read up to its newest shout (a second after it shows,
 * at most once a second): a signed-in reader's marker, for the unread counts and the
 * "new since your last visit" line of the next visit. Only while the page is in view.
 */
function markRead (): void {
  const newest = live.shouts[0]?.id
  if (me === null || !live.loaded || newest === undefined || newest <= markedUpTo || document.visibilityState !== 'visible' || marking !== undefined) return
  const room = live.room
  marking = setTimeout(() => {
    marking = undefined
    // Another room shown meanwhile: this one was only glanced at.
    if (live.room !== room) return
    const upTo = live.shouts[0]?.id ?? 0
    if (upTo <= markedUpTo) return
    markedUpTo = upTo
    marked.set(room, upTo)
    void call('PUT', `/api/shoutbox/rooms/${encodeURIComponent(room)}/read`, { lastReadId: upTo })
  }, 1000)
}
document.addEventListener('visibilitychange', markRead)

/** At most one "new shouts" announcement this often, however busy the room. */
const NEWS_EVERY_MS = 5000
let newsCount = 0
let newsAt = 0
let newsTimer: ReturnType<typeof setTimeout> | undefined

/**
 * Another's new shout in the room shown: counted, and read out through the announcer —
 * at once when the last announcement is 5 s old, else when it will be — as one sentence
 * for all that came meanwhile.
 */
function arrived (shout: { username: string }): void {
  if (me !== null && shout.username === me.username) return
  newsCount++
  if (newsTimer !== undefined) return
  newsTimer = setTimeout(() => {
    newsTimer = undefined
    newsAt = Date.now()
    announce(t('widget.newShouts', { count: newsCount, room: currentRoom()?.name ?? live.room }))
    newsCount = 0
  }, Math.max(0, newsAt + NEWS_EVERY_MS - Date.now()))
}

function heardElsewhere (kind: string, shout: { room: string, username: string, id: number }): void {
  // A conversation of two of the reader's: the Messages view's.
  if (shout.room.startsWith('~')) {
    messages.heard(kind, shout)
    return
  }
  if (kind !== 'shout-created' || me === null || shout.username === me.username) return
  unread.set(shout.room, (unread.get(shout.room) ?? 0) + 1)
  drawTabs()
}

// ---------------------------------------------------------------------------------------------
// Reading: the list, kept in place so focus and an edit in progress survive updates

interface Item {
  shout: FullShout
  readonly li: HTMLElement
  /** Where the quoted line of a reply goes. */
  readonly quote: HTMLElement
  readonly text: HTMLElement
  readonly time: HTMLElement
  /** "(edited)", shown once the shout's text was changed (its title says when). */
  readonly edited: HTMLElement
  /** The reaction counts (buttons, for a member who may react), and the way to add one. */
  readonly reactions: HTMLElement
  readonly actions: HTMLElement
  /** The text was drawn knowing this many account names. */
  drawnWith: number
  /** What the quote and the reactions were drawn from, so they are redrawn only when that changes. */
  drawnQuote: string
  drawnReactions: string
  /** What the actions show now, so they are redrawn only when that changes. */
  mode: 'none' | 'own' | 'editable' | 'moderated' | 'editing' | 'confirming' | 'muting' | 'reporting'
  /** Whether the actions offer Reply, and Ignore. */
  replyable: boolean
  ignorable: boolean
}

const items = new Map<number, Item>()
const known = new KnownUsers()
let namesKnown = 0
const empty = h('li', { class: 'empty' }, t('widget.empty'))
const newSince = h('li', { class: 'shoutbox-new-since' }, h('span', {}, t('widget.newSince')))

function drawText (item: Item): void {
  item.text.replaceChildren(shoutText(item.shout.message, locale, known.isUser))
  item.drawnWith = namesKnown
}

/** The item's buttons, for what the reader may do with it now; `again`: drawn anew even when nothing changed (a form closed). */
function drawActions (item: Item, again = false): void {
  const mode = !isOwn(item.shout) ? (isModerator() ? 'moderated' : 'none') : editable(item.shout) ? 'editable' : 'own'
  const replyable = mayTalk()
  // A member may ignore another member (not a moderator: the server refuses, and says so).
  // A shout that came in through an incoming hook has no account behind it: nobody to ignore.
  const ignorable = me !== null && mode === 'none' && !('via' in item.shout)
  if (item.mode === 'editing' || item.mode === 'confirming' || item.mode === 'muting' || item.mode === 'reporting' || (!again && item.mode === mode && item.replyable === replyable && item.ignorable === ignorable)) return
  item.mode = mode
  item.replyable = replyable
  item.ignorable = ignorable
  const about = !isOwn(item.shout)
    ? t('widget.actionsOn', { username: item.shout.username, message: quotedWords(item.shout.message.slice(0, 60), locale) })
    : t('widget.actionsFor', { message: quotedWords(item.shout.message.slice(0, 60), locale) })
  const buttons: HTMLElement[] = []
  // Waiting for review: nothing to do with it but wait.
  if (item.shout.held === true) {
    item.actions.replaceChildren()
    return
  }
  if (replyable) buttons.push(h('button', { type: 'button', class: 'shoutbox-action', 'data-action': 'reply', 'aria-label': `${t('widget.reply')} — ${t('widget.actionsOn', { username: item.shout.username, message: quotedWords(item.shout.message.slice(0, 60), locale) })}`, onclick: () => replyTo(item.shout) }, t('widget.reply')))
  if (mode === 'editable' || mode === 'moderated') buttons.push(h('button', { type: 'button', class: 'shoutbox-action', 'data-action': 'edit', 'aria-label': `${t('widget.edit')} — ${about}`, onclick: () => startEdit(item) }, t('widget.edit')))
  if (mode !== 'none') buttons.push(h('button', { type: 'button', class: 'shoutbox-action', 'aria-label': `${t('widget.delete')} — ${about}`, onclick: () => confirmDelete(item) }, t('widget.delete')))
  if (mode === 'moderated' && mutable(item) === true) buttons.push(h('button', { type: 'button', class: 'shoutbox-action', 'aria-label': `${t('widget.mute')} — ${about}`, onclick: () => startMute(item) }, t('widget.mute')))
  if (ignorable) buttons.push(h('button', { type: 'button', class: 'shoutbox-action', 'data-action': 'ignore', 'aria-label': `${t('widget.ignore')} — ${about}`, onclick: () => void ignoreAuthor(item) }, t('widget.ignore')))
  if (me !== null && !isOwn(item.shout) && item.shout.bot !== true) buttons.push(h('button', { type: 'button', class: 'shoutbox-action', 'data-action': 'message', 'aria-label': t('direct.writeTo', { username: item.shout.username }), onclick: () => void messages.writeTo(item.shout.username) }, t('direct.write')))
  if (ignorable) buttons.push(h('button', { type: 'button', class: 'shoutbox-action', 'data-action': 'report', 'aria-label': `${t('widget.report')} — ${about}`, onclick: () => startReport(item) }, t('widget.report')))
  item.actions.replaceChildren(...buttons)
}

/**
 * Whether the author of `item`'s shout may be muted, as the server said: not one who
 * moderates (nor a shout without an account behind it). Asked once per author, for a
 * moderator only; until the answer comes, undefined, and no Mute is offered — then the
 * author's shouts get it.
 */
const mutableAuthors = new Map<string, boolean | 'asking'>()
function mutable (item: Item): boolean | undefined {
  // Through an incoming hook: the name a tool gave, no account (and perhaps a member's name).
  if ('via' in item.shout) return false
  // A guest's address is muted by their shout: no account to ask about.
  if (item.shout.guest === true) return true
  const { username } = item.shout
  const known = mutableAuthors.get(username)
  if (known !== undefined) return known === 'asking' ? undefined : known
  mutableAuthors.set(username, 'asking')
  void call('GET', `/api/panel/shoutbox/${item.shout.id}/author`).then(answer => {
    if (!answer.ok && answer.status !== 404) return mutableAuthors.delete(username)
    mutableAuthors.set(username, answer.ok && !(answer.body!.author as { moderator: boolean }).moderator)
    for (const each of items.values()) if (each.shout.username === username && each.mode === 'moderated') drawActions(each, true)
  })
  return undefined
}

/** What a reply's quoted line is drawn from: what it answers, and whether its author is ignored. */
const quoteKey = (shout: FullShout): string => JSON.stringify([shout.replyTo, shout.replyTo !== null && 'username' in shout.replyTo && isIgnored(shout.replyTo.username)])

/** The quoted line of a reply; a click on it shows the original, when the list holds it, instead of opening its page. */
function drawQuote (item: Item): void {
  const { replyTo } = item.shout
  item.drawnQuote = quoteKey(item.shout)
  // A reply to someone the reader ignores: that it is one, and nothing of what they said.
  if (replyTo !== null && 'username' in replyTo && isIgnored(replyTo.username)) {
    item.quote.replaceChildren(h('p', { class: 'quote deleted' }, t('shout.replyToIgnored')))
    return
  }
  item.quote.replaceChildren(...(replyTo === null ? [] : [quoteLine(replyTo, locale, (id, event) => {
    const original = items.get(id)?.li
    if (original === undefined) return
    event.preventDefault()
    // A jump, not a glide, for a reader who asked for less motion.
    original.scrollIntoView({ block: 'nearest', behavior: matchMedia('(prefers-reduced-motion: reduce)').matches ? 'instant' : 'smooth' })
    original.focus({ preventScroll: true })
    original.classList.remove('shoutbox-flash')
    void original.offsetWidth // the highlight starts again on a second click
    original.classList.add('shoutbox-flash')
  })]))
}

/**
 * The reactions under a shout: for a member who may react here, a button per emoji with
 * its count (pressed when theirs: a press takes it back) and a React button that opens the
 * site's set; for anyone else, the counts alone.
 */
function drawReactions (item: Item): void {
  const interactive = mayTalk() && rules.reactions.length > 0 && item.shout.held !== true
  const key = JSON.stringify([item.shout.reactions, interactive, rules.reactions])
  if (key === item.drawnReactions) return
  const focused = item.reactions.contains(document.activeElement) ? (document.activeElement as HTMLElement).dataset.emoji : undefined
  item.drawnReactions = key
  // A picker left open stays open (counts change while one chooses).
  const pickerOpen = item.reactions.querySelector('.shoutbox-picker:not([hidden])') !== null
  const counts = item.shout.reactions.map(reaction => interactive
    ? h('button', {
      type: 'button', class: 'shoutbox-reaction', 'data-emoji': reaction.emoji, 'aria-pressed': String(reaction.mine === true),
      'aria-label': reactionLabel(reaction, locale), title: t(reaction.mine === true ? 'widget.takeBack' : 'widget.reactWith', { emoji: reaction.emoji }),
      onclick: () => void react(item, reaction.emoji, !isMine(item, reaction.emoji))
    }, `${reaction.emoji} ${reaction.count}`)
    : h('span', { class: reaction.mine === true ? 'shoutbox-reaction mine' : 'shoutbox-reaction', role: 'img', 'aria-label': reactionLabel(reaction, locale) }, `${reaction.emoji} ${reaction.count}`))
  item.reactions.replaceChildren(...counts, ...(interactive ? [reactionPicker(item)] : []))
  item.reactions.hidden = counts.length === 0 && !interactive
  if (pickerOpen) {
    item.reactions.querySelector('.shoutbox-picker')?.removeAttribute('hidden')
    item.reactions.querySelector('.shoutbox-react')?.setAttribute('aria-expanded', 'true')
  }
  if (focused !== undefined) item.reactions.querySelector<HTMLElement>(`[data-emoji="${focused}"]`)?.focus()
}

/**
 * React: a button that opens the site's emoji as a row of buttons (arrow keys move between
 * them, Escape closes it and goes back to React). A choice reacts, or takes one's reaction back.
 */
function reactionPicker (item: Item): HTMLElement {
  const id = `shoutbox-react-${item.shout.id}`
  const mine = new Set(item.shout.reactions.filter(reaction => reaction.mine === true).map(reaction => reaction.emoji))
  const open = h('button', {
    type: 'button', class: 'shoutbox-action shoutbox-react', 'data-emoji': '+', 'aria-expanded': 'false', 'aria-controls': id,
    'aria-label': t('widget.reactTo', { username: item.shout.username }), title: t('widget.react')
  }, h('span', { 'aria-hidden': 'true' }, '☺︎+'))
  const choices = rules.reactions.map(emoji => h('button', {
    type: 'button', class: 'shoutbox-choice-emoji', 'data-emoji': `pick:${emoji}`, 'aria-pressed': String(mine.has(emoji)),
    'aria-label': t(mine.has(emoji) ? 'widget.takeBack' : 'widget.reactWith', { emoji }),
    onclick: () => { close(); void react(item, emoji, !isMine(item, emoji)) }
  }, emoji))
  const picker = h('div', { class: 'shoutbox-picker', id, role: 'group', 'aria-label': t('widget.reactionsOf'), hidden: true }, ...choices)
  const close = (): void => {
    picker.hidden = true
    open.setAttribute('aria-expanded', 'false')
    open.focus()
  }
  open.addEventListener('click', () => {
    const opening = picker.hidden
    picker.hidden = !opening
    open.setAttribute('aria-expanded', String(opening))
    if (opening) choices[0]?.focus()
  })
  picker.addEventListener('keydown', event => {
    const at = choices.indexOf(document.activeElement as HTMLElement)
    const next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: choices.length - 1 }[event.key]
    if (event.key === 'Escape') {
      event.preventDefault()
      close()
    } else if (next !== undefined) {
      event.preventDefault()
      choices[(next + choices.length) % choices.length]?.focus()
    }
  })
  return h('span', { class: 'shoutbox-react-box' }, open, picker)
}

/** Whether the reader's reaction is among the shout's `emoji` now (not when the button was drawn). */
const isMine = (item: Item, emoji: string): boolean => item.shout.reactions.some(reaction => reaction.emoji === emoji && reaction.mine === true)

/** Adds (`on`) or takes back the reader's `emoji` on the item's shout; the counts come back with the answer. */
async function react (item: Item, emoji: string, on: boolean): Promise<void> {
  const answer = await call(on ? 'PUT' : 'DELETE', `/api/shoutbox/shouts/${item.shout.id}/reactions/${encodeURIComponent(emoji)}`)
  if (answer.ok) live.react(item.shout.id, answer.body!.reactions as Reaction[])
  else {
    announce(errorText(answer))
    if (answer.body?.error === 'MUTED') learnMute(answer)
  }
}

function newItem (shout: FullShout): Item {
  const quote = h('div', { class: 'shoutbox-quote' })
  const text = h('p', { class: 'text' })
  const time = h('time', { datetime: new Date(shout.date).toISOString(), title: new Date(shout.date).toLocaleString(locale) })
  const edited = h('span', { class: 'shoutbox-edited' })
  const reactions = h('div', { class: 'shoutbox-reactions', role: 'group', 'aria-label': t('shout.reactions') })
  const actions = h('div', { class: 'shoutbox-actions' })
  const li = h('li', { 'data-id': shout.id, tabindex: -1, class: shout.held === true ? 'shoutbox-held' : undefined }, quote, text, pictureGallery(shout.uploads, locale),
    h('p', { class: 'meta' }, h('span', { class: 'author' }, shout.username), botBadge(shout, t), ' · ',
      // A held shout has no page yet: it says it waits instead.
      shout.held === true ? h('span', { class: 'shoutbox-waiting' }, t('widget.waiting')) : h('a', { class: 'permalink', href: permalinkOf(shout.id), title: t('history.permalink') }, time), edited),
    h('div', { class: 'shoutbox-foot' }, reactions, actions))
  const item: Item = { shout, li, quote, text, time, edited, reactions, actions, drawnWith: -1, drawnQuote: '', drawnReactions: '', mode: 'none', replyable: false, ignorable: false }
  drawQuote(item)
  drawText(item)
  drawEdited(item)
  return item
}

function drawEdited (item: Item): void {
  const { edited } = item.shout
  item.edited.hidden = edited === undefined
  item.edited.textContent = edited === undefined ? '' : ` ${t('widget.editedMark')}`
  item.edited.title = edited === undefined ? '' : t('widget.editedAt', { time: when(edited) })
}

function render (): void {
  const { shouts, pinned } = live
  pinnedBox.hidden = pinned.length === 0
  pinnedList.replaceChildren(...pinned.map(shout => shoutItem(shout, locale, known.isUser)))
  const wanted: HTMLElement[] = []
  const ids = new Set<number>()
  // A pinned shout is shown once, among the pinned.
  const pinnedIds = new Set(pinned.map(shout => shout.id))
  // The shouts of those the reader ignores are hidden (the server leaves them out of its answers; these came live).
  // A held shout of the reader's own goes once it is on the board (approved before review kept ids: a new shout of theirs, with its text).
  const published = new Set(shouts.filter(shout => shout.held !== true && isOwn(shout)).map(shout => shout.message))
  const shown = shouts.filter(shout => !pinnedIds.has(shout.id) && !isIgnored(shout.username) && !(shout.held === true && published.has(shout.message)))
  for (const shout of shown) {
    ids.add(shout.id)
    let item = items.get(shout.id)
    // The reader's held shout, approved under its id: drawn anew, with its link and its buttons.
    if (item !== undefined && (item.shout.held === true) !== (shout.held === true)) {
      item.li.remove()
      item = undefined
    }
    if (item === undefined) {
      item = newItem(shout)
      items.set(shout.id, item)
    } else if (item.shout.message !== shout.message || item.drawnWith !== namesKnown) {
      item.shout = shout
      if (item.mode !== 'editing') drawText(item)
    }
    item.shout = shout
    if (quoteKey(shout) !== item.drawnQuote) drawQuote(item)
    item.time.textContent = relativeTime(shout.date, locale)
    drawEdited(item)
    drawReactions(item)
    drawActions(item)
    wanted.push(item.li)
  }
  for (const [id, item] of items) {
    if (!ids.has(id)) {
      item.li.remove()
      items.delete(id)
    }
  }
  // The line below what is new since the last visit: above the newest shout read then,
  // when someone else said something since.
  const firstOld = readUpTo === null ? -1 : shown.findIndex(shout => shout.id <= readUpTo!)
  const anyNew = readUpTo !== null && shown.some(shout => shout.id > readUpTo! && !isOwn(shout))
  if (firstOld > 0 && anyNew) wanted.splice(firstOld, 0, newSince)
  else newSince.remove()
  // "No shouts yet" once it is known, not while the first load is on its way.
  if (wanted.length === 0 && pinned.length === 0 && live.loaded) wanted.push(empty)
  else empty.remove()
  // Only what moved is moved: a focused button or an open edit stays where it is.
  wanted.forEach((li, index) => {
    if (list.children[index] !== li) list.insertBefore(li, list.children[index] ?? null)
  })
  while (list.children.length > wanted.length) list.lastElementChild!.remove()
}

function startEdit (item: Item): void {
  // A moderator edits someone else's shout through the panel's path: at any time, logged.
  const moderated = item.mode === 'moderated'
  item.mode = 'editing'
  const id = `shoutbox-edit-${item.shout.id}`
  const area = h('textarea', { id, rows: 2, 'aria-describedby': `${id}-left` }) as HTMLTextAreaElement
  area.value = item.shout.message
  const left = counter(area, `${id}-left`)
  const problem = h('p', { class: 'shoutbox-error', role: 'alert' })
  const save = h('button', { type: 'submit' }, t('widget.save')) as HTMLButtonElement
  const form = h('form', { class: 'shoutbox-edit' },
    h('label', { for: id, class: 'shoutbox-sr' }, moderated ? t('widget.editOthersLabel', { username: item.shout.username }) : t('widget.editLabel')), area,
    h('div', { class: 'shoutbox-row' }, left.element, save, h('button', { type: 'button', class: 'secondary', onclick: () => finish() }, t('widget.cancel'))),
    problem) as HTMLFormElement
  const finish = (): void => {
    form.remove()
    item.text.hidden = false
    item.mode = 'none'
    drawText(item)
    render()
    // Back on Edit (or, the window closed meanwhile, the first action left).
    const again = item.actions.querySelector<HTMLButtonElement>('button[data-action="edit"]') ?? item.actions.querySelector<HTMLButtonElement>('button')
    if (again !== null) again.focus()
    else composerArea?.focus()
  }
  form.addEventListener('submit', event => {
    event.preventDefault()
    void expandShortcodes(area.value).then(message => {
      const wrong = problemWith(message)
      if (wrong !== undefined) {
        problem.textContent = wrong
        return
      }
      save.disabled = true
      void saveEdit(message)
    })
  })
  const saveEdit = (message: string): Promise<void> => call('PUT', moderated ? `/api/panel/shoutbox/${item.shout.id}` : `/api/shoutbox/${item.shout.id}`, { message }).then(answer => {
    save.disabled = false
    if (answer.ok) {
      const shout = answer.body!.shout as FullShout
      live.put(shout)
      item.shout = shout
      announce(moderated ? t('widget.editedOthers', { username: shout.username }) : t('widget.edited'))
      finish()
    } else {
      problem.textContent = errorText(answer)
      area.focus()
      if (answer.body?.error === 'MUTED') learnMute(answer)
    }
  })
  sendOnEnter(area, form, finish)
  item.text.hidden = true
  item.actions.replaceChildren()
  item.text.after(form)
  area.focus()
  area.setSelectionRange(area.value.length, area.value.length)
}

function confirmDelete (item: Item): void {
  const moderated = item.mode === 'moderated'
  item.mode = 'confirming'
  const problem = h('p', { class: 'shoutbox-error', role: 'alert' })
  const cancel = (): void => {
    item.mode = 'none'
    drawActions(item)
    item.actions.querySelector<HTMLButtonElement>('button:last-of-type')?.focus()
  }
  const remove = async (): Promise<void> => {
    // A moderator deletes through the panel's path, logged, whoever wrote it (the widget
    // tells "own" by username; the server by account, and old shouts have none).
    const answer = await call('DELETE', isModerator() ? `/api/panel/shoutbox/${item.shout.id}` : `/api/shoutbox/${item.shout.id}`)
    if (answer.ok || answer.status === 404) {
      live.remove(item.shout.id)
      announce(t(moderated ? 'widget.removed' : 'widget.deleted'))
      composerArea?.focus()
    } else {
      problem.textContent = errorText(answer)
    }
  }
  item.actions.replaceChildren(
    h('span', {}, moderated ? t('widget.confirmRemove', { username: item.shout.username }) : t('widget.confirm')),
    h('button', { type: 'button', class: 'shoutbox-action danger', onclick: () => void remove() }, t('widget.confirmDelete')),
    h('button', { type: 'button', class: 'shoutbox-action', onclick: cancel }, t('widget.cancel')),
    problem)
  item.actions.querySelector<HTMLButtonElement>('button.danger + button')?.focus()
}

/**
 * A small form in place of a shout's buttons (Mute, Report): a title, a choice (the first
 * chosen and focused), a line of text, the confirming button and Cancel; Escape cancels.
 * `send` answers what went wrong, in words, or undefined once done; the buttons then come
 * back, the focus on the one `back` finds.
 */
function inlineForm (item: Item, form: {
  mode: 'muting' | 'reporting', kind: string, title: string, legend: string, choices: ReadonlyArray<[value: string, label: string]>,
  textLabel: string, confirm: string, confirmClass?: string, back: string, send: (chosen: string, text: string) => Promise<string | undefined>
}): void {
  item.mode = form.mode
  const id = `shoutbox-${form.kind}-${item.shout.id}`
  const problem = h('p', { class: 'shoutbox-error', role: 'alert' })
  const choices = form.choices.map(([value, label], index) => h('label', { class: 'shoutbox-choice' },
    h('input', { type: 'radio', name: `${id}-choice`, value, checked: index === 0 }), ' ', label))
  const text = h('input', { type: 'text', id: `${id}-text`, maxlength: 500, autocomplete: 'off' }) as HTMLInputElement
  const confirm = h('button', { type: 'submit', class: form.confirmClass }, form.confirm) as HTMLButtonElement
  const element = h('form', { class: `shoutbox-mute shoutbox-${form.kind}`, 'aria-labelledby': `${id}-title` },
    h('p', { class: 'shoutbox-mute-title', id: `${id}-title` }, form.title),
    h('fieldset', {}, h('legend', {}, form.legend), ...choices),
    h('label', { for: `${id}-text`, class: 'shoutbox-mute-reason' }, form.textLabel), text,
    h('div', { class: 'shoutbox-row' }, confirm, h('button', { type: 'button', class: 'secondary', onclick: () => finish() }, t('widget.cancel'))),
    problem) as HTMLFormElement
  const finish = (): void => {
    item.mode = 'none'
    drawActions(item, true)
    item.actions.querySelector<HTMLButtonElement>(form.back)?.focus()
  }
  element.addEventListener('keydown', event => {
    if (event.key === 'Escape') {
      event.preventDefault()
      finish()
    }
  })
  element.addEventListener('submit', event => {
    event.preventDefault()
    const chosen = element.querySelector<HTMLInputElement>('input[type="radio"]:checked')?.value ?? form.choices[0]![0]
    confirm.disabled = true
    void form.send(chosen, text.value).then(wrong => {
      confirm.disabled = false
      if (wrong === undefined) finish()
      else problem.textContent = wrong
    })
  })
  item.actions.replaceChildren(element)
  element.querySelector<HTMLInputElement>('input[type="radio"]')?.focus()
}

/**
 * The mute form of a shout's author, in place of its buttons: how long (a choice of
 * lengths, 10 minutes first), an optional reason, then Mute or Cancel (Escape cancels).
 * The list names authors, not accounts: the author's account is asked for first.
 */
function startMute (item: Item): void {
  inlineForm(item, {
    mode: 'muting',
    kind: 'mute',
    title: t('widget.muteTitle', { username: item.shout.username }),
    legend: t('widget.muteFor'),
    // A guest's address is muted for a day at most.
    choices: MUTE_CHOICES.filter(([minutes]) => item.shout.guest !== true || (minutes !== null && minutes <= 1440)).map(([minutes, key]) => [minutes === null ? '' : String(minutes), t(key)]),
    textLabel: t('widget.muteReason'),
    confirm: t('widget.confirmMute'),
    confirmClass: 'danger',
    back: 'button:last-of-type',
    send: async (chosen, reason) => {
      if (item.shout.guest === true) {
        const made = await call('POST', '/api/panel/shoutbox/guest-mutes', { shoutId: item.shout.id, minutes: Number(chosen), ...(reason === undefined || reason === '' ? {} : { reason }) })
        if (!made.ok) return errorText(made)
        announce(t('widget.mutedSomeone', { username: item.shout.username, time: when((made.body!.mute as { until: number }).until) }))
        return undefined
      }
      const author = await call('GET', `/api/panel/shoutbox/${item.shout.id}/author`)
      if (!author.ok) return errorText(author)
      const who = author.body!.author as { userId: number, username: string, moderator: boolean }
      if (who.moderator) return t('widget.cannotMute', { username: who.username })
      const made = await call('POST', '/api/panel/shoutbox/mutes', { userId: who.userId, minutes: chosen === '' ? null : Number(chosen), reason })
      if (!made.ok) return errorText(made)
      const mute = made.body!.mute as { username: string, until: number | null }
      announce(mute.until === null ? t('widget.mutedSomeoneForever', { username: mute.username }) : t('widget.mutedSomeone', { username: mute.username, time: when(mute.until) }))
      return undefined
    }
  })
}

/** Report: the reasons as choices, a note if the reader wants, Send or Cancel (Escape); the moderators decide. */
function startReport (item: Item): void {
  inlineForm(item, {
    mode: 'reporting',
    kind: 'report',
    title: t('widget.reportTitle', { username: item.shout.username }),
    legend: t('widget.reportWhy'),
    choices: (['spam', 'abuse', 'off-topic', 'other'] as const).map(reason => [reason, t(`widget.reportReason.${reason}`)]),
    textLabel: t('widget.reportNote'),
    confirm: t('widget.sendReport'),
    back: 'button[data-action="report"]',
    send: async (reason, note) => {
      const answer = await call('POST', `/api/shoutbox/shouts/${item.shout.id}/report`, { reason, ...(note.trim() === '' ? {} : { note }) })
      if (!answer.ok && answer.body?.error !== 'ALREADY_REPORTED') return errorText(answer)
      announce(t('widget.reported', { username: item.shout.username }))
      return undefined
    }
  })
}

// ---------------------------------------------------------------------------------------------
// Ignoring: whose shouts the reader would rather not see

/** The reader's ignore list, as the server answered it: the list and the box follow. */
function learnIgnored (list: typeof ignored): void {
  ignored = list
  ignoredBox.hidden = list.length === 0
  const open = (ignoredBox as HTMLDetailsElement).open
  ignoredBox.replaceChildren(h('summary', {}, t('widget.ignoring', { count: list.length })),
    h('ul', {}, ...list.map(({ userId, username }) => h('li', {}, h('span', { class: 'author' }, username), ' ',
      h('button', { type: 'button', class: 'shoutbox-action', 'aria-label': `${t('widget.unignore')} — ${username}`, onclick: () => void unignore(userId, username) }, t('widget.unignore'))))))
  ;(ignoredBox as HTMLDetailsElement).open = open && list.length > 0
  render()
}

/** Ignores the author of `item`'s shout: the server says whose account it is (and whether they moderate). */
async function ignoreAuthor (item: Item): Promise<void> {
  const author = await call('GET', `/api/shoutbox/shouts/${item.shout.id}/author`)
  if (!author.ok) return announce(errorText(author))
  const who = author.body!.author as { userId: number, username: string, moderator: boolean }
  if (who.moderator) return announce(t('widget.cannotIgnore', { username: who.username }))
  const made = await call('PUT', `/api/users/me/ignored/${who.userId}`)
  if (!made.ok) return announce(errorText(made))
  learnIgnored(made.body!.ignored as typeof ignored)
  announce(t('widget.ignoredSomeone', { username: who.username }))
  composerArea?.focus()
}

async function unignore (userId: number, username: string): Promise<void> {
  const made = await call('DELETE', `/api/users/me/ignored/${userId}`)
  if (!made.ok) return announce(errorText(made))
  // Their shouts come back: those the server left out of the last load are read again.
  learnIgnored(made.body!.ignored as typeof ignored)
  announce(t('widget.unignored', { username }))
  void live.reload()
}

/**
 * Asks which rooms the reader may read now; the tabs follow, and the composer when
 * posting in the room shown became allowed or not (a message being typed stays otherwise).
 */
async function askRooms (): Promise<void> {
  const readable = await call('GET', '/api/shoutbox/rooms')
  const couldPost = mayPost()
  if (readable.ok && learnRooms(readable.body!.rooms as Room[]) && mayPost() !== couldPost) drawYou()
}

/**
 * The room the address names (`/?room=games`: the embed's "Join the conversation"), or
 * the one shown last time, if the browser kept it (the server says later whether it may
 * still be read).
 */
function rememberedRoom (): string {
  const named = new URLSearchParams(location.search).get('room')
  if (named !== null && isRoomSlug(named)) return named
  try {
    return localStorage.getItem(ROOM_KEY) ?? DEFAULT_ROOM
  } catch {
    return DEFAULT_ROOM
  }
}

const live = new LiveShouts({
  room: rememberedRoom(),
  elsewhere: heardElsewhere,
  arrived,
  // A stream the server closed (one's role or a room's readers changed) connects again,
  // or the stream says the rooms changed: the rooms one may read are asked again, and the
  // tabs and the composer follow.
  reconnected: () => void askRooms(),
  roomsChanged: () => void askRooms(),
  presence: ({ room, ...now }) => presence.learn(room, now),
  // Muted or let speak again by a moderator, on any process: the composer follows at once.
  heard: () => void refreshSession(),
  changed: fresh => {
    // Setup finished since the page opened (the list reads again): ask who is here anew.
    if (log.hidden) void refreshSession()
    render()
    older.update()
    markRead()
    if (live.loaded) log.removeAttribute('aria-busy')
    void known.learn(fresh.map(shout => shout.message)).then(found => {
      if (!found) return
      namesKnown++
      render()
    })
  }
})

// The list scrolls inside the widget's box; older shouts come at its end, on demand.
const older = new OlderShouts(live, log, locale, announce)
log.append(older.element)

setInterval(render, 15_000) // keeps "2 minutes ago" true, and takes Edit away when the window closes
drawYou()
void refreshSession()
live.start()
void presence.show(live.room)
