/**
 * The direct part (`--only direct`; issue 55, contract §27): `conversations` open
 * conversations of two (2 × conversations members, made in SQL before anything is timed:
 * accounts copied from one made through the API, a session each, the conversations as
 * rows — the API would allow a member 10 new conversations an hour), every member's
 * stream open (bench/direct-members.ts: a client process of up to 2,500 streams, on the
 * load generator's core). Each of `rounds` rounds has two phases, in an order that
 * alternates, with the same streams:
 *
 * - quiet: 20 room shouts 250 ms apart, published by the administrator, delivered to the
 *   members' streams (each stream is a reader of the board's room and of its conversation);
 * - direct: the same while direct messages go out at `rate` a second (by default one a
 *   second in each conversation), `POST /api/shoutbox/direct/:username` from a process of
 *   their own on the generator's core (bench/direct-senders.ts), from LEAD_MS before the
 *   first shout until every shout is delivered.
 *
 * Reported: the room shouts' delivery p50 / p99 quiet and during the direct traffic, and
 * direct / quiet (the medians of the rounds' ratios; §27's target for p99: ≤ 1.2×); the
 * direct messages a second asked and answered; their delivery to the other member's
 * stream (from the answer and from the sending); any heard on a third member's stream;
 * the CPU of the host, the sender and the stream clients over the direct phases (a phase
 * is a figure of the host only while its load generator stayed short of a core), and the
 * load average.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { ChildProcess } from 'node:child_process'
import os from 'node:os'
import type { BurstResult, DirectArrivals } from './direct-members.js'
import type { SendersResult } from './direct-senders.js'
import { cpuMs, lines, log, median, node, openFilesLimit, sleep } from './parts/processes.js'
import type { Row } from './parts/list.js'
import type { Site } from './parts/site.js'
import { coreTicks, WRK_SATURATED } from './parts/wrk.js'
import { percentile } from './stats.js'

export interface DirectOptions {
  readonly conversations: number
  /** Direct messages a second; one a second in each conversation by default. */
  readonly rate?: number
  readonly rounds: number
}

/** Room shouts a phase, and how far apart. */
const PUBLISHES = 20
const GAP_MS = 250
/** Direct traffic before the first room shout of a direct phase. */
const LEAD_MS = 2000
const MEMBERS_PER_PROCESS = 2500
const STREAMS_PER_ADDRESS = 20
const PASSWORD = 'a long password'
/** The members' names: the template made through the API, the others copied from it in SQL. */
const TEMPLATE = 'dmbench'
const memberName = (n: number): string => `dmb${String(n).padStart(6, '0')}`
/** A conversation's read and post nodes, as src/shoutbox/direct/conversations-repository.ts writes them. */
const DIRECT_NODE = 'addon.shoutbox.direct.~'

const fmt = (n: number, digits = 0): string => Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '—'
const note = (text: string): Row => [text, '', '', '', '', '']

interface Member { readonly username: string, readonly cookie: string }

/**
 * 2 × `conversations` members with a session each, and a conversation of each pair (2c,
 * 2c + 1), written in SQL with the host stopped (the embedded database is the host's
 * alone while it runs). The template member is made through the API, so every column of
 * an account is as the host writes it; the others copy it.
 */
