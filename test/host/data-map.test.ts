import t from 'tap'
import type { MappedTable } from '../../src/sdk/index.js'
import { HOST_DATA_MAP } from '../../src/host/data-map.js'
import { Mentions } from '../../src/shoutbox/mentions.js'
import { ADMIN, build, login, setUp, type App } from '../helpers/app.js'
import { ACCOUNT_PASSWORD, account, roleWith } from '../helpers/identity.js'
import { as } from '../helpers/requests.js'

/**
 * CONTRACT §22, one data map: every column the database holds is named by the map, and
 * erasure and edits reach every copy of a person's text and name it lists.
 */

interface Column { table: string, column: string, type: string }

async function catalogue (app: App): Promise<Column[]> {
  const { rows } = await app.db.raw<{ rows: Array<{ table_name: string, column_name: string, data_type: string }> }>(`
    select c.table_name, c.column_name, c.data_type from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
    where c.table_schema = current_schema() order by c.table_name, c.ordinal_position`)
  return rows.map(row => ({ table: row.table_name, column: row.column_name, type: row.data_type }))
}

/** What the map says wrongly of the catalogue: columns it does not name, and columns it names that do not exist. */
function mismatches (columns: readonly Column[], map: readonly MappedTable[]): string[] {
  const named = new Set(map.flatMap(table => [...Object.keys(table.personal), ...table.other].map(column => `${table.table}.${column}`)))
  const present = new Set(columns.map(({ table, column }) => `${table}.${column}`))
  return [
    ...[...present].filter(column => !named.has(column)).map(column => `not in the data map: ${column}`),
    ...[...named].filter(column => !present.has(column)).map(column => `in the data map, not in the database: ${column}`)
  ]
}

const mentionsSettled = (app: App): Promise<void> => Mentions.of(app.addons.runtimes.get('shoutbox')!.ctx).settled()

const NEVER_SENT = { config: { webhooksAllowHttp: true, webhooksAllowPrivate: true }, webhooks: { pollMs: 3_600_000, timeoutMs: 200, retryDelayMs: () => 3_600_000, maxAttempts: 10 } }

/** Every text and jsonb column of the database that holds `word` (any case), as `table.column`. */
async function columnsHolding (app: App, word: string): Promise<string[]> {
  const found: string[] = []
  for (const { table, column, type } of await catalogue(app)) {
    if (!['text', 'character varying', 'jsonb', 'json'].includes(type)) continue
    const { rows } = await app.db.raw<{ rows: unknown[] }>('select 1 from ?? where ??::text ilike ? limit 1', [table, column, `%${word}%`])
    if (rows.length > 0) found.push(`${table}.${column}`)
  }
  return found
}

t.test('the data map names every column of the database, and nothing else', async t => {
  const app = await build(t)
  await setUp(app)
  const map = [...HOST_DATA_MAP, ...app.addons.dataMap()]
  const columns = await catalogue(app)
  t.ok(columns.length > 100, `${columns.length} columns`)
  t.same(mismatches(columns, map), [])
  t.equal(new Set(map.map(table => table.table)).size, map.length, 'each table is mapped once')

  await app.db.raw('create table unmapped_notes (id integer, body text)')
  t.same(mismatches(await catalogue(app), map), ['not in the data map: unmapped_notes.id', 'not in the data map: unmapped_notes.body'], 'a table nobody mapped fails the test')
})

