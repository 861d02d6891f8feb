/**
 * What the real widget (src/shoutbox/ui/widget.ts, through shared/live-shouts.ts) asks
 * the server for when its stream brings each kind of event: the `widgets` benchmark's
 * readers send exactly these, and a browser test (test/ui/stories/live-widget.ts) holds
 * the real widget to this table, so the two cannot drift apart.
 *
 * `ready` starts a fresh stream (the first load; the page asked for its rooms already,
 * with who is signed in); `reset` says what the widget holds is out of date. Not in the table, because it depends on the text and not on the kind: a
 * shout that mentions an @name the widget has not asked about costs one
 * `/api/users/known?names=…` (the benchmark's shouts mention no one).
 */
export const WIDGET_REQUESTS = {
  ready: ['/api/shoutbox/latest?room=general'],
  // A reset follows a reconnect, which asks again which rooms the reader may read.
  reset: ['/api/shoutbox/rooms', '/api/shoutbox/latest?room=general'],
  'shout-created': [],
  'shout-edited': [],
  'shout-deleted': [],
  'shout-pinned': [],
  'shout-unpinned': []
} as const satisfies Record<string, readonly string[]>

export type WidgetEventKind = keyof typeof WIDGET_REQUESTS
