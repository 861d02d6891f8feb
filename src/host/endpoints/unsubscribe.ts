import { Api, Successful, Type, okAnswer, type PublicCall } from '../../sdk/index.js'
import type { HostContext } from '../addons/context.js'
import { ONE_CLICK_UNSUBSCRIBE_PATH } from '../http/json-body.js'
import { preferencesRepository } from '../identity/preferences.js'
import { InvalidUnsubscribeLink } from '../mail/errors.js'
import { isUnsubscribeToken } from '../mail/unsubscribe.js'

const UnsubscribeSchema = {
  querystring: Type.Object({
    user: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
    token: Type.String({ minLength: 43, maxLength: 43, pattern: '^[A-Za-z0-9_-]+$' })
  })
}

/**
 * POST /api/mail/unsubscribe?user=&token= — the one-click unsubscribe of a mention mail
 * (RFC 8058: the mail's `List-Unsubscribe` with `List-Unsubscribe-Post:
 * List-Unsubscribe=One-Click`; a mail client POSTs that form, which is not read). No
 * session: the link's signature says whose it is, and nobody without the address secret
 * can make one. Mention mails are turned off; a second time changes nothing and answers
 * alike. Logged STOPPED_MENTION_MAILS.
 */
export class Unsubscribe extends Api<typeof UnsubscribeSchema, HostContext> {
  readonly method = 'POST'
  readonly path = ONE_CLICK_UNSUBSCRIBE_PATH
  readonly schema = UnsubscribeSchema
  override readonly answers = {
    ok: okAnswer({}, {}, 'Mention mails are off for the account the link was made for'),
    errors: [InvalidUnsubscribeLink]
  }

  async handle (call: PublicCall<typeof UnsubscribeSchema, HostContext>): Promise<Successful> {
    const { ctx, query } = call
    if (!isUnsubscribeToken(ctx.mail.unsubscribeKey, query.user, query.token)) throw new InvalidUnsubscribeLink()
    if (await preferencesRepository(ctx.db).stopMentionMails(query.user)) {
      const account = await ctx.identity.users.find(query.user)
      if (account !== undefined) await ctx.activityLog.write({ type: 'STOPPED_MENTION_MAILS', user: account })
    }
    return new Successful()
  }
}
