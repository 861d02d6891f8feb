/** How many code points of a shout a quote shows (a reply's, a mention's). */
export const EXCERPT_LENGTH = 80

/**
 * The first EXCERPT_LENGTH code points of `message`, never cut inside one: what a reply
 * and a mention quote. No imports, so the pages' bundle takes it as it is (PostgreSQL's
 * `left` cuts the same way where the server quotes in SQL).
 */
export const excerptOf = (message: string): string => [...message].slice(0, EXCERPT_LENGTH).join('')
