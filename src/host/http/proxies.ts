import net from 'node:net'
import type { TrustProxy } from '../config.js'

/** Fastify's `trustProxy`: is the peer at `hop` (0 = the one connected to us) a proxy we believe? */
export type TrustFunction = (address: string, hop: number) => boolean

/**
 * `TRUST_PROXY` as Fastify takes it. A number believes that many hops, whoever sends
 * them. A list believes `X-Forwarded-*` only from peers inside it: the connected peer
 * must be listed, and the client address is the first one, from the right of
 * `X-Forwarded-For`, that is not (as proxy-addr and Express do). IPv4-mapped IPv6 peers
 * (`::ffff:10.1.2.3`, a dual-stack listener) match their IPv4 ranges.
 */
export function trustProxyFunction (setting: TrustProxy): TrustFunction | false {
  if (typeof setting === 'number') return setting === 0 ? false : (_address, hop) => hop < setting
  const trusted = new net.BlockList()
  for (const entry of setting) {
    const [address = '', bits] = entry.split('/')
    const family = net.isIPv6(address) ? 'ipv6' : 'ipv4'
    if (bits === undefined) trusted.addAddress(address, family)
    else trusted.addSubnet(address, Number(bits), family)
  }
  return address => {
    const family = net.isIP(address)
    if (family === 0) return false
    try {
      return trusted.check(address, family === 6 ? 'ipv6' : 'ipv4')
    } catch {
      return false // a zone id (fe80::1%eth0) or anything else BlockList does not take
    }
  }
}