async function seed (site: Site, conversations: number): Promise<Member[]> {
  const roles = (await site.api('GET', '/api/panel/roles')).json.roles as Array<{ id: number, name: string }>
  const roleId = roles.find(role => role.name === 'member')!.id
  const made = await site.api('POST', '/api/panel/users', { username: TEMPLATE, email: `${TEMPLATE}@example.org`, password: PASSWORD, roleId })
  if (made.status !== 200) throw new Error(`could not make ${TEMPLATE}: ${JSON.stringify(made.json)}`)
  const login = await fetch(`${await site.url()}/api/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: TEMPLATE, password: PASSWORD })
  })
  await login.arrayBuffer()
  if (login.status !== 200) throw new Error(`could not sign ${TEMPLATE} in`)
  const cookieName = login.headers.getSetCookie()[0]!.split('=')[0]!
  const now = Date.now()
  const tokens = Array.from({ length: 2 * conversations }, () => randomBytes(32).toString('base64url'))
  const sessions = tokens.map((token, n) => `('${memberName(n)}', '${createHash('sha256').update(token).digest('hex')}')`).join(',\n')
  await site.stop()
  try {
    const columns = (await site.sql<{ column_name: string }>(`select column_name from information_schema.columns
      where table_schema = current_schema() and table_name = 'users' and column_name not in ('id', 'username', 'email')`)).map(row => `"${row.column_name}"`)
    log(`direct: seeding ${fmt(2 * conversations)} members, their sessions and ${fmt(conversations)} conversations`)
    await site.sql(`with made as (
        insert into users (username, email, ${columns.join(', ')})
        select 'dmb' || lpad(g::text, 6, '0'), 'dmb' || g || '@example.org', ${columns.map(column => `t.${column}`).join(', ')}
        from users t cross join generate_series(0, ${2 * conversations - 1}) as g where t.username = '${TEMPLATE}'
        returning id, username),
      sessions_made as (
        insert into sessions (token_hash, user_id, created_at, expires_at)
        select v.hash, made.id, ${now}, ${now + 7 * 86_400_000} from made join (values ${sessions}) as v(name, hash) on v.name = made.username)
      insert into shoutbox_rooms (id, slug, name, kind, member_low, member_high, started_by, read_access, post_access, created_at)
      select n.id, '~' || n.id, '', 'direct', least(a.id, b.id), greatest(a.id, b.id), a.id, '${DIRECT_NODE}', '${DIRECT_NODE}', ${now}
      from (select nextval(pg_get_serial_sequence('shoutbox_rooms', 'id')) as id, g from generate_series(0, ${conversations - 1}) as g) as n
      join made a on a.username = 'dmb' || lpad((2 * n.g)::text, 6, '0')
      join made b on b.username = 'dmb' || lpad((2 * n.g + 1)::text, 6, '0')`)
    const [counted] = await site.sql<{ rooms: number, sessions: number }>(`select (select count(*)::int from shoutbox_rooms where kind = 'direct') as rooms,
      (select count(*)::int from sessions s join users u on u.id = s.user_id where u.username like 'dmb0%') as sessions`)
    if (counted!.rooms < conversations || counted!.sessions < 2 * conversations) throw new Error(`direct: seeded ${JSON.stringify(counted)}`)
  } finally {
    await site.start()
  }
  return tokens.map((token, n) => ({ username: memberName(n), cookie: `${cookieName}=${token}` }))
}

interface Readers { groups: Array<{ child: ChildProcess, next: () => Promise<string> }>, connected: number }

/** Every member's stream, from client processes of up to MEMBERS_PER_PROCESS on the generator's core. */
async function connectReaders (url: string, members: readonly Member[], marker: string, directMarker: string): Promise<Readers> {
  const groups: Readers['groups'] = []
  const connecting = Date.now()
  for (let first = 0; first < members.length; first += MEMBERS_PER_PROCESS) {
    const slice = members.slice(first, first + MEMBERS_PER_PROCESS)
    const child = node(['--import', 'tsx', 'bench/direct-members.ts', JSON.stringify({
      url: `${url}/api/shoutbox/stream`, first, count: slice.length, cookies: slice.map(member => member.cookie),
      perAddress: STREAMS_PER_ADDRESS, connecting: 32, marker, directMarker, publishes: PUBLISHES
    })], {}, 1)
    groups.push({ child, next: lines(child) })
  }
  const statuses = await Promise.all(groups.map(async group => JSON.parse(await group.next()) as { connected: number, failed: number }))
  const connected = statuses.reduce((sum, status) => sum + status.connected, 0)
  log(`direct: ${connected} of ${members.length} members' streams connected in ${((Date.now() - connecting) / 1000).toFixed(1)} s, ${groups.length} client processes`)
  return { groups, connected }
}

interface Phase {
  readonly p50: number
  readonly p99: number
  readonly sentP50: number
  readonly sentP99: number
  readonly delivered: number
  readonly expected: number
  readonly missed: number
  readonly duplicates: number
}

/** Burst `b`: PUBLISHES room shouts GAP_MS apart, waited for on every stream (10 s at most), then timed. */
async function roomBurst (site: Site, readers: Readers, marker: string, b: number): Promise<Phase> {
  const sentAt: number[] = []
  const answeredAt: number[] = []
  const publishing = Date.now()
  for (let i = 0; i < PUBLISHES; i++) {
    await sleep(Math.max(0, publishing + i * GAP_MS - Date.now()))
    sentAt.push(Date.now())
    const response = await site.api('POST', '/api/panel/shoutbox', { message: `${marker}-${b} ${i}` })
    answeredAt.push(Date.now())
    if (response.status !== 200) throw new Error(`publish failed: ${JSON.stringify(response.json)}`)
  }
  const expected = readers.connected * PUBLISHES
  const deadline = Date.now() + 10_000
  for (;;) {
    await sleep(250)
    let received = 0
    for (const group of readers.groups) {
      group.child.stdin!.write(`count ${b}\n`)
      received += (JSON.parse(await group.next()) as { received: number }).received
    }
    if (received >= expected || Date.now() > deadline) break
  }
  const results = await Promise.all(readers.groups.map(async group => {
    group.child.stdin!.write(`burst ${b} ${JSON.stringify({ sentAt, answeredAt })}\n`)
    return JSON.parse(await group.next()) as BurstResult
  }))
  const latencies = results.flatMap(result => result.latencies)
  const fromSent = results.flatMap(result => result.fromSent)
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    sentP50: percentile(fromSent, 50),
    sentP99: percentile(fromSent, 99),
    delivered: latencies.length,
    expected,
    missed: results.reduce((sum, result) => sum + result.missed, 0),
    duplicates: results.reduce((sum, result) => sum + result.duplicates, 0)
  }
}

