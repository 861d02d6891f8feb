import { translator } from '../../sdk/ui.js'
import en from '../../../lang/en.json' with { type: 'json' }
import tr from '../../../lang/tr.json' with { type: 'json' }

/** The addon's strings (its lang/ files, bundled in) in `locale`. */
export const shoutboxStrings = (locale: string) => translator({ en, tr }, locale)
