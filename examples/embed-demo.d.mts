import type { Server } from 'node:http'

export interface DemoOptions {
  /** The board's address, e.g. `https://board.example.org`. */
  board: string
  /** The room to show (the default room when absent). */
  room?: string
}

/** The demo site's one page, with the board's `embed.js` tag in its sidebar. */
export function demoPage (options: DemoOptions): string

/** The demo site: a server, not listening yet. */
export function createDemoSite (options: DemoOptions): Server
