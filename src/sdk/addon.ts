import type { FastifyPluginAsync } from 'fastify'
import { ADDON } from './brands.js'
import type { AddonContext, Database, SqlPart, Transaction } from './context.js'
import type { DataMap } from './data-map.js'
import type { StreamedObject } from './streamed.js'
import type { MemberViewer } from './viewer.js'
import type { PictureOwner } from './pictures.js'

export interface AddonDefinition {
  /** Runs inside the addon's own encapsulated Fastify context (hooks, decorators). */
  readonly plugin?: FastifyPluginAsync
  /** After setup, once the addon's migrations ran: warm caches, subscribe to the cluster. */
  readonly start?: (ctx: AddonContext) => Promise<void> | void
  /** When the host stops. */
  readonly stop?: (ctx: AddonContext) => Promise<void> | void
  /**
   * Permission nodes the addon makes as it runs, besides its manifest's (Shoutbox: a
   * read and a post node for each room), read from its database whenever the platform
   * lists or checks nodes, so every process agrees. Each must start with the addon's own
   * `addon.<id>.`; the Roles page shows them, with the title and description given in
   * `locale`, to `viewer` (an addon lists only the nodes that caller may know of).
   */
  readonly permissionNodes?: (ctx: AddonContext, locale: string, viewer: MemberViewer) => Promise<readonly RuntimePermission[]>
  /**
   * What `viewer` (a panel user reading the activity feed) may see of the addon's entries:
   * resolves to a function that gives an entry's details as they are, or fewer (a `variant`
   * of the sentence that says less). Without it every entry is shown whole.
   */
  readonly activityReader?: (ctx: AddonContext, viewer: MemberViewer) => Promise<ActivityRedactor>
  /**
   * Which of the addon's notifications `viewer` may be shown now — listed, counted and
   * streamed only while what each points at is still theirs to read (a mention in a room
   * whose `read` was tightened since is hidden). Asked on every read, not only when the
   * notification was written. Without it every notification of the addon is shown.
   */
  readonly notificationFilter?: (ctx: AddonContext, viewer: MemberViewer) => Promise<NotificationFilter>
  /**
   * Whether a visitor signing up may take `username`: false from any started addon refuses
   * the sign-up with 400 USERNAME_NOT_ALLOWED (no reason given). Shoutbox: not when it holds
   * a watched word that blocks.
   */
  readonly allowsUsername?: (ctx: AddonContext, username: string) => Promise<boolean>
  /**
   * The events the addon writes to outgoing webhooks (`ctx.webhooks`), such as
   * `shout.created`: the panel's webhooks may subscribe to these and the host's own.
   */
  readonly webhookEvents?: readonly string[]
  /**
   * The addon's tables in the data map (see DataMap): every column, and what export,
   * erasure, an edit and a delete do to each copy of a person's text, name or address.
   */
  readonly dataMap?: DataMap
  /**
   * Everything the addon stores about the user `userId`, for the user's data export
   * (`GET /api/users/me/export`): it appears under the addon's id. It is asked for when the
   * export starts; a list that may be long is a StreamedArray (`keysetArray`), read a batch
   * at a time while the export is written, so the process holds a batch, not the list.
   * `reader` asks for it: the user, or an administrator (`GET /api/panel/users/:id/export`),
   * who is given only what the access policy lets them read.
   */
  readonly exportUser?: (ctx: AddonContext, userId: number, reader: MemberViewer) => Promise<StreamedObject>
  /**
   * What the addon stores about people, why, and for how long, as the site's settings say
   * now, in `locale`: rows of the site's `/privacy` page.
   */
  readonly privacyNotes?: (ctx: AddonContext, locale: string) => Promise<readonly PrivacyNote[]>
  /**
   * Inside the transaction that deletes the account `userId`: takes out what the addon
   * keeps about the user. What they published stays under the name `deleted user`
   * (`anonymise`, the site's default) or goes (`delete`), as the site's `erasure` says.
   */
  readonly eraseUser?: (ctx: AddonContext, userId: number, mode: ErasureMode, trx: Transaction) => Promise<void>
  /**
   * Who may see the addon's pictures (`ctx.pictures`, kind `picture`) and which it still
   * uses: the host asks before serving one at `/uploads/`, and before its sweep removes one.
   * Without it, none of the addon's pictures is served, and each goes an hour after upload.
   */
  readonly pictures?: (ctx: AddonContext) => PictureOwner
}

/**
 * Which notifications one reader may be shown, said twice: as an SQL condition over the
 * notifications table's `kind` and `data` columns (the row is aliased `n`), for lists and
 * counts, and as a test of one notification, for a stream.
 */
export interface NotificationFilter {
  readonly sql: SqlPart
  shows (notification: { readonly kind: string, readonly data: Readonly<Record<string, unknown>> }): boolean
}

/** What becomes of a deleted account's published content (the site's `erasure` setting). */
export type ErasureMode = 'anonymise' | 'delete'

/** The name a deleted account's anonymised content is shown under. */
export const DELETED_USER_NAME = 'deleted user'

/** One row of the `/privacy` page: what is stored, why, and how long it is kept. */
export interface PrivacyNote {
  readonly what: string
  readonly why: string
  readonly kept: string
}

/** An entry's details as one reader may see them. */
export type ActivityRedactor = (entry: { readonly type: string, readonly details: Readonly<Record<string, unknown>> }) => Record<string, unknown>

/** A permission node an addon made at run time (see AddonDefinition.permissionNodes). */
export interface RuntimePermission {
  readonly node: string
  readonly title: string
  readonly description: string
}

export type Addon = AddonDefinition & { readonly [ADDON]: true }

/** The default export of an addon's entry module. */
export function defineAddon (definition: AddonDefinition = {}): Addon {
  return { ...definition, [ADDON]: true }
}

/** A migration module in the addon's `migrations/` folder exports `up` (run once, in order of file name). */
export interface Migration {
  up (db: Database): Promise<void>
}
