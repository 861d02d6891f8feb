import { defineAddon } from '../sdk/index.js'
import { StreamHub } from './stream-hub.js'

/**
 * The Shoutbox addon. Its endpoints (endpoints/) and migrations (migrations/) are found
 * by the host; nothing here registers them. Starting it subscribes the live stream to
 * change notices; stopping it ends the open streams.
 */
export default defineAddon({
  start: ctx => StreamHub.of(ctx).start(),
  stop: ctx => StreamHub.of(ctx).stop()
})
