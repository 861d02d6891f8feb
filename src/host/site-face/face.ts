import type { Database, Transaction } from '../../sdk/index.js'
import { SETTINGS_TABLE } from '../database/tables.js'
import type { Cluster } from '../services/cluster.js'
import type { I18n } from '../services/i18n.js'
import { accentPalette, type AccentPalette } from './accent.js'

/**
 * The site's own face, set from the panel: its name (the header's brand, each page's
 * title, the mails' sender line), the home page's welcome, its accent colour and the
 * language a reader gets when nothing they send names one we have. Null: the theme's own.
 * The logo is an upload (the pictures feature); `logo` is where its address will go.
 */
export interface SiteFace {
  readonly siteName: string | null
  readonly welcomeTitle: string | null
  readonly welcomeText: string | null
  readonly accent: string | null
  readonly defaultLocale: string
  /** Reserved for the logo upload: null until that feature sets it. */
  readonly logo: string | null
}

export const DEFAULT_FACE: SiteFace = { siteName: null, welcomeTitle: null, welcomeText: null, accent: null, defaultLocale: 'en', logo: null }

const KEY = 'face'
/** The cluster topic every process hears a change of the face on. */
export const FACE_TOPIC = 'host:site-face'

/** The face in the host's `settings` table (one JSON row, like the site's settings). */
export function siteFaceRepository (db: Database) {
  return {
    async read (trx: Database = db): Promise<SiteFace> {
      const row = await trx(SETTINGS_TABLE).where({ key: KEY }).first<{ value: Partial<SiteFace> } | undefined>('value')
      return { ...DEFAULT_FACE, ...row?.value }
    },

    async write (face: SiteFace, trx: Transaction): Promise<void> {
      await trx(SETTINGS_TABLE).insert({ key: KEY, value: JSON.stringify(face) }).onConflict('key').merge(['value'])
    }
  }
}

/** The face and what the pages draw from it, worked out once per change. */
export interface KeptFace {
  readonly face: SiteFace
  readonly palette: AccentPalette | undefined
}

/**
 * The face kept in memory on each process, forgotten when any process announces a change
 * (`FACE_TOPIC`, sent when the change commits) or when notices may have been missed; the
 * next page reads it again. The site's `defaultLocale` is handed to the strings as it is read.
 */
export class SiteFaces {
  private kept: Promise<KeptFace> | undefined
  private readonly repository: ReturnType<typeof siteFaceRepository>

  constructor (db: Database, private readonly cluster: Cluster, private readonly i18n: I18n) {
    this.repository = siteFaceRepository(db)
    cluster.subscribe(FACE_TOPIC, () => { this.kept = undefined })
    cluster.onResync(() => { this.kept = undefined })
  }

  async current (): Promise<KeptFace> {
    if (this.kept !== undefined) return await this.kept
    const reading = this.repository.read().then(face => {
      this.i18n.defaultLocale = this.i18n.known(face.defaultLocale) ?? 'en'
      return { face, palette: face.accent === null ? undefined : accentPalette(face.accent) }
    })
    if (this.cluster.isLinked) this.kept = reading
    reading.catch(() => { if (this.kept === reading) this.kept = undefined })
    return await reading
  }

  /** Stores `face` in `trx`, and tells every process (this one too) once it commits. */
  async change (face: SiteFace, trx: Transaction): Promise<void> {
    await this.repository.write(face, trx)
    await this.cluster.notify(FACE_TOPIC, '', trx)
  }
}

/** Each open database's kept face: how the face's endpoints reach the one the pages draw from. */
const byDatabase = new WeakMap<object, SiteFaces>()

export function keepFace (db: Database, faces: SiteFaces): void {
  byDatabase.set(db, faces)
}

export function facesOf (db: Database): SiteFaces {
  const faces = byDatabase.get(db)
  if (faces === undefined) throw new Error('the site face plugin is not registered')
  return faces
}
