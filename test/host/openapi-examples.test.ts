import { Ajv2020 } from 'ajv/dist/2020.js'
import type { LightMyRequestResponse } from 'fastify'
import t from 'tap'
import { solveChallenge } from 'altcha-lib/v1'
import { newResetToken } from '../../src/host/mail/password-resets.js'
import { unsubscribeToken } from '../../src/host/mail/unsubscribe.js'
import { ADMIN, build, login, sessionCookie } from '../helpers/app.js'
import { openApiDocument, type Operation } from '../helpers/openapi.js'
import { STREAMED_KEYS } from '../helpers/shouts.js'
import { connectSse } from '../helpers/sse.js'
import { multipart, plainPicture } from '../helpers/pictures.js'

/**
 * Issue 17: every documented success example is answered through the real app, and the
 * real answer is checked against the schema the document gives for it. Where the answer
 * and the document disagree this fails, naming the operation; the document is fixed to
 * the code (or the code to the contract), never the other way round by hand.
 */

const PASSWORD = 'a long password'

/** A real answer: status, content type, body as sent. */
interface Real { status: number, type: string, body: string }
const real = (response: LightMyRequestResponse): Real => ({ status: response.statusCode, type: String(response.headers['content-type']), body: response.body })

t.test('every documented success answer: produced by the real app, valid against its documented schema', async t => {
  // --dev: mail is written to the log, so the password reset answers.
  const app = await build(t, { config: { dev: true } })
  const as = (cookie: string | undefined) => async (method: string, url: string, payload?: Record<string, unknown>): Promise<Real> =>
    real(await app.inject({ method: method as 'GET', url, ...(cookie === undefined ? {} : { headers: { cookie } }), ...(payload === undefined ? {} : { payload }) }))

  // Setup: the status before, then the wizard's answer.
  const status = await as(undefined)('GET', '/api/setup/status')
  const finished = await app.inject({ method: 'POST', url: '/api/setup/finish', payload: ADMIN })
  const admin = sessionCookie(finished, app)
  const asAdmin = as(admin)
  const memberRole = (JSON.parse((await asAdmin('GET', '/api/panel/roles')).body).roles as Array<{ id: number, name: string }>).find(role => role.name === 'member')!.id
  const settingsPut = await asAdmin('PUT', '/api/panel/settings', { signUp: true })
  // Members post several times here: no flood rules in the way.
  await asAdmin('PUT', '/api/panel/shoutbox/config', { minSecondsBetweenShouts: 0, maxShoutsPerMinute: 600 })
  const signUp = await app.inject({ method: 'POST', url: '/api/auth/signup', payload: { username: 'ada', email: 'ada@example.org', password: PASSWORD } })
  const ada = sessionCookie(signUp, app)
  const asAda = as(ada)
  // The streams' answers need a real socket: the app listens once, for both.
  let address: Promise<string> | undefined
  const listening = (): Promise<string> => (address ??= app.listen({ port: 0, host: '127.0.0.1' }))
  /** A stream's answer: opened (as `cookie`'s holder), `act` done once it is ready, the first `kind` frame it then carries. */
  const frameOf = async (path: string, cookie: string | undefined, act: () => Promise<unknown>, kind: string) => {
    const stream = connectSse(`${await listening()}${path}`, cookie === undefined ? {} : { cookie })
    try {
      await stream.next(e => e.event === 'ready')
      await act()
      const event = await stream.next(e => e.event === kind)
      return { status: await stream.status, type: 'text/event-stream', body: event.data }
    } finally {
      stream.close()
    }
  }
  const posted = await asAda('POST', '/api/shoutbox', { message: 'Hello, board! @admin https://example.org' })
  const shoutId = JSON.parse(posted.body).shout.id as number
  const second = JSON.parse((await asAda('POST', '/api/shoutbox', { message: 'a second one' })).body).shout.id as number
  // The first is pinned below, which closes it to its author: the edit gets one of its own.
  const editable = JSON.parse((await asAda('POST', '/api/shoutbox', { message: 'Hello, board' })).body).shout.id as number
  const role = await asAdmin('POST', '/api/panel/roles', { name: 'moderator', permissions: ['panel.access'] })
  const roleId = JSON.parse(role.body).role.id as number
  const user = await asAdmin('POST', '/api/panel/users', { username: 'grace', email: 'grace@example.org', password: PASSWORD, roleId: memberRole })
  const userId = JSON.parse(user.body).user.id as number
  const leaving = await asAdmin('POST', '/api/panel/users', { username: 'linus', email: 'linus@example.org', password: PASSWORD, roleId: memberRole })
  const leavingId = JSON.parse(leaving.body).user.id as number
  await asAdmin('POST', '/api/panel/users', { username: 'hopper', email: 'hopper@example.org', password: PASSWORD, roleId: memberRole })
  const hopper = await login(app, 'hopper', PASSWORD)
  // One whose shouts Ada reads, to ignore (a member may ignore only an account seen on the board).
  const talker = JSON.parse((await asAdmin('POST', '/api/panel/users', { username: 'barbara', email: 'barbara@example.org', password: PASSWORD, roleId: memberRole })).body).user.id as number
  await as(await login(app, 'barbara', PASSWORD))('POST', '/api/shoutbox', { message: 'Hello from Barbara' })
  await asAdmin('POST', '/api/panel/shoutbox', { message: 'to be deleted' })
  const panelShoutId = (JSON.parse((await asAdmin('GET', '/api/shoutbox/list')).body).shouts as Array<{ id: number }>)[0]!.id
  // Moderation and history: a member to mute (grace) and one muted to ask about themselves (hopper).
  const muted = await asAdmin('POST', '/panel/api/shoutbox/mutes', { userId: userId, minutes: 10, reason: 'spam' })
  const hopperId = JSON.parse((await asAdmin('GET', '/panel/api/users')).body).users.find((u: { username: string }) => u.username === 'hopper').id as number
  await asAdmin('POST', '/panel/api/shoutbox/mutes', { userId: hopperId, minutes: null })
  await asAdmin('PUT', `/panel/api/shoutbox/${shoutId}/pin`, { pinned: true })
  // A moderator's edit closes its author's edit window: it gets a shout of its own.
  const moderated = JSON.parse((await asAda('POST', '/api/shoutbox', { message: 'a rude one' })).body).shout.id as number
  // Rooms (CONTRACT §15): one members talk in, one to archive.
  const lounge = await asAdmin('POST', '/panel/api/shoutbox/rooms', { slug: 'lounge', name: 'Lounge', description: 'Anything goes' })
  const loungeId = JSON.parse(lounge.body).room.id as number
  const closing = JSON.parse((await asAdmin('POST', '/panel/api/shoutbox/rooms', { slug: 'old-news', name: 'Old news' })).body).room.id as number
  // Integrations (CONTRACT §18): a token of the admin's, a bot and its tokens, a webhook and its deliveries.
  const ownToken = await asAdmin('POST', '/api/users/me/tokens', { name: 'deploys', permissions: ['addon.shoutbox.post'] })
  const bot = JSON.parse((await asAdmin('POST', '/panel/api/users', { username: 'deploybot', email: 'deploybot@example.org', roleId: memberRole, bot: true })).body).user.id as number
  const botToken = await asAdmin('POST', `/panel/api/users/${bot}/tokens`, { name: 'announcements', permissions: ['addon.shoutbox.post'], expiresInDays: 30 })
  const webhook = await asAdmin('POST', '/panel/api/webhooks', { url: 'https://chat.example.org/hooks/shoutbox', events: ['shout.created', 'report.created'] })
  const webhookId = JSON.parse(webhook.body).webhook.id as number
  const ping = await asAdmin('POST', `/panel/api/webhooks/${webhookId}/ping`)

  // Each operation's answer, by operationId: every documented example has one here.
  /** A guest's proof of work, solved as the widget's worker solves it. */
  const guestProof = async (): Promise<string> => {
    const { challenge } = (await app.inject({ url: '/api/shoutbox/guest-challenge' })).json() as { challenge: { algorithm: string, challenge: string, maxnumber: number, salt: string, signature: string } }
    const solved = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber).promise
    return Buffer.from(JSON.stringify({ ...challenge, number: solved!.number })).toString('base64')
  }
  const answers: Record<string, () => Promise<Real>> = {
    'host.SetupStatus': async () => status,
    'host.FinishSetup': async () => real(finished),
    'host.Login': () => as(undefined)('POST', '/api/auth/login', { username: 'admin', password: ADMIN.password }),
    'host.Logout': async () => as(await login(app, 'admin', ADMIN.password))('POST', '/api/auth/logout'),
    'host.Me': () => asAda('GET', '/api/auth/me'),
    'host.AskPasswordReset': () => as(undefined)('POST', '/api/auth/password-reset', { email: 'grace@example.org' }),
    'host.FinishPasswordReset': async () => {
      const resetter = JSON.parse((await asAdmin('POST', '/api/panel/users', { username: 'resetter', email: 'resetter@example.org', password: PASSWORD, roleId: memberRole })).body).user.id as number
      const { token, hash } = newResetToken()
      await app.db.transaction(trx => app.mail.resets.replace(resetter, hash, trx))
      return as(undefined)('POST', '/api/auth/password-reset/finish', { token, password: 'a reset long password' })
    },
    'host.ChangeEmail': async () => {
      await asAdmin('POST', '/api/panel/users', { username: 'changer', email: 'changer@example.org', password: PASSWORD, roleId: memberRole })
      return as(await login(app, 'changer', PASSWORD))('PUT', '/api/users/me/email', { email: 'changer@new.example.org', password: PASSWORD })
    },
    'host.FinishEmailChange': async () => {
      const { token, hash } = newResetToken()
      const user = JSON.parse((await asAdmin('POST', '/api/panel/users', { username: 'mover', email: 'mover@example.org', password: PASSWORD, roleId: memberRole })).body).user.id as number
      await app.db.transaction(trx => app.mail.emailChanges.replace(user, 'mover@new.example.org', hash, trx))
      return as(undefined)('POST', '/api/auth/email-change/finish', { token })
    },
    'host.ResendVerification': () => as(undefined)('POST', '/api/auth/verify-email/resend', { email: 'grace@example.org' }),
    'host.FinishVerification': async () => {
      const { token, hash } = newResetToken()
      const user = JSON.parse((await asAdmin('POST', '/api/panel/users', { username: 'newcomer', email: 'newcomer@example.org', password: PASSWORD, roleId: memberRole })).body).user.id as number
      await app.db.transaction(trx => app.mail.verifications.replace(user, hash, trx))
      return as(undefined)('POST', '/api/auth/verify-email/finish', { token })
    },
    'host.Unsubscribe': () => as(undefined)('POST', `/api/mail/unsubscribe?user=${userId}&token=${unsubscribeToken(app.mail.unsubscribeKey, userId)}`, {}),
    'host.SendTestMail': () => asAdmin('POST', '/panel/api/mail/test'),
    'host.MailOverview': () => asAdmin('GET', '/panel/api/mail'),
    'host.ChangePassword': () => as(hopper)('POST', '/api/auth/password', { currentPassword: PASSWORD, newPassword: 'another long password' }),
    'host.Health': () => as(undefined)('GET', '/api/health'),
    'host.ListPermissions': () => asAdmin('GET', '/panel/api/permissions'),
    'host.ListRoles': () => asAdmin('GET', '/panel/api/roles'),
    'host.CreateRole': async () => role,
    'host.UpdateRole': () => asAdmin('PUT', `/panel/api/roles/${roleId}`, { name: 'moderators', permissions: ['panel.access'] }),
    'host.ListUsers': () => asAdmin('GET', '/panel/api/users'),
    'host.CreateUser': async () => user,
    'host.UpdateUser': () => asAdmin('PUT', `/panel/api/users/${userId}`, { disabled: true }),
    'host.DeleteUser': () => asAdmin('DELETE', `/panel/api/users/${leavingId}`),
    'host.ActivityFeed': () => asAdmin('GET', '/panel/api/logs/activity?page=1&locale=tr'),
    'host.ListAddons': () => asAdmin('GET', '/panel/api/addons'),
    'host.SetAddonEnabled': () => asAdmin('PUT', '/panel/api/addons/shoutbox', { enabled: true }),
    'host.PanelModules': () => asAdmin('GET', '/panel/api/ui/addons'),
    'host.PanelOverview': () => asAdmin('GET', '/panel/api/overview'),
    'host.SignUpStatus': () => as(undefined)('GET', '/api/auth/signup'),
    'host.SignUp': async () => real(signUp),
    'host.KnownUsers': () => as(undefined)('GET', '/api/users/known?names=ada,nobody,admin'),
    'host.GetSiteSettings': () => asAdmin('GET', '/panel/api/settings'),
    'host.UpdateSiteSettings': async () => settingsPut,
    'shoutbox.ListShouts': () => as(undefined)('GET', '/api/shoutbox/list'),
    'shoutbox.PostingRules': () => as(undefined)('GET', '/api/shoutbox/rules'),
    'shoutbox.LatestShouts': () => as(undefined)('GET', '/api/shoutbox/latest'),
    'shoutbox.PostShout': async () => posted,
    'shoutbox.EditOwnShout': () => asAda('PUT', `/api/shoutbox/${editable}`, { message: 'Hello, board (edited)' }),
    'shoutbox.DeleteOwnShout': () => asAda('DELETE', `/api/shoutbox/${second}`),
    'shoutbox.PublishShout': () => asAdmin('POST', '/panel/api/shoutbox', { message: 'From the panel' }),
    'shoutbox.DeleteShout': () => asAdmin('DELETE', `/panel/api/shoutbox/${panelShoutId}`),
    'shoutbox.GetSettings': () => asAdmin('GET', '/panel/api/shoutbox/config'),
    'shoutbox.UpdateSettings': () => asAdmin('PUT', '/panel/api/shoutbox/config', { maxShouts: 50 }),
    'shoutbox.ShoutboxOverview': () => asAdmin('GET', '/panel/api/shoutbox/overview'),
    'shoutbox.EditAnyShout': () => asAdmin('PUT', `/panel/api/shoutbox/${moderated}`, { message: 'a [removed] one' }),
    'shoutbox.ShoutAuthor': () => asAdmin('GET', `/panel/api/shoutbox/${moderated}/author`),
    'shoutbox.MuteMember': async () => muted,
    'shoutbox.ListMutes': () => asAdmin('GET', '/panel/api/shoutbox/mutes'),
    'shoutbox.LiftMute': () => asAdmin('DELETE', `/panel/api/shoutbox/mutes/${userId}`),
    'shoutbox.OwnPostingState': () => as(hopper)('GET', '/api/shoutbox/me'),
    'shoutbox.ArchiveShouts': () => as(undefined)('GET', '/api/shoutbox/archive?limit=1&q=board'),
    'shoutbox.GetShout': () => as(undefined)('GET', `/api/shoutbox/shouts/${shoutId}`),
    'shoutbox.PinnedShouts': () => as(undefined)('GET', '/api/shoutbox/pinned'),
    'shoutbox.PinShout': () => asAdmin('PUT', `/panel/api/shoutbox/${shoutId}/pin`, { pinned: false }),
    'shoutbox.PanelRooms': () => asAdmin('GET', '/panel/api/shoutbox/rooms'),
    'shoutbox.CreateRoom': async () => lounge,
    'shoutbox.UpdateRoom': () => asAdmin('PUT', `/panel/api/shoutbox/rooms/${loungeId}`, { description: 'Anything goes, kindly' }),
    'shoutbox.ArchiveRoom': () => asAdmin('DELETE', `/panel/api/shoutbox/rooms/${closing}`),
    'shoutbox.ListRooms': () => asAda('GET', '/api/shoutbox/rooms'),
    'shoutbox.PostInRoom': () => asAda('POST', '/api/shoutbox/rooms/lounge/shouts', { message: 'Hello, lounge' }),
    'shoutbox.RoomShouts': () => as(undefined)('GET', '/api/shoutbox/rooms/general/shouts?limit=1&q=board'),
    'shoutbox.RoomPinned': () => as(undefined)('GET', '/api/shoutbox/rooms/general/pinned'),
    'shoutbox.MarkRoomRead': () => asAda('PUT', '/api/shoutbox/rooms/lounge/read', { lastReadId: 1000 }),
    // Direct messages (CONTRACT §27): the administrator writes to Ada, who reads and answers.
    'shoutbox.WriteDirect': () => asAdmin('POST', '/api/shoutbox/direct/ada', { message: 'Hello, Ada' }),
    'shoutbox.ListConversations': async () => {
      await asAdmin('POST', '/api/shoutbox/direct/ada', { message: 'Are you there?' })
      return asAda('GET', '/api/shoutbox/direct')
    },
    'shoutbox.ConversationShouts': async () => {
      const written = JSON.parse((await asAda('POST', '/api/shoutbox/direct/admin', { message: 'Here I am' })).body) as { conversation: number }
      return asAda('GET', `/api/shoutbox/direct/${written.conversation}/shouts?limit=5`)
    },
    'shoutbox.MarkConversationRead': async () => {
      const written = JSON.parse((await asAdmin('POST', '/api/shoutbox/direct/ada', { message: 'Good' })).body) as { conversation: number }
      return asAda('PUT', `/api/shoutbox/direct/${written.conversation}/read`, { lastReadId: 1000 })
    },
    'shoutbox.DirectPreference': () => asAda('GET', '/api/shoutbox/direct/preferences'),
    'shoutbox.ChangeDirectPreference': () => asAda('PUT', '/api/shoutbox/direct/preferences', { acceptDirectMessages: 'everyone' }),
    // Reactions (CONTRACT §16): the answers name the shout's reactions after the change, so each leaves one.
    'shoutbox.AddReaction': () => asAda('PUT', `/api/shoutbox/shouts/${shoutId}/reactions/${encodeURIComponent('🎉')}`),
    'shoutbox.RemoveReaction': async () => {
      await asAda('PUT', `/api/shoutbox/shouts/${shoutId}/reactions/${encodeURIComponent('👍')}`)
      return asAda('DELETE', `/api/shoutbox/shouts/${shoutId}/reactions/${encodeURIComponent('👍')}`)
    },
    // Ignore lists (CONTRACT §16): Ada ignores a member whose shout she read, then stops.
    'shoutbox.Ignore': () => asAda('PUT', `/api/users/me/ignored/${talker}`),
    'shoutbox.ListIgnored': async () => {
      await asAda('PUT', `/api/users/me/ignored/${talker}`)
      return asAda('GET', '/api/users/me/ignored')
    },
    'shoutbox.Unignore': () => asAda('DELETE', `/api/users/me/ignored/${talker}`),
    'shoutbox.ShoutAuthorAccount': () => asAda('GET', `/api/shoutbox/shouts/${shoutId}/author`),
    // Moderation in depth (CONTRACT §17): a watched word, a report, the queue and a decision.
    'shoutbox.AddWord': () => asAdmin('POST', '/panel/api/shoutbox/words', { pattern: 'free money', action: 'block' }),
    'shoutbox.PanelWords': async () => {
      await asAdmin('POST', '/panel/api/shoutbox/words', { pattern: 'casino', action: 'censor' })
      return asAdmin('GET', '/panel/api/shoutbox/words')
    },
    'shoutbox.RemoveWord': async () => {
      const added = await asAdmin('POST', '/panel/api/shoutbox/words', { pattern: 'lottery', action: 'hold' })
      return asAdmin('DELETE', `/panel/api/shoutbox/words/${JSON.parse(added.body).word.id as number}`)
    },
    'shoutbox.ReportShout': async () => {
      const reported = JSON.parse((await asAdmin('POST', '/api/shoutbox', { message: 'report me' })).body).shout.id as number
      return asAda('POST', `/api/shoutbox/shouts/${reported}/report`, { reason: 'spam', note: 'the same link all day' })
    },
    'shoutbox.ReviewQueue': async () => {
      const reported = JSON.parse((await asAdmin('POST', '/api/shoutbox', { message: 'in the queue' })).body).shout.id as number
      await asAda('POST', `/api/shoutbox/shouts/${reported}/report`, { reason: 'off-topic' })
      return asAdmin('GET', '/panel/api/shoutbox/review')
    },
    'shoutbox.ReviewShout': async () => {
      const reported = JSON.parse((await asAdmin('POST', '/api/shoutbox', { message: 'to be reviewed' })).body).shout.id as number
      await asAda('POST', `/api/shoutbox/shouts/${reported}/report`, { reason: 'abuse' })
      return asAdmin('POST', `/panel/api/shoutbox/review/${reported}`, { action: 'dismiss' })
    },
    // Notifications (CONTRACT §16): Ada's post mentioned the admin.
    'host.ListNotifications': () => asAdmin('GET', '/api/notifications'),
    'host.MarkNotificationsRead': () => asAdmin('POST', '/api/notifications/read', { all: true }),
    'host.CreateOwnToken': async () => ownToken,
    'host.ListOwnTokens': () => asAdmin('GET', '/api/users/me/tokens'),
    'host.RevokeOwnToken': async () => {
      const made = await asAdmin('POST', '/api/users/me/tokens', { name: 'short-lived', permissions: ['addon.shoutbox.post'] })
      return asAdmin('DELETE', `/api/users/me/tokens/${JSON.parse(made.body).token.id as number}`)
    },
    'host.CreateBotToken': async () => botToken,
    'host.ListBotTokens': () => asAdmin('GET', `/panel/api/users/${bot}/tokens`),
    'host.RevokeBotToken': () => asAdmin('DELETE', `/panel/api/users/${bot}/tokens/${JSON.parse(botToken.body).token.id as number}`),
    'host.ListWebhooks': () => asAdmin('GET', '/panel/api/webhooks'),
    'host.CreateWebhook': async () => webhook,
    'host.UpdateWebhook': () => asAdmin('PUT', `/panel/api/webhooks/${webhookId}`, { active: false }),
    'host.DeleteWebhook': async () => {
      const made = await asAdmin('POST', '/panel/api/webhooks', { url: 'https://chat.example.org/hooks/other', events: ['shout.deleted'] })
      return asAdmin('DELETE', `/panel/api/webhooks/${JSON.parse(made.body).webhook.id as number}`)
    },
    'host.PingWebhook': async () => ping,
    // Bridges: an incoming hook, a post through it, the list, a removal.
    'shoutbox.CreateIncomingHook': () => asAdmin('POST', '/panel/api/shoutbox/incoming', { room: 'general', name: 'Discord #lobby' }),
    'shoutbox.ListIncomingHooks': () => asAdmin('GET', '/panel/api/shoutbox/incoming'),
    'shoutbox.DeleteIncomingHook': async () => {
      const made = await asAdmin('POST', '/panel/api/shoutbox/incoming', { room: 'general', name: 'to be removed' })
      return asAdmin('DELETE', `/panel/api/shoutbox/incoming/${JSON.parse(made.body).hook.id as number}`)
    },
    'shoutbox.PostThroughIncomingHook': async () => {
      const made = await asAdmin('POST', '/panel/api/shoutbox/incoming', { room: 'general', name: 'Slack #general' })
      return as(undefined)('POST', new URL(JSON.parse(made.body).url as string).pathname, { text: 'Hello from Slack', username: 'ada' })
    },
    'host.ListDeliveries': () => asAdmin('GET', `/panel/api/webhooks/${webhookId}/deliveries`),
    'host.RedeliverDelivery': () => asAdmin('POST', `/panel/api/webhooks/${webhookId}/deliveries/${JSON.parse(ping.body).delivery.id as string}/redeliver`),
    'host.DeleteOwnAccount': async () => {
      await asAdmin('POST', '/panel/api/users', { username: 'leaver', email: 'leaver@example.org', password: PASSWORD, roleId: memberRole })
      return as(await login(app, 'leaver', PASSWORD))('DELETE', '/api/users/me', { password: PASSWORD })
    },
    'host.PrivacyNotes': () => as(undefined)('GET', '/api/privacy?locale=en'),
    'host.ExportOwnData': () => asAda('GET', '/api/users/me/export'),
    'host.ExportUserData': () => asAdmin('GET', `/panel/api/users/${userId}/export`),
    'host.ReadPreferences': () => asAdmin('GET', '/api/users/me/preferences'),
    'host.ChangePreferences': () => asAdmin('PUT', '/api/users/me/preferences', { sound: true }),
    'host.ReadSiteFace': () => asAdmin('GET', '/panel/api/site-face'),
    'host.ChangeSiteFace': () => asAdmin('PUT', '/panel/api/site-face', { siteName: 'Kedi Kulübü', accent: '#c2185b' }),
    'host.ReadStrings': () => as(undefined)('GET', '/api/strings/shoutbox/de'),
    'host.NotificationStream': () => frameOf('/api/notifications/stream', admin, () => asAda('POST', '/api/shoutbox', { message: '@admin once more' }), 'notification'),
    'shoutbox.StreamShouts': () => frameOf('/api/shoutbox/stream', undefined, () => asAda('POST', '/api/shoutbox', { message: 'live' }), 'shout-created'),
    // Guests and presence (issue 54).
    'shoutbox.GuestChallenge': () => as(undefined)('GET', '/api/shoutbox/guest-challenge'),
    'shoutbox.PostAsGuest': async () => {
      await asAdmin('POST', '/api/panel/shoutbox/rooms', { slug: 'porch', name: 'Porch', guestsPost: true })
      return real(await app.inject({ method: 'POST', url: '/api/shoutbox/rooms/porch/guest-shouts', remoteAddress: '203.0.113.40', payload: { message: 'Hello from the porch', name: 'Visitor', proof: await guestProof() } }))
    },
    'shoutbox.EraseGuestShouts': async () => real(await app.inject({ method: 'DELETE', url: '/api/shoutbox/guest-shouts', remoteAddress: '203.0.113.40' })),
    'shoutbox.MuteGuest': async () => {
      await asAdmin('POST', '/api/panel/shoutbox/rooms', { slug: 'stoop', name: 'Stoop', guestsPost: true })
      const guest = await app.inject({ method: 'POST', url: '/api/shoutbox/rooms/stoop/guest-shouts', remoteAddress: '203.0.113.41', payload: { message: 'spam', name: 'Spammer', proof: await guestProof() } })
      return asAdmin('POST', '/api/panel/shoutbox/guest-mutes', { shoutId: guest.json().shout.id, minutes: 60, reason: 'spam' })
    },
    'shoutbox.RoomPresence': () => as(undefined)('GET', '/api/shoutbox/rooms/general/presence'),
    'shoutbox.GetShowPresence': () => asAda('GET', '/api/shoutbox/me/presence'),
    'shoutbox.SetShowPresence': () => asAda('PUT', '/api/shoutbox/me/presence', { showPresence: false }),
    'shoutbox.UploadPicture': async () => {
      const body = multipart(await plainPicture())
      return real(await app.inject({ method: 'POST', url: '/api/shoutbox/uploads', headers: { ...body.headers, cookie: ada }, payload: body.payload }))
    },
    'host.UploadLogo': async () => {
      const body = multipart(await plainPicture('png', 200, 50))
      return real(await app.inject({ method: 'POST', url: '/api/panel/uploads/logo', headers: { ...body.headers, cookie: admin }, payload: body.payload }))
    },
    'host.ServePicture': async () => {
      const body = multipart(await plainPicture('png', 20, 20))
      const logo = JSON.parse((await app.inject({ method: 'POST', url: '/api/panel/uploads/logo', headers: { ...body.headers, cookie: admin }, payload: body.payload })).body).upload as { url: string }
      return as(undefined)('GET', logo.url)
    },
  }

  const document = await openApiDocument(app)
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  const operations = Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]): [string, Operation] => [`${method.toUpperCase()} ${path}`, op]))
  let checked = 0
  for (const [name, op] of operations) {
    const id = op.operationId ?? name
    const [type, media] = Object.entries(op.responses['200']?.content ?? {})[0] ?? []
    const example = media?.example ?? media?.schema?.examples?.[0]
    if (id === 'host.OpenApiDocument') continue // the document itself, validated in openapi.test.ts
    if (media?.schema === undefined || example === undefined) {
      t.fail(`${name} (${id}) documents no success example`)
      continue
    }
    const answer = answers[id]
    if (answer === undefined) {
      t.fail(`${name} (${id}) has a documented example, but this test has no way to produce its answer: add one`)
      continue
    }
    const got = await answer()
    t.equal(got.status, 200, `${name}: answered 200`, { body: got.body })
    if (type === 'text/event-stream') {
      // The example is one frame; the board's carry JSON shouts with their room (CONTRACT §15) and what they answer, not their reactions (§16).
      t.match(String(example), /^(id: \d+\n)?event: [a-z-]+\ndata: \{.*\}\n\n$/, `${name}: the example is a frame`)
      const exampleData = JSON.parse(String(example).split('\ndata: ')[1]!)
      if (id === 'shoutbox.StreamShouts') {
        t.same(Object.keys(JSON.parse(got.body)), STREAMED_KEYS, `${name}: a real frame's data is a shout with its room and replyTo, in that order`)
        t.same(Object.keys(exampleData), STREAMED_KEYS, `${name}: so is the example's`)
      } else {
        t.same(Object.keys(JSON.parse(got.body)), Object.keys(exampleData), `${name}: a real frame's data has the example's fields`)
      }
      checked++
      continue
    }
    if (type === 'image/webp') {
      t.equal(got.type, 'image/webp', `${name}: a picture`)
      checked++
      continue
    }
    t.equal(got.type, 'application/json; charset=utf-8', `${name}: JSON`)
    const validate = ajv.compile(media.schema)
    t.ok(validate(example), `${name}: the documented example fits the documented schema`, { errors: ajv.errorsText(validate.errors) })
    t.ok(validate(JSON.parse(got.body)), `${name}: the real answer fits the documented schema`, { errors: ajv.errorsText(validate.errors), body: got.body })
    checked++
  }
  t.equal(checked, Object.keys(answers).length, 'every answer above was checked against an operation of the document')
})