interface DirectPhase extends Phase {
  readonly senders: SendersResult
  /** Direct messages answered 2xx and heard on the other member's stream; their delays, ms. */
  readonly heard: number
  readonly directP50: number
  readonly directP99: number
  readonly directSentP50: number
  readonly directSentP99: number
  readonly strays: number
  /** % of a core over the phase: the host, the sender, each stream client; how busy cores 0 and 1 were. */
  readonly hostCpu: number
  readonly senderCpu: number
  readonly readerCpu: number[]
  readonly core0Busy: number
  readonly core1Busy: number
}

/** Room burst `b` while direct messages go out at `rate` a second, from LEAD_MS before it until it is delivered. */
async function directBurst (site: Site, readers: Readers, members: readonly Member[], marker: string, directMarker: string, b: number, rate: number, firstSeq: number): Promise<DirectPhase> {
  const url = await site.url()
  const sender = node(['--import', 'tsx', 'bench/direct-senders.ts', JSON.stringify({ url, rate, maxSeconds: 120, marker: directMarker, firstSeq, members })], {}, 1)
  const next = lines(sender)
  await next()
  const pids = { host: site.child!.pid!, sender: sender.pid!, readers: readers.groups.map(group => group.child.pid!) }
  const cpu = async (): Promise<{ at: number, host: number, sender: number, readers: number[], core0: Awaited<ReturnType<typeof coreTicks>>, core1: Awaited<ReturnType<typeof coreTicks>> }> => {
    const total = async (pid: number): Promise<number> => { const { user, system } = await cpuMs(pid); return user + system }
    return { at: performance.now(), host: await total(pids.host), sender: await total(pids.sender), readers: await Promise.all(pids.readers.map(total)), core0: await coreTicks(0), core1: await coreTicks(1) }
  }
  await sleep(LEAD_MS)
  const before = await cpu()
  const phase = await roomBurst(site, readers, marker, b)
  const after = await cpu()
  sender.stdin!.write('stop\n')
  const senders = JSON.parse(await next()) as SendersResult
  // The last messages' events, then what each stream heard.
  await sleep(1500)
  const heard = await Promise.all(readers.groups.map(async group => {
    group.child.stdin!.write('direct\n')
    return JSON.parse(await group.next()) as DirectArrivals
  }))
  const answered = new Map(senders.answered.map(([seq, sentAt, answeredAt]) => [seq, { sentAt, answeredAt }]))
  const fromAnswer: number[] = []
  const fromSent: number[] = []
  for (const [seq, at] of heard.flatMap(each => each.arrivals)) {
    const times = answered.get(seq)
    if (times === undefined) continue
    fromAnswer.push(at - times.answeredAt)
    fromSent.push(at - times.sentAt)
  }
  const wallMs = after.at - before.at
  const share = (from: number, to: number): number => 100 * (to - from) / wallMs
  type Ticks = Awaited<ReturnType<typeof coreTicks>>
  const busy = (a: Ticks, z: Ticks): number => a === undefined || z === undefined || z.all === a.all ? NaN : 100 * (1 - (z.idle - a.idle) / (z.all - a.all))
  return {
    ...phase,
    senders,
    heard: fromAnswer.length,
    directP50: percentile(fromAnswer, 50),
    directP99: percentile(fromAnswer, 99),
    directSentP50: percentile(fromSent, 50),
    directSentP99: percentile(fromSent, 99),
    strays: heard.reduce((sum, each) => sum + each.strays, 0),
    hostCpu: share(before.host, after.host),
    senderCpu: share(before.sender, after.sender),
    readerCpu: before.readers.map((from, i) => share(from, after.readers[i]!)),
    core0Busy: busy(before.core0, after.core0),
    core1Busy: busy(before.core1, after.core1)
  }
}

