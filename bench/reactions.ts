/**
 * The reactions part's load: members who react to a few shouts at a steady rate, and one
 * stream reader who counts the `shout-reactions` events the stream carries meanwhile.
 */
import { connectSse } from '../test/helpers/sse.js'
import { percentile } from './stats.js'

export interface Reactors {
  /** The members' session cookies. */
  readonly cookies: readonly string[]
  /** The shouts they react to. */
  readonly shoutIds: readonly number[]
  /** Which reactions are on now (member/shout/emoji), across runs: each request changes something. */
  readonly on: Set<string>
}

export interface ReactingResult {
  /** Reaction requests sent, and their answers by status. */
  readonly sent: number
  readonly statuses: Readonly<Record<string, number>>
  /** `shout-reactions` events the reader heard from the start to 1.5 s after the stop, and over how many seconds. */
  readonly events: number
  readonly seconds: number
  /** The most heard in any one second (by arrival). */
  readonly mostInASecond: number
  /** The reader's stream's status: 200, or why it heard nothing. */
  readonly readerStatus: number
  /** How long the reaction requests took to be answered, ms. */
  readonly answerP50: number
  readonly answerP99: number
}

const EMOJI = ['👍', '❤️', '😂', '😮', '😢', '🎉']


/** `members` members (made once, by the administrator's `cookie`, and signed in) and `shouts` shouts to react to. */
export async function prepareReactors (url: string, cookie: string, members: number, shouts: number): Promise<Reactors> {
  const json = async (method: string, path: string, body?: unknown, as = cookie): Promise<{ status: number, body: Record<string, unknown>, setCookie: string[] }> => {
    const response = await fetch(`${url}${path}`, {
      method, headers: { cookie: as, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { status: response.status, body: await response.json() as Record<string, unknown>, setCookie: response.headers.getSetCookie() }
  }
  const roles = (await json('GET', '/api/panel/roles')).body.roles as Array<{ id: number, name: string }>
  const roleId = roles.find(role => role.name === 'member')!.id
  const cookies: string[] = []
  for (let i = 0; i < members; i++) {
    const username = `fan${i}`
    const made = await json('POST', '/api/panel/users', { username, email: `${username}@example.org`, password: 'a long password', roleId })
    if (made.status !== 200 && made.body.error !== 'USERNAME_TAKEN') throw new Error(`could not make ${username}: ${JSON.stringify(made.body)}`)
    const login = await json('POST', '/api/auth/login', { username, password: 'a long password' }, '')
    if (login.status !== 200) throw new Error(`could not sign ${username} in: ${JSON.stringify(login.body)}`)
    cookies.push(login.setCookie[0]!.split(';')[0]!)
  }
  for (let i = 0; i < shouts; i++) await json('POST', '/api/panel/shoutbox', { message: `React to shout ${i}` })
  const latest = (await json('GET', `/api/shoutbox/latest?limit=${shouts}`)).body.shouts as Array<{ id: number }>
  return { cookies, shoutIds: latest.map(shout => shout.id), on: new Set() }
}

/**
 * Sends `perSecond` reaction requests a second to `url`, evenly spaced, each on the next
 * shout in turn (a member sends one to each shout, then the next member), with the next
 * emoji: a member's own reaction goes on, then off, then on. A stream reader counts the `shout-reactions` events meanwhile. `stop`
 * ends the sending, waits for the answers and a second more for the last events.
 */
export function startReacting (url: string, reactors: Reactors, perSecond: number): { stop: () => Promise<ReactingResult> } {
  const reader = connectSse(`${url}/api/shoutbox/stream`)
  const started = Date.now()
  const arrivals: number[] = []
  let seen = 0
  const counting = setInterval(() => {
    for (; seen < reader.events.length; seen++) if (reader.events[seen]!.event === 'shout-reactions') arrivals.push(Date.now())
  }, 5)
  const statuses: Record<string, number> = {}
  const answerMs: number[] = []
  const pending: Array<Promise<void>> = []
  const { on } = reactors
  let sent = 0
  const sending = setInterval(() => {
    // As many as are due by now: timers run late on a busy machine.
    const due = Math.floor((Date.now() - started) * perSecond / 1000)
    for (; sent < due; sent++) {
      // Every shout in turn; a member sends one to each, then the next member's turn.
      const shoutId = reactors.shoutIds[sent % reactors.shoutIds.length]!
      const cookie = reactors.cookies[Math.floor(sent / reactors.shoutIds.length) % reactors.cookies.length]!
      const emoji = EMOJI[sent % EMOJI.length]!
      const key = `${cookie}/${shoutId}/${emoji}`
      const method = on.has(key) ? 'DELETE' : 'PUT'
      if (method === 'PUT') on.add(key)
      else on.delete(key)
      const sentAt = performance.now()
      pending.push(fetch(`${url}/api/shoutbox/shouts/${shoutId}/reactions/${encodeURIComponent(emoji)}`, { method, headers: { cookie } })
        .then(async response => {
          await response.arrayBuffer()
          answerMs.push(performance.now() - sentAt)
          statuses[response.status] = (statuses[response.status] ?? 0) + 1
        }, () => { statuses.failed = (statuses.failed ?? 0) + 1 }))
    }
  }, 2)
  return {
    async stop () {
      clearInterval(sending)
      const stopped = Date.now()
      await Promise.all(pending)
      await new Promise(resolve => setTimeout(resolve, 1500))
      clearInterval(counting)
      for (; seen < reader.events.length; seen++) if (reader.events[seen]!.event === 'shout-reactions') arrivals.push(Date.now())
      reader.close()
      const perSecondHeard = new Map<number, number>()
      for (const at of arrivals) perSecondHeard.set(Math.floor((at - started) / 1000), (perSecondHeard.get(Math.floor((at - started) / 1000)) ?? 0) + 1)
      return {
        sent,
        statuses,
        events: arrivals.length,
        // The events were counted until a second and a half after the stop: so is the time.
        seconds: (stopped + 1500 - started) / 1000,
        mostInASecond: Math.max(0, ...perSecondHeard.values()),
        readerStatus: await reader.status,
        answerP50: Math.round(percentile(answerMs, 50)),
        answerP99: Math.round(percentile(answerMs, 99))
      }
    }
  }
}
