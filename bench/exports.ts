/**
 * exports: six data exports at once of a member with 250,000 shouts (made in SQL), two
 * from each of three client addresses (X-Forwarded-For, believed from loopback: the
 * site's host runs with TRUST_PROXY=127.0.0.1), read as fast as the client can; once all
 * six are under way, a seventh from the first address, which the two-at-a-time bound
 * must refuse. The host's resident memory before (idle) and at most while answering,
 * every answer's status, and how long the six took.
 */

/** What the part needs of a bench site (run.ts's Site). */
export interface ExportsSite {
  url (): Promise<string>
  readonly cookie: string
  rssMiB (): Promise<number>
  api (method: string, url: string, body?: unknown): Promise<{ status: number, json: Record<string, unknown> }>
  offline<T> (work: () => Promise<T>): Promise<T>
  sql<T = Record<string, unknown>> (query: string): Promise<T[]>
}

export const EXPORT_SHOUTS = 250_000
/** Two exports from each: as many at once as one client may have. */
const CLIENTS = ['10.0.0.1', '10.0.0.2', '10.0.0.3']
const MEMBER = { username: 'exporter', email: 'exporter@example.org', password: 'benchmark password' }

export interface ExportsResult {
  readonly idleMiB: number
  readonly peakMiB: number
  /** The six exports' statuses, and the seventh's (with its Retry-After). */
  readonly statuses: number[]
  readonly refused: { status: number, retryAfter: string | null }
  readonly seconds: number
  readonly bytes: number[]
  /** Shouts in each export, as parsed: every answer a whole document. */
  readonly shouts: number[]
}

export async function measureExports (site: ExportsSite, log: (line: string) => void): Promise<ExportsResult> {
  const base = await site.url()
  const roles = (await site.api('GET', '/api/panel/roles')).json.roles as Array<{ id: number, name: string }>
  const made = await site.api('POST', '/api/panel/users', { ...MEMBER, roleId: roles.find(role => role.name === 'member')!.id })
  if (made.status !== 200) throw new Error(`the member was not made: ${made.status}`)
  const memberId = (made.json.user as { id: number }).id
  await site.offline(async () => {
    log(`seeding ${EXPORT_SHOUTS.toLocaleString('en-US')} shouts of one member`)
    await site.sql(`insert into shoutbox_shouts (message, username, author_id, date)
      select 'Seeded shout number ' || lpad(g::text, 7, '0') || ', about as long as a real one.', '${MEMBER.username}', ${memberId}, ${Date.now()} + g
      from generate_series(1, ${EXPORT_SHOUTS}) as g`)
    await site.sql('vacuum analyze shoutbox_shouts')
    await site.sql('checkpoint')
  })
  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: MEMBER.username, password: MEMBER.password })
  })
  const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!
  await new Promise(resolve => setTimeout(resolve, 3000))

  const idleMiB = await site.rssMiB()
  let peakMiB = idleMiB
  const watching = setInterval(() => { void site.rssMiB().then(now => { peakMiB = Math.max(peakMiB, now) }, () => {}) }, 50)
  const exportFrom = (client: string): Promise<Response> => fetch(`${base}/api/users/me/export`, { headers: { cookie, 'x-forwarded-for': client } })
  const started = Date.now()
  try {
    const answers = await Promise.all([...CLIENTS, ...CLIENTS].map(exportFrom))
    // All six under way (their heads have come): a third from one address is refused.
    const seventh = await exportFrom(CLIENTS[0]!)
    const refused = { status: seventh.status, retryAfter: seventh.headers.get('retry-after') }
    await seventh.arrayBuffer()
    const bodies = await Promise.all(answers.map(async answer => Buffer.from(await answer.arrayBuffer())))
    const seconds = (Date.now() - started) / 1000
    clearInterval(watching)
    peakMiB = Math.max(peakMiB, await site.rssMiB())
    const shouts = bodies.map(body => {
      try {
        return (JSON.parse(body.toString('utf8')) as { export: { addons: { shoutbox: { shouts: unknown[] } } } }).export.addons.shoutbox.shouts.length
      } catch {
        return NaN
      }
    })
    log(`exports: ${answers.map(answer => answer.status).join(', ')}, the seventh ${refused.status}; ${seconds.toFixed(1)} s; ${idleMiB.toFixed(0)} -> ${peakMiB.toFixed(0)} MiB`)
    return { idleMiB, peakMiB, statuses: answers.map(answer => answer.status), refused, seconds, bytes: bodies.map(body => body.length), shouts }
  } finally {
    clearInterval(watching)
  }
}
