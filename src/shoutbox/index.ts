import { defineAddon } from '../sdk/index.js'
import { ShoutboxLive } from './live.js'

/**
 * The Shoutbox addon. Its endpoints (endpoints/) and migrations (migrations/) are found
 * by the host; nothing here registers them. Starting it subscribes the list cache and
 * the live stream to change notices; stopping it ends the open streams.
 */
export default defineAddon({
  start: ctx => ShoutboxLive.of(ctx).start(),
  stop: ctx => ShoutboxLive.of(ctx).stop()
})
