import type { Database } from '../../../sdk/index.js'

/**
 * A shout's pictures, as every answer but the seed's list shows them: `[{url, thumbUrl,
 * width, height, alt}]`, null for a shout without any (most). Indexed to find the shouts
 * that show a picture (who may see it, whether it is still used).
 */
export async function up (db: Database): Promise<void> {
  await db.raw('alter table shoutbox_shouts add column uploads jsonb')
  await db.raw('create index shoutbox_shouts_uploads on shoutbox_shouts using gin (uploads jsonb_path_ops) where uploads is not null')
}
