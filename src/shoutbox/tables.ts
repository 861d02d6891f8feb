/** The addon's tables that more than one repository reads. */
export const SHOUTS_TABLE = 'shoutbox_shouts'
export const PINS_TABLE = 'shoutbox_pins'
