import { defineAddon } from '../sdk/index.js'

/**
 * The Shoutbox addon. Its endpoints (endpoints/), listeners (listeners/) and
 * migrations (migrations/) are found by the host; nothing here registers them.
 */
export default defineAddon()
