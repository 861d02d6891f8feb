import { Api, Successful, Type, okAnswer, type PrivacyNote, type PublicCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { SESSION_LIFETIME_MS } from '../identity/sessions.js'

const NoteSchema = Type.Object({ what: Type.String(), why: Type.String(), kept: Type.String() })
const Schema = { querystring: Type.Object({ locale: Type.Optional(Type.String({ maxLength: 35 })) }) }

/**
 * GET /api/privacy — what the site stores about people, why, and for how long, as its
 * settings say now (the `/privacy` page draws it): the host's rows, then each addon's.
 */
export class PrivacyNotes extends Api<typeof Schema, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/privacy'
  readonly schema = Schema
  override readonly answers = {
    ok: okAnswer({ notes: Type.Array(NoteSchema) }, {
      notes: [{ what: 'Your account: username, e-mail address, role, and a hash of your password', why: 'To sign you in and show who wrote what', kept: 'Until the account is deleted' }]
    })
  }

  async handle (call: PublicCall<typeof Schema, HostContext>): Promise<Successful> {
    const { ctx } = call
    const locale = call.locale
    const { activityKeepDays, erasure } = await ctx.identity.siteSettings.read()
    const note = (key: string, values: Record<string, unknown> = {}): PrivacyNote => ({
      what: ctx.i18n.t(locale, `privacy.${key}.what`, values),
      why: ctx.i18n.t(locale, `privacy.${key}.why`, values),
      kept: ctx.i18n.t(locale, `privacy.${key}.kept`, values)
    })
    const notes = [
      note('account'),
      // What deleting the account does to what was posted: as the site's `erasure` says now.
      note(`erasure.${erasure}`),
      note('sessions', { days: SESSION_LIFETIME_MS / 86_400_000 }),
      note('preferences'),
      note('notifications'),
      note('tokens'),
      note(activityKeepDays === null ? 'activity' : 'activityDays', { days: activityKeepDays ?? 0 }),
      note('addresses'),
      note('webhooks'),
      ...await ctx.addons.privacyNotes(locale)
    ]
    return new Successful({ notes })
  }
}
