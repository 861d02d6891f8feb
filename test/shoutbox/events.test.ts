import t from 'tap'
import { build, setUp } from '../helpers/app.js'
import { greeterAddonsDir } from '../helpers/fixtures.js'
import type { RecordedEvent } from '../helpers/types.js'

t.test('another addon hears "shout created" and "shout deleted", with the shout, after commit', async t => {
  const addonsDir = await greeterAddonsDir(t)
  const app = await build(t, { config: { addonsDir } })
  const cookie = await setUp(app)
  await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message: 'to the webhook' } })
  const [shout] = (await app.inject({ url: '/api/shoutbox/list' })).json().shouts
  await app.inject({ method: 'DELETE', url: `/api/panel/shoutbox/${shout.id}`, headers: { cookie } })
  // A rejected publish and a missing delete emit nothing.
  await app.inject({ method: 'POST', url: '/api/panel/shoutbox', headers: { cookie }, payload: { message: ' ' } })
  await app.inject({ method: 'DELETE', url: '/api/panel/shoutbox/999', headers: { cookie } })
  await app.events.drain()
  const events = (await app.inject({ url: '/api/greeter/events' })).json().events
    .filter((e: RecordedEvent) => e.event.startsWith('shoutbox.'))
  // The list keeps its four fields (CONTRACT §15); the events carry the shout with its room.
  const withRoom = { ...shout, room: 'general', replyTo: null }
  t.same(events, [
    { event: 'shoutbox.shout-created', payload: withRoom, committed: true },
    { event: 'shoutbox.shout-deleted', payload: withRoom, committed: true }
  ])
})
