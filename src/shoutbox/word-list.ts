import type { AddonContext, Database, SessionUser, Transaction } from '../sdk/index.js'
import { announceChange } from './changes/notice.js'
import { WatchedWord, WatchedWordExists } from './errors.js'
import { Kept } from './kept.js'
import { perContext } from './per-context.js'
import { WATCHED_WORDS_TABLE } from './tables.js'
import { patternKey, WordFilter, type WatchedWord as Word, type WordAction } from './watched-words.js'

/** How many watched words a board may have. */
export const MAX_WATCHED_WORDS = 5000

/** A watched word as the panel lists it: who added it and when, too. */
export interface ListedWord extends Word {
  readonly createdAt: number
  readonly createdBy: number | null
}

interface WordRow { id: number, pattern: string, action: WordAction, created_at: number | string, created_by: number | null }

const listed = (row: WordRow): ListedWord => ({ id: row.id, pattern: row.pattern, action: row.action, createdAt: Number(row.created_at), createdBy: row.created_by })

/** `shoutbox_watched_words`. */
export function watchedWordsRepository (db: Database) {
  return {
    /** Every watched word, oldest first. */
    async all (): Promise<ListedWord[]> {
      return (await db(WATCHED_WORDS_TABLE).orderBy('id').select<WordRow[]>('id', 'pattern', 'action', 'created_at', 'created_by')).map(listed)
    },

    /** Adds `pattern`; WATCHED_WORD_EXISTS when one with its skeleton is watched already. */
    async add (pattern: string, action: WordAction, by: number, trx: Transaction): Promise<ListedWord> {
      const skeleton = patternKey(pattern)
      const [row] = await trx(WATCHED_WORDS_TABLE)
        .insert({ pattern: pattern.trim(), skeleton, action, created_by: by, created_at: Date.now() })
        .onConflict('skeleton').ignore()
        .returning<WordRow[]>(['id', 'pattern', 'action', 'created_at', 'created_by'])
      if (row !== undefined) return listed(row)
      const existing = await trx(WATCHED_WORDS_TABLE).where({ skeleton }).first<{ id: number }>('id')
      throw new WatchedWordExists(existing!.id)
    },

    async count (trx: Database = db): Promise<number> {
      const row = await trx(WATCHED_WORDS_TABLE).count({ count: '*' }).first<{ count: number | string }>()
      return Number(row?.count ?? 0)
    },

    /** Removes word `id`: what it was, or undefined when there is none. */
    async remove (id: number, trx: Transaction): Promise<ListedWord | undefined> {
      const [row] = await trx(WATCHED_WORDS_TABLE).where({ id }).delete().returning<WordRow[]>(['id', 'pattern', 'action', 'created_at', 'created_by'])
      return row === undefined ? undefined : listed(row)
    }
  }
}

/**
 * The board's watched words, compiled, for every post and edit: kept in memory while
 * every change is heard (a change on any process forgets them, as does a gap in the
 * notices), else read and compiled again.
 */
export class WatchedWords {
  static readonly of = perContext(ctx => new WatchedWords(ctx))

  private readonly kept: Kept<WordFilter>

  private constructor (private readonly ctx: AddonContext) {
    this.kept = new Kept(ctx, async () => new WordFilter(await watchedWordsRepository(ctx.db).all()), notice => notice.kind === 'watched-words')
  }

  async filter (): Promise<WordFilter> {
    return await this.kept.current()
  }

  /**
   * What becomes of a member's `message`: WATCHED_WORD for a blocked word; else the text to
   * store (censored words starred) and whether it waits for review. Staff are exempt.
   */
  async check (user: SessionUser, message: string): Promise<{ message: string, held: boolean }> {
    if (this.ctx.permissions.has(user, 'MANAGE_SHOUTBOX')) return { message, held: false }
    const verdict = (await this.filter()).check(message)
    if (verdict.action === 'block') throw new WatchedWord()
    return { message: verdict.message, held: verdict.action === 'hold' }
  }

  /** Tells every process the list changed, once `trx` commits. */
  static async changed (ctx: AddonContext, trx: Transaction): Promise<void> {
    await announceChange(ctx, 'watched-words', [], trx)
  }
}
