import { defineAddon } from '../sdk/index.js'
import { RecentChanges } from './list-changes.js'
import { StreamHub } from './stream-hub.js'

/**
 * The Shoutbox addon. Its endpoints (endpoints/) and migrations (migrations/) are found
 * by the host; nothing here registers them. Starting it subscribes the live stream and
 * the record of deletes to change notices; stopping it ends the live stream.
 */
export default defineAddon({
  start: ctx => {
    RecentChanges.of(ctx).start()
    StreamHub.of(ctx).start()
  },
  stop: ctx => StreamHub.of(ctx).stop()
})
