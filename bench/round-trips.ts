/**
 * What the publish transaction's five round trips (the publisher until 2026-11-23) cost,
 * against the one statement it writes now (README, *A busy board*):
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test SHOUTBOX_TEST_DB=postgres \
 *     taskset -c 1 node --import tsx bench/round-trips.ts [publishes] [rounds]
 *
 * On a schema of its own, migrated by the host, one publish at a time:
 * - five round trips: what `Publisher` wrote, through the same code — begin, the shout
 *   and its event (`shoutsRepository.insert`), the CREATED_SHOUT entry
 *   (`activityLogRepository().write`), the notice (`pg_notify`, as the cluster sends it), commit;
 * - one statement: what it writes now, `insertAnnounced` (the same rows, and the notice
 *   built in SQL and sent on the cluster's channel, where this process listens).
 * Prints, per publish, the wall time, this process's CPU (user + system) and every
 * PostgreSQL process's CPU (from /proc), round by round.
 */
import { execSync } from 'node:child_process'
import type { Knex } from 'knex'
import { buildApp } from '../src/host/app.js'
import { activityLogRepository } from '../src/host/services/activity-log.js'
import { I18n } from '../src/host/services/i18n.js'
import { MAX_NOTICE_BYTES } from '../src/shoutbox/changes/notice.js'
import { EVENTS_TABLE } from '../src/shoutbox/tables.js'
import type { Shout } from '../src/shoutbox/schemas.js'
import { shoutsRepository } from '../src/shoutbox/shouts-repository.js'
import { SHOUTS_TABLE } from '../src/shoutbox/tables.js'
import { setUp, testConfig, testHasher } from '../test/helpers/app.js'
import { DB_KIND, testDatabase } from '../test/helpers/database.js'

if (DB_KIND !== 'postgres') throw new Error('run on PostgreSQL: SHOUTBOX_TEST_DB=postgres TEST_DATABASE_URL=postgres://…')
const publishes = Number(process.argv[2] ?? 3000)
const rounds = Number(process.argv[3] ?? 3)

const database = await testDatabase()
const opened = await database.open()
const app = await buildApp({ hasher: testHasher, config: testConfig(), database: opened })
await setUp(app) // the administrator (user 1), the author of every shout here
const db: Knex = app.db
const admin = { id: 1, username: 'admin' }
const activity = activityLogRepository(db, new I18n())
const shout = (n: number) => ({ message: `shout ${n}`, username: admin.username, date: Date.now(), authorId: admin.id, roomId: 1, replyToId: null, bot: false })

async function fiveRoundTrips (n: number): Promise<void> {
  await db.transaction(async trx => {
    // The shout and its event, as the repository's `insert` wrote them then.
    const { rows: [row] } = await trx.raw<{ rows: Array<Shout & { room: string, event_id: number }> }>(`
      with s as (insert into ?? (message, username, date, author_id, room_id)
            select item->>'message', item->>'username', (item->>'date')::bigint, (item->>'authorId')::integer, (item->>'roomId')::integer
            from jsonb_array_elements(?::jsonb) with ordinality as given(item, position)
            order by position
            returning id, message, username, date, 'general' as room),
      e as (insert into ?? (kind, shout, created_at)
            select 'shout-created', jsonb_build_object('id', id, 'message', message, 'username', username, 'date', date, 'room', room), ? from s
            order by s.id
            returning id, (shout->>'id')::bigint as shout_id)
      select s.id, s.message, s.username, s.date, s.room, e.id as event_id from s join e on e.shout_id = s.id order by s.id`,
    [SHOUTS_TABLE, JSON.stringify([shout(n)]), EVENTS_TABLE, Date.now()])
    const { event_id: eventId, ...published } = row!
    const recorded = { shout: published, eventId }
    await activity.write('shoutbox', { type: 'CREATED_SHOUT', user: admin, details: { message: recorded.shout.message, room: 'general' } }, trx)
    const notice = { kind: 'shout-created', eventIds: [recorded.eventId], events: [{ id: recorded.eventId, kind: 'shout-created', shout: recorded.shout }] }
    // As cluster.notify sends it, on the channel this process listens on (as in oneStatement).
    await trx.raw('select ?', [app.cluster.notifying('shoutbox:changed', trx.raw('?::text', [JSON.stringify(notice)]))])
  })
}

/** What the publisher writes now: `insertAnnounced`, with the host's activity insertion and NOTIFY. */
async function oneStatement (n: number): Promise<void> {
  const published = shout(n)
  await shoutsRepository(db).insertAnnounced([published], {
    also: activity.insertion('shoutbox', [{ type: 'CREATED_SHOUT', user: admin, details: { message: published.message, room: 'general' } }]),
    hooked: rows => app.webhooks.outbox.insertion('shout.created', rows),
    announce: text => app.cluster.notifying('shoutbox:changed', text),
    maxNoticeBytes: MAX_NOTICE_BYTES
  })
}

/** CPU time of every PostgreSQL process, ms (utime + stime from /proc, in clock ticks of 10 ms). */
function postgresCpuMs (): number {
  const stats = execSync('for p in $(pgrep -x postgres; pgrep -f "^postgres:"); do cat /proc/$p/stat 2>/dev/null; done').toString()
  let ticks = 0
  for (const line of stats.trim().split('\n')) {
    const fields = line.slice(line.lastIndexOf(')') + 2).split(' ')
    ticks += Number(fields[11]) + Number(fields[12])
  }
  return ticks * 10
}

async function measure (label: string, publish: (n: number) => Promise<void>): Promise<void> {
  for (let n = 0; n < 300; n++) await publish(n) // warm-up
  const postgresBefore = postgresCpuMs()
  const cpuBefore = process.cpuUsage()
  const started = performance.now()
  for (let n = 0; n < publishes; n++) await publish(n)
  const wall = performance.now() - started
  const cpu = process.cpuUsage(cpuBefore)
  const postgres = postgresCpuMs() - postgresBefore
  const per = (ms: number): string => (ms / publishes).toFixed(2)
  console.log(`${label}: wall ${per(wall)} ms, this process ${per((cpu.user + cpu.system) / 1000)} ms, PostgreSQL ${per(postgres)} ms CPU a publish`)
}

try {
  for (let round = 1; round <= rounds; round++) {
    console.log(`round ${round}, ${publishes} publishes one at a time`)
    await measure('  five round trips', fiveRoundTrips)
    await measure('  one statement   ', oneStatement)
  }
} finally {
  await app.close()
  await database.drop()
}
