import { BadRequest, NoPermission, PanelApi, Successful, Type, okAnswer, type SignedInCall } from '../../../sdk/index.js'
import type { HostContext } from '../../addons/context.js'
import { accentPalette, AccentRefused } from '../accent.js'
import { DEFAULT_FACE, facesOf, siteFaceRepository, type SiteFace } from '../face.js'
import { LANGUAGES } from '../languages.js'
import { setLogo } from '../../pictures/endpoints/upload-logo.js'

/** A text a person reads on every page: not blank, no control characters but line breaks. */
const shown = (maxLength: number, description: string) => Type.Union([
  Type.String({ minLength: 1, maxLength, pattern: '^[^\\u0000-\\u0009\\u000b-\\u001f\\u007f]*\\S[^\\u0000-\\u0009\\u000b-\\u001f\\u007f]*$' }),
  Type.Null()
], { description: `${description}; null: the theme's own, in the reader's language` })

const FaceFields = {
  siteName: shown(80, "the site's name: the header, each page's title, the mails"),
  welcomeTitle: shown(120, "the home page's heading"),
  welcomeText: shown(2000, "the home page's welcome (a blank line starts a paragraph)"),
  accent: Type.Union([Type.String({ maxLength: 64 }), Type.Null()], { description: 'the accent colour, #rrggbb (or #rgb, rgb(r, g, b)); the theme derives a shade per theme that keeps 4.5:1; null: the theme\'s own' }),
  defaultLocale: Type.String({ enum: [...LANGUAGES], description: 'the language of a reader whose preference and browser name none the site has' }),
  logo: Type.Union([Type.String(), Type.Null()], { description: 'the logo\'s address, set by POST /api/panel/uploads/logo; null: none (a PUT may only take it down)' })
}

const FaceAnswer = okAnswer({ face: Type.Object(FaceFields, { additionalProperties: false }), languages: Type.Array(Type.String()) },
  { face: { ...DEFAULT_FACE, siteName: 'Kedi Kulübü', accent: '#c2185b' }, languages: [...LANGUAGES] })

/** GET /api/panel/site-face — the site's name, welcome, accent colour and default language. */
export class ReadSiteFace extends PanelApi<object, HostContext> {
  readonly method = 'GET'
  readonly path = '/api/panel/site-face'
  override readonly closedToTokens = true
  readonly schema = {}
  override readonly answers = { ok: FaceAnswer, errors: [NoPermission] }

  async handle (call: SignedInCall<object, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_SETTINGS')
    return new Successful({ face: (await facesOf(call.ctx.db).current()).face, languages: LANGUAGES })
  }
}

const { logo: _logo, ...Writable } = FaceFields
const ChangeSiteFaceSchema = {
  body: Type.Partial(Type.Object({ ...Writable, logo: Type.Null({ description: 'takes the logo down (a new one comes through POST /api/panel/uploads/logo)' }) }), { minProperties: 1, description: 'the fields to change; the others stay as they are' })
}

/**
 * PUT /api/panel/site-face — changes the fields sent, on every process at once (the pages
 * read the face kept in memory, forgotten on each process when the change commits); logged
 * UPDATED_SITE_FACE. A value that is not a colour, or one the theme cannot keep 4.5:1 with
 * (a translucent one), is refused with 400 and nothing changes.
 */
export class ChangeSiteFace extends PanelApi<typeof ChangeSiteFaceSchema, HostContext> {
  readonly method = 'PUT'
  readonly path = '/api/panel/site-face'
  override readonly closedToTokens = true
  readonly schema = ChangeSiteFaceSchema
  override readonly answers = { ok: FaceAnswer, errors: [NoPermission, BadRequest] }

  async handle (call: SignedInCall<typeof ChangeSiteFaceSchema, HostContext>): Promise<Successful> {
    call.requirePermission('MANAGE_SETTINGS')
    const { ctx, user, body } = call
    const changes: { -readonly [K in keyof SiteFace]?: SiteFace[K] } = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined))
    if (typeof changes.accent === 'string') {
      try {
        changes.accent = accentPalette(changes.accent).accent
      } catch (error) {
        if (error instanceof AccentRefused) throw new BadRequest({ bodyValidationError: `body/accent: ${error.message}` })
        throw error
      }
    }
    if (changes.logo === null) {
      const { logo: _taken, ...rest } = changes
      await setLogo(ctx, user, null)
      if (Object.keys(rest).length === 0) return new Successful({ face: await siteFaceRepository(ctx.db).read(), languages: LANGUAGES })
      delete changes.logo
    }
    const faces = facesOf(ctx.db)
    const face = await ctx.transaction(async trx => {
      const next: SiteFace = { ...await siteFaceRepository(trx).read(trx), ...changes }
      await faces.change(next, trx)
      await ctx.activityLog.write({ type: 'UPDATED_SITE_FACE', user, details: changes }, trx)
      return next
    })
    return new Successful({ face, languages: LANGUAGES })
  }
}
