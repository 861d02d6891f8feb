import type { Database } from '../../sdk/index.js'

/**
 * A deleted shout's text leaves the stream's history (a delete now removes the shout's
 * earlier events in the same statement). This scrubs what earlier versions kept: the
 * events of shouts already deleted, and the text `shout-deleted` events carried. The
 * index finds a shout's events when it is deleted, however long the history has grown
 * between two prunes.
 */
export async function up (db: Database): Promise<void> {
  await db.raw(`create index shoutbox_events_shout_id on shoutbox_events (((shout->>'id')::bigint))`)
  await db.raw(`delete from shoutbox_events e where e.kind <> 'shout-deleted'
    and not exists (select 1 from shoutbox_shouts s where s.id = (e.shout->>'id')::bigint)`)
  await db.raw(`update shoutbox_events set shout = jsonb_build_object('id', (shout->>'id')::bigint)
    where kind = 'shout-deleted' and shout - 'id' <> '{}'::jsonb`)
}
