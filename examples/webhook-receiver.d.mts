import type { Server } from 'node:http'

/** A Shoutbox webhook delivery's body. */
export interface Delivery {
  id: string
  event: string
  createdAt: number
  data: unknown
}

export interface ReceiverOptions {
  /** The webhook's signing secret. */
  secret: string
  /** How far the signed time may be from now, in seconds (default 300). */
  toleranceSeconds?: number
  /** The current time in milliseconds (default Date.now). */
  now?: () => number
  /** Called once for each new delivery. */
  onEvent: (delivery: Delivery) => void | Promise<void>
}

/** A `node:http` Server, not listening yet, that checks and de-duplicates deliveries. */
export function createReceiver (options: ReceiverOptions): Server

/** Parses a `Shoutbox-Signature` header, or null when it is missing or malformed. */
export function parseSignature (header: string | string[] | undefined): { timestamp: number, v1: string[] } | null
