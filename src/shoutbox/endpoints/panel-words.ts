import { BadRequest, IdParamsSchema, NoPermission, NotFound, PanelApi, Successful, Type, okAnswer, type SignedInCall } from '../../sdk/index.js'
import { WatchedWordExists } from '../errors.js'
import { MAX_PATTERN_LENGTH, patternProblem, WORD_ACTIONS, type WordAction } from '../watched-words.js'
import { MAX_WATCHED_WORDS, watchedWordsRepository, WatchedWords } from '../word-list.js'

const ActionSchema = Type.Unsafe<WordAction>({
  type: 'string', enum: [...WORD_ACTIONS],
  description: '"block": the shout is refused (WATCHED_WORD); "censor": each match is stored as stars; "hold": the shout waits for review'
})

const WordSchema = Type.Object({
  id: Type.Integer(),
  pattern: Type.String(),
  action: ActionSchema,
  createdAt: Type.Integer({ description: 'ms since the Unix epoch' }),
  createdBy: Type.Union([Type.Integer(), Type.Null()], { description: 'the user id of who added it' })
}, { additionalProperties: false })

const EXAMPLE = { id: 3, pattern: 'free money', action: 'block' as const, createdAt: 1795000000000, createdBy: 1 }

/** GET /api/panel/shoutbox/words — the watched words, oldest first (MANAGE_SHOUTBOX). */
export class PanelWords extends PanelApi {
  readonly method = 'GET'
  readonly path = '/api/panel/shoutbox/words'
  override readonly closedToTokens = true
  readonly schema = {}
  override readonly answers = { ok: okAnswer({ words: Type.Array(WordSchema) }, { words: [EXAMPLE] }), errors: [NoPermission] }

  async handle (call: SignedInCall): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    return new Successful({ words: await watchedWordsRepository(call.ctx.db).all() })
  }
}

const AddWordSchema = {
  body: Type.Object({
    pattern: Type.String({ minLength: 1, maxLength: MAX_PATTERN_LENGTH * 2, description: `a word or a phrase (at most ${MAX_PATTERN_LENGTH} characters, 8 words); \`*\` inside a word stands for any letters` }),
    action: ActionSchema
  }, { additionalProperties: false })
}

/**
 * POST /api/panel/shoutbox/words — watches a word (MANAGE_SHOUTBOX): from now on, on every
 * process, members' posts and edits holding it are blocked, censored or held. One whose
 * skeleton is watched already (`FREE` when `free` is) → 409 WATCHED_WORD_EXISTS with its
 * id. Logged ADDED_WATCHED_WORD.
 */
export class AddWord extends PanelApi<typeof AddWordSchema> {
  readonly method = 'POST'
  readonly path = '/api/panel/shoutbox/words'
  override readonly closedToTokens = true
  readonly schema = AddWordSchema
  override readonly answers = { ok: okAnswer({ word: WordSchema }, { word: EXAMPLE }), errors: [BadRequest, NoPermission, WatchedWordExists] }

  async handle (call: SignedInCall<typeof AddWordSchema>): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    const { ctx, user, body } = call
    const problem = patternProblem(body.pattern)
    if (problem !== undefined) throw new BadRequest({ reason: problem })
    const word = await ctx.transaction(async trx => {
      const repository = watchedWordsRepository(ctx.db)
      if (await repository.count(trx) >= MAX_WATCHED_WORDS) throw new BadRequest({ reason: `at most ${MAX_WATCHED_WORDS} watched words` })
      const added = await repository.add(body.pattern, body.action, user.id, trx)
      await ctx.activityLog.write({ type: 'ADDED_WATCHED_WORD', user, details: { id: added.id, pattern: added.pattern, action: added.action } }, trx)
      await WatchedWords.changed(ctx, trx)
      return added
    })
    return new Successful({ word })
  }
}

/** DELETE /api/panel/shoutbox/words/:id — stops watching a word (MANAGE_SHOUTBOX); 404 for none. Logged REMOVED_WATCHED_WORD. */
export class RemoveWord extends PanelApi<{ params: typeof IdParamsSchema }> {
  readonly method = 'DELETE'
  readonly path = '/api/panel/shoutbox/words/:id'
  override readonly closedToTokens = true
  readonly schema = { params: IdParamsSchema }
  override readonly answers = { ok: okAnswer({}, {}), errors: [NoPermission, NotFound] }

  async handle (call: SignedInCall<{ params: typeof IdParamsSchema }>): Promise<Successful> {
    call.requirePermission('MANAGE_SHOUTBOX')
    const { ctx, user } = call
    await ctx.transaction(async trx => {
      const removed = await watchedWordsRepository(ctx.db).remove(Number(call.params.id), trx)
      if (removed === undefined) throw new NotFound()
      await ctx.activityLog.write({ type: 'REMOVED_WATCHED_WORD', user, details: { id: removed.id, pattern: removed.pattern, action: removed.action } }, trx)
      await WatchedWords.changed(ctx, trx)
    })
    return new Successful({})
  }
}