/** The direct part's rows. */
export async function directPart (site: Site, { conversations, rate = conversations, rounds }: DirectOptions): Promise<Row[]> {
  if (!(conversations >= 1)) throw new Error('--conversations: 1 or more')
  if (!(rate > 0)) throw new Error('--direct-rate: more than 0')
  const limit = await openFilesLimit(site.child!.pid!)
  if (limit < 2 * conversations + 256) throw new Error(`the host may open ${limit} files, too few for ${2 * conversations} streams: raise the hard limit (ulimit -Hn) or pass a smaller --conversations`)
  // Each member writes one message every 2 s at the default rate: the flood rules raised for the bench (restored after).
  const settings = (await site.api('GET', '/api/panel/shoutbox/config')).json
  const floodRules = { minSecondsBetweenShouts: settings.minSecondsBetweenShouts, maxShoutsPerMinute: settings.maxShoutsPerMinute }
  const raised = await site.api('PUT', '/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600, directMessages: true })
  if (raised.status !== 200) throw new Error(`could not raise the flood limits: ${JSON.stringify(raised.json)}`)
  const members = await seed(site, conversations)
  const url = await site.url()
  await site.api('GET', '/api/shoutbox/list')
  await sleep(1000)
  const marker = `room-${randomBytes(3).toString('hex')}`
  const directMarker = `dm-${randomBytes(3).toString('hex')}`
  const readers = await connectReaders(url, members, marker, directMarker)
  const quiet: Phase[] = []
  const busy: DirectPhase[] = []
  const loadAverages: number[] = []
  let seq = 0
  let b = 0
  try {
    await sleep(1000)
    for (let round = 1; round <= rounds; round++) {
      const phases = [
        async () => { quiet.push(await roomBurst(site, readers, marker, b++)) },
        async () => {
          const phase = await directBurst(site, readers, members, marker, directMarker, b++, rate, seq)
          seq += phase.senders.sent
          busy.push(phase)
        }
      ]
      for (const phase of round % 2 === 1 ? phases : phases.reverse()) await phase()
      loadAverages.push(os.loadavg()[0]!)
      const q = quiet.at(-1)!
      const d = busy.at(-1)!
      log(`direct, round ${round}: room shouts p50/p99 quiet ${q.p50}/${q.p99} ms, during direct traffic ${d.p50}/${d.p99} ms; ` +
        `direct messages ${fmt(d.senders.achievedPerSecond)}/s answered of ${fmt(rate)} asked, delivered p50/p99 ${d.directP50}/${d.directP99} ms; ` +
        `CPU % of a core: host ${fmt(d.hostCpu)}, sender ${fmt(d.senderCpu)}, stream clients ${d.readerCpu.map(n => fmt(n)).join(', ')}; load average ${fmt(loadAverages.at(-1)!, 2)}`)
    }
  } finally {
    for (const { child } of readers.groups) if (child.exitCode === null) child.stdin!.write('exit\n')
    await site.api('PUT', '/api/panel/shoutbox/config', floodRules)
    await sleep(1000)
  }

  const mid = <T>(runs: T[], value: (run: T) => number): number => median(runs.map(value))
  const paired = (key: 'p50' | 'p99' | 'sentP50' | 'sentP99'): number => median(busy.map((run, i) => run[key] / quiet[i]![key]))
  const sum = (runs: Phase[], key: 'delivered' | 'expected' | 'missed' | 'duplicates'): number => runs.reduce((total, run) => total + run[key], 0)
  const statuses: Record<string, number> = {}
  for (const run of busy) for (const [status, n] of Object.entries(run.senders.statuses)) statuses[status] = (statuses[status] ?? 0) + n
  const answeredOk = busy.reduce((total, run) => total + run.senders.answered.length, 0)
  const heard = busy.reduce((total, run) => total + run.heard, 0)
  const ratioP99 = paired('p99')
  const maxReader = Math.max(...busy.flatMap(run => run.readerCpu))
  const maxSender = Math.max(...busy.map(run => run.senderCpu))
  const generatorBound = maxSender >= WRK_SATURATED || maxReader >= WRK_SATURATED
  const skipped = busy.reduce((total, run) => total + run.senders.skipped, 0)
  return [
    [`direct, ${fmt(conversations)} conversations (${fmt(members.length)} members' streams, ${fmt(readers.connected)} connected), ${rounds} rounds; ` +
      `room shouts: ${PUBLISHES} publishes ${GAP_MS} ms apart, quiet (${sum(quiet, 'delivered')}/${sum(quiet, 'expected')} delivered)`, '', '', '', `${fmt(mid(quiet, run => run.p50))} / ${fmt(mid(quiet, run => run.p99))} ms`, ''],
    [`  the same during ${fmt(rate)} direct messages/s asked, ${fmt(mid(busy, run => run.senders.achievedPerSecond))}/s answered (by round ${busy.map(run => fmt(run.senders.achievedPerSecond)).join(', ')}) ` +
      `(${sum(busy, 'delivered')}/${sum(busy, 'expected')} delivered)`, '', '', fmt(ratioP99, 2), `${fmt(mid(busy, run => run.p50))} / ${fmt(mid(busy, run => run.p99))} ms`, ''],
    note(`  room shouts during direct traffic / quiet, same run, paired by round: p50 ${fmt(paired('p50'), 2)}, p99 ${fmt(ratioP99, 2)} (target ≤ 1.2: ${ratioP99 <= 1.2 ? 'met' : 'not met'}); ` +
      `from the publish's sending: p50 ${fmt(paired('sentP50'), 2)}, p99 ${fmt(paired('sentP99'), 2)}; ` +
      `${sum([...quiet, ...busy], 'missed')} readers missed a shout, ${sum([...quiet, ...busy], 'duplicates')} duplicates`),
    note(`  direct messages to the other member's stream, p50 / p99: ${fmt(mid(busy, run => run.directP50))} / ${fmt(mid(busy, run => run.directP99))} ms from the answer, ` +
      `${fmt(mid(busy, run => run.directSentP50))} / ${fmt(mid(busy, run => run.directSentP99))} ms from the sending; heard ${fmt(heard)} of ${fmt(answeredOk)} answered 2xx; ` +
      `heard by a third member: ${busy.reduce((total, run) => total + run.strays, 0)}`),
    note(`  direct requests: ${Object.entries(statuses).map(([status, n]) => `${fmt(n)} × ${status}`).join(', ')}; answered in p50 / p99 ${fmt(mid(busy, run => run.senders.answerP50))} / ${fmt(mid(busy, run => run.senders.answerP99))} ms; ` +
      `${fmt(skipped)} not sent (256 already waiting: the host fell behind); sender at most ${fmt(Math.max(...busy.map(run => run.senders.maxLagMs)))} ms late`),
    note(`  CPU during the direct traffic, % of a core (medians): host ${fmt(mid(busy, run => run.hostCpu))}, sender ${fmt(mid(busy, run => run.senderCpu))}, ` +
      `stream clients ${busy[0]!.readerCpu.map((_, i) => fmt(mid(busy, run => run.readerCpu[i]!))).join(', ')}; core 0 busy ${fmt(mid(busy, run => run.core0Busy))}, core 1 ${fmt(mid(busy, run => run.core1Busy))}`),
    note(`  generator: ${generatorBound
      ? `at or above ${WRK_SATURATED} % of a core (sender at most ${fmt(maxSender)}, a stream client at most ${fmt(maxReader)}) — the load generator may have been the bottleneck`
      : `not saturated (sender at most ${fmt(maxSender)} %, a stream client at most ${fmt(maxReader)} % of a core, below ${WRK_SATURATED})`}; ` +
      `load average (1 min) ${fmt(Math.min(...loadAverages), 2)}–${fmt(Math.max(...loadAverages), 2)} over the rounds`)
  ]
}
