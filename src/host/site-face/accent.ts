/**
 * The site's accent colour, and what the theme draws from it. No one colour keeps 4.5:1
 * against both a light and a dark page, so each theme gets its own shade: in the light
 * theme the accent darkened until it keeps 4.5:1 against the light page and surface, in
 * the dark theme lightened until it keeps 4.5:1 against the dark ones; on each, the text
 * drawn on the accent is white or near-black, whichever keeps 4.5:1 (one always does).
 */

export type Rgb = readonly [number, number, number]

/** The theme's backgrounds an accent-coloured text sits on (theme.css, panel.css, palette.css). */
const LIGHT_BACKGROUNDS: Rgb[] = [[0xfb, 0xfa, 0xf7], [0xff, 0xff, 0xff], [0xf5, 0xf6, 0xf8]]
const DARK_BACKGROUNDS: Rgb[] = [[0x14, 0x17, 0x1b], [0x1d, 0x22, 0x28]]
const WHITE: Rgb = [0xff, 0xff, 0xff]
const INK: Rgb = [0x0d, 0x1b, 0x3d]
const TEXT_CONTRAST = 4.5

/** What is wrong with an accent the panel sent: not a colour, or one the theme cannot use. */
export class AccentRefused extends Error {}

/**
 * `#rgb`, `#rrggbb`, an opaque `#rrggbbaa`, or `rgb(r, g, b)`. A translucent colour is
 * refused: what shows through it is not the theme's to know, so neither is its contrast.
 */
export function parseColour (text: string): Rgb {
  const value = text.trim().toLowerCase()
  let match = /^#([0-9a-f]{3})$/.exec(value)
  if (match !== null) return [...match[1]!].map(digit => parseInt(digit + digit, 16)) as unknown as Rgb
  match = /^#([0-9a-f]{6})([0-9a-f]{2})?$/.exec(value)
  if (match !== null) {
    if (match[2] !== undefined && match[2] !== 'ff') throw new AccentRefused('a translucent colour cannot keep its contrast: give an opaque one')
    const hex = match[1]!
    return [0, 2, 4].map(i => parseInt(hex.slice(i, i + 2), 16)) as unknown as Rgb
  }
  match = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/.exec(value)
  if (match !== null) {
    const channels = match.slice(1, 4).map(Number)
    if (channels.every(channel => channel <= 255)) return channels as unknown as Rgb
  }
  throw new AccentRefused('not a colour: write it as #rrggbb')
}

export function hex ([r, g, b]: Rgb): string {
  return `#${[r, g, b].map(channel => channel.toString(16).padStart(2, '0')).join('')}`
}

/** WCAG 2 relative luminance. */
export function luminance ([r, g, b]: Rgb): number {
  const linear = (channel: number): number => {
    const c = channel / 255
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
}

/** WCAG 2 contrast ratio, 1 to 21. */
export function contrast (a: Rgb, b: Rgb): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number]
  return (light + 0.05) / (dark + 0.05)
}

function mix (from: Rgb, to: Rgb, share: number): Rgb {
  return from.map((channel, i) => Math.round(channel + (to[i]! - channel) * share)) as unknown as Rgb
}

/** `colour` moved toward `toward` in small steps until it keeps 4.5:1 against every background. */
function shadeFor (colour: Rgb, toward: Rgb, backgrounds: readonly Rgb[]): Rgb | undefined {
  for (let step = 0; step <= 100; step++) {
    const shade = mix(colour, toward, step / 100)
    if (backgrounds.every(background => contrast(shade, background) >= TEXT_CONTRAST)) return shade
  }
  return undefined
}

function textOn (fill: Rgb): Rgb | undefined {
  return [WHITE, INK].find(text => contrast(text, fill) >= TEXT_CONTRAST)
}

export interface AccentPalette {
  /** What was asked for, as `#rrggbb`. */
  readonly accent: string
  readonly light: { readonly accent: string, readonly onAccent: string }
  readonly dark: { readonly accent: string, readonly onAccent: string }
}

/** The shades the theme draws from `text`, or AccentRefused. */
export function accentPalette (text: string): AccentPalette {
  const colour = parseColour(text)
  const light = shadeFor(colour, [0, 0, 0], LIGHT_BACKGROUNDS)
  const dark = shadeFor(colour, WHITE, DARK_BACKGROUNDS)
  const lightText = light === undefined ? undefined : textOn(light)
  const darkText = dark === undefined ? undefined : textOn(dark)
  if (light === undefined || dark === undefined || lightText === undefined || darkText === undefined) {
    throw new AccentRefused('the theme cannot keep 4.5:1 for text with this colour')
  }
  return {
    accent: hex(colour),
    light: { accent: hex(light), onAccent: hex(lightText) },
    dark: { accent: hex(dark), onAccent: hex(darkText) }
  }
}

/**
 * The style sheet that puts the palette on every page (after the theme's own): the site's,
 * the panel's and the board's accent custom properties, each a light-dark() pair. `:root:root`
 * outranks the sheets that declare the defaults on `:root`, whatever order they load in.
 */
export function accentStyleSheet (palette: AccentPalette | undefined): string {
  if (palette === undefined) return '/* the theme\'s own accent */\n'
  const pair = (light: string, dark: string): string => `light-dark(${light}, ${dark})`
  const accent = pair(palette.light.accent, palette.dark.accent)
  const onAccent = pair(palette.light.onAccent, palette.dark.onAccent)
  return [
    `/* the site's accent ${palette.accent}, a shade per theme that keeps 4.5:1 */`,
    ':root:root {',
    `  --site-accent: ${accent};`, `  --site-on-accent: ${onAccent};`,
    `  --accent: ${accent};`, `  --accent-text: ${onAccent};`,
    `  --shoutbox-accent: ${accent};`, `  --shoutbox-on-accent: ${onAccent};`,
    '}', ''
  ].join('\n')
}
