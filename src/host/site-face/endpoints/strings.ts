import { NotFound, Api, Successful, Type, okAnswer, type PublicCall } from '../../../sdk/index.js'
import type { HostContext } from '../../addons/context.js'

const StringsSchema = {
  params: Type.Object({
    owner: Type.String({ pattern: '^[a-z][a-z0-9-]{0,63}$', description: 'the host (`host`) or an addon\'s id' }),
    locale: Type.String({ maxLength: 35, description: 'a language tag; the closest language the site ships is answered' })
  })
}

/**
 * GET /api/strings/:owner/:locale — an owner's strings in the closest language the site
 * ships (`pt` finds `pt-BR`): for a page the server does not draw, such as the embed on
 * another site. The pages of the site itself carry theirs in.
 */
export class ReadStrings extends Api<typeof StringsSchema, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/strings/:owner/:locale'
  readonly schema = StringsSchema
  override readonly answers = {
    ok: okAnswer({ locale: Type.String(), strings: Type.Object({}, { additionalProperties: Type.String() }) }, { locale: 'de', strings: { 'widget.title': 'Neueste Shouts' } }),
    errors: [NotFound]
  }

  async handle ({ ctx, params }: PublicCall<typeof StringsSchema, HostContext>): Promise<Successful> {
    const locale = ctx.strings.resolveLocale(undefined, params.locale)
    const strings = ctx.strings.catalogue(params.owner, locale)
    if (strings === undefined) throw new NotFound()
    return new Successful({ locale, strings })
  }
}
