import { defineAddon } from '../sdk/index.js'
import { RecentChanges } from './changes/list.js'
import { Retention } from './retention.js'
import { StreamHub } from './stream-hub.js'

/**
 * The Shoutbox addon. Its endpoints (endpoints/) and migrations (migrations/) are found
 * by the host; nothing here registers them. Starting it subscribes the live stream and
 * the record of deletes to change notices and starts retention's hourly runs; stopping
 * it ends the live stream and waits for a run in progress.
 */
export default defineAddon({
  start: ctx => {
    RecentChanges.of(ctx).start()
    StreamHub.of(ctx).start()
    Retention.of(ctx).start()
  },
  stop: async ctx => {
    StreamHub.of(ctx).stop()
    await Retention.of(ctx).stop()
  }
})