t.test('the check fails on drift: a field the schema does not name, or a missing one, is caught', async t => {
  const app = await build(t)
  const document = await openApiDocument(app)
  const schema = document.paths['/api/shoutbox/list']!.get!.responses['200']!.content!['application/json']!.schema!
  const validate = new Ajv2020({ strict: false }).compile(schema)
  const shout = { id: 1, message: 'hi', username: 'ada', date: 1 }
  t.ok(validate({ result: 'ok', shouts: [shout] }))
  t.notOk(validate({ result: 'ok', shouts: [{ ...shout, authorId: 3 }] }), 'CONTRACT §6: exactly four fields — a fifth fails')
  t.notOk(validate({ result: 'ok', shouts: [{ id: 1, message: 'hi', username: 'ada' }] }), 'a missing date fails')
  t.notOk(validate({ result: 'ok' }), 'a missing list fails')
})

t.test('where the contract fixes an answer, the documented schema is the contract\'s', async t => {
  const app = await build(t)
  const document = await openApiDocument(app)
  const schemaOf = (path: string, method: string) => new Ajv2020({ strict: false }).compile(document.paths[path]![method]!.responses['200']!.content!['application/json']!.schema!)
  const publish = schemaOf('/panel/api/shoutbox', 'post')
  t.ok(publish({ result: 'ok' }))
  t.notOk(publish({ result: 'ok', shout: { id: 1 } }), 'CONTRACT §6: the panel\'s publish answers {"result":"ok"} and nothing else')
  const post = schemaOf('/api/shoutbox', 'post')
  const shout = { id: 1, message: 'hi', username: 'ada', date: 1, room: 'general', replyTo: null, reactions: [] }
  t.ok(post({ result: 'ok', shout }))
  t.ok(post({ result: 'ok', shout: { ...shout, replyTo: { id: 7, username: 'grace', excerpt: 'hello' }, reactions: [{ emoji: '👍', count: 2, mine: true }] } }), 'CONTRACT §16: a reply, and reactions with `mine`')
  t.ok(post({ result: 'ok', shout: { ...shout, replyTo: { id: 7, deleted: true }, reactions: [{ emoji: '👍', count: 2 }] } }), 'CONTRACT §16: a reply to a deleted shout, and reactions without `mine`')
  t.notOk(post({ result: 'ok', shout: { ...shout, authorId: 2 } }), 'CONTRACT §12, §15, §16: a member\'s post answers the shout with its four fields, its room, replyTo and reactions — an eighth fails')
  t.notOk(post({ result: 'ok', shout: { id: 1, message: 'hi', username: 'ada', date: 1, replyTo: null, reactions: [] } }), 'CONTRACT §15: a shout without its room fails')
  t.notOk(post({ result: 'ok', shout: { id: 1, message: 'hi', username: 'ada', date: 1, room: 'general', reactions: [] } }), 'CONTRACT §16: a shout without replyTo fails')
  t.notOk(post({ result: 'ok', shout: { id: 1, message: 'hi', username: 'ada', date: 1, room: 'general', replyTo: null } }), 'CONTRACT §16: a shout without its reactions fails')
  t.notOk(post({ result: 'ok', shout: { ...shout, replyTo: { id: 7, deleted: true, excerpt: 'hello' } } }), 'CONTRACT §16: a deleted original shows no text')
  const me = schemaOf('/api/auth/me', 'get')
  t.notOk(me({ result: 'ok', user: { id: 1, username: 'ada', role: { id: 2, name: 'member' }, permissions: [], email: 'ada@example.org' } }), 'CONTRACT §5: me is {id, username, role, permissions} — never the e-mail address')
  const health = schemaOf('/api/health', 'get')
  t.notOk(health({ result: 'ok', database: 'down' }), 'CONTRACT §5: a 200 from health means the database is up')
})