t.test('after erasure the member\'s name and words are in no column of the database', async t => {
  const app = await build(t, NEVER_SENT)
  const admin = await setUp(app)
  await as(app, admin).put('/api/panel/settings', { erasure: 'delete' })
  await as(app, admin).put('/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 })
  const hook = await as(app, admin).post('/api/panel/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['shout.created', 'shout.edited', 'shout.deleted', 'report.created', 'member.muted', 'member.signed_up'] })
  t.equal(hook.statusCode, 200)
  const mod = await account(app, admin, 'mod', await roleWith(app, admin, 'moderators', ['panel.access', 'addon.shoutbox.manage.shoutbox']))
  const omar = await account(app, admin, 'omar')
  const carol = await account(app, admin, 'carol')
  const say = async (cookie: string, message: string, replyTo?: number) => {
    const posted = await as(app, cookie).post('/api/shoutbox/rooms/general/shouts', { message, ...(replyTo === undefined ? {} : { replyTo }) })
    if (posted.statusCode !== 200) throw new Error(posted.body)
    return posted.json().shout.id as number
  }
  // Everything the attacker of issue 47 found kept after her erasure, made by carol or about her.
  const first = await say(carol, '@omar the quokkafrost plan is on')
  const edited = await say(carol, 'quokkafrost draft')
  const omars = await say(omar, 'sounds good', first)
  await say(carol, 'replying quokkafrost', omars)
  t.equal((await as(app, mod).put(`/api/panel/shoutbox/${edited}`, { message: 'quokkafrost final' })).statusCode, 200, 'a moderator\'s edit: logged with both texts')
  t.equal((await as(app, carol).post(`/api/shoutbox/shouts/${omars}/report`, { reason: 'spam', note: 'quokkafrost says this is spam' })).statusCode, 200)
  const deleted = await say(carol, 'quokkafrost to be deleted')
  t.equal((await as(app, mod).delete(`/api/panel/shoutbox/${deleted}`)).statusCode, 200, 'a moderator\'s delete: logged with author and text')
  const carolId = (await as(app, admin).get('/api/panel/users')).json().users.find((u: { username: string }) => u.username === 'carol').id as number
  t.equal((await as(app, mod).post('/api/panel/shoutbox/mutes', { userId: carolId, minutes: 10, reason: 'carol posted quokkafrost' })).statusCode, 200, 'a mute naming her')
  await as(app, mod).delete(`/api/panel/shoutbox/mutes/${carolId}`)
  await mentionsSettled(app)
  t.same(await columnsHolding(app, 'quokkafrost'), [
    'activity_logs.details', 'notifications.data', 'shoutbox_events.shout', 'shoutbox_reports.note', 'shoutbox_shouts.message', 'webhook_deliveries.data'
  ], 'before: her words are in six columns')

  const gone = await app.inject({ method: 'DELETE', url: '/api/users/me', headers: { cookie: carol }, payload: { password: ACCOUNT_PASSWORD } })
  t.equal(gone.statusCode, 200, gone.body)
  t.same(await columnsHolding(app, 'quokkafrost'), [], 'her words are in no column')
  t.same(await columnsHolding(app, 'carol'), [], 'nor her name')
  const feed = await as(app, admin).get('/api/panel/logs/activity?locale=en')
  t.notOk(feed.body.toLowerCase().includes('carol'), 'the activity feed names her nowhere')
  t.ok(feed.body.includes('deleted user'), 'her entries stay, under `deleted user`')
  const notes = (await as(app, omar).get('/api/notifications')).json().notifications
  t.same(notes, [], 'her mention of omar went with her shout')
  const review = await as(app, mod).get('/api/panel/shoutbox/review')
  t.notOk(review.body.toLowerCase().includes('quokkafrost'), 'her report stays in the queue, without her note')
  t.ok(await login(app, ADMIN.username, ADMIN.password))
})

t.test('anonymised, her shouts stay under `deleted user` and her name is in no column', async t => {
  const app = await build(t, NEVER_SENT)
  const admin = await setUp(app)
  await as(app, admin).put('/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 })
  await as(app, admin).post('/api/panel/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['shout.created', 'report.created'] })
  const omar = await account(app, admin, 'omar')
  const carol = await account(app, admin, 'carol')
  const posted = await as(app, carol).post('/api/shoutbox/rooms/general/shouts', { message: '@omar hello from me' })
  const mine = posted.json().shout.id as number
  const omars = await as(app, omar).post('/api/shoutbox/rooms/general/shouts', { message: 'a shout of omar' })
  await as(app, carol).post(`/api/shoutbox/shouts/${omars.json().shout.id as number}/report`, { reason: 'spam', note: 'my private note' })
  await mentionsSettled(app)
  const gone = await app.inject({ method: 'DELETE', url: '/api/users/me', headers: { cookie: carol }, payload: { password: ACCOUNT_PASSWORD } })
  t.equal(gone.statusCode, 200, gone.body)
  t.same(await columnsHolding(app, 'carol'), [], 'her name is in no column (pending deliveries, notifications, the log included)')
  t.same(await columnsHolding(app, 'my private note'), [], 'her report\'s note is gone')
  const [note] = (await as(app, omar).get('/api/notifications')).json().notifications
  t.same(note.data, { shoutId: mine, room: 'general', by: 'deleted user' }, 'the mention she made says `deleted user`, with no excerpt')
  t.equal((await as(app, omar).get(`/api/shoutbox/shouts/${mine}`)).json().shout.username, 'deleted user')
})

t.test('an edit reaches the mention\'s excerpt and the deliveries not yet sent', async t => {
  const app = await build(t, NEVER_SENT)
  const admin = await setUp(app)
  await as(app, admin).post('/api/panel/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['shout.created'] })
  const omar = await account(app, admin, 'omar')
  const mira = await account(app, admin, 'mira')
  const posted = await as(app, mira).post('/api/shoutbox/rooms/general/shouts', { message: '@omar call me on 555-0199' })
  const id = posted.json().shout.id as number
  await mentionsSettled(app)
  t.equal((await as(app, admin).put(`/api/panel/shoutbox/${id}`, { message: '@omar call me' })).statusCode, 200)
  const [note] = (await as(app, omar).get('/api/notifications')).json().notifications
  t.equal(note.data.excerpt, '@omar call me', 'the excerpt follows the edit')
  const pending: Array<{ event: string, data: { message?: string } }> = await app.db('webhook_deliveries').where({ status: 'pending' }).select('event', 'data')
  t.same(pending.map(row => [row.event, row.data.message]), [['shout.created', '@omar call me']], 'the delivery not yet sent carries the edited text')
  t.same(await columnsHolding(app, '555-0199'), ['activity_logs.details'], 'the number is in no column but the moderators\' record of the edit (EDITED_SHOUT keeps the text before)')
})
