import { lookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'

/**
 * Where a webhook may not be sent (SSRF): loopback, private, shared, link-local (the
 * clouds' metadata service, 169.254.169.254, among them), unspecified, multicast and
 * reserved ranges, in IPv4 and IPv6, IPv4 written as IPv6 included.
 */
const PRIVATE = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4]
] as const) PRIVATE.addSubnet(network, prefix, 'ipv4')
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['2001:db8::', 32], ['64:ff9b::', 96], ['100::', 64]
] as const) PRIVATE.addSubnet(network, prefix, 'ipv6')

/** Whether `address` (an IP literal) lies in a range a webhook may not reach. */
export function isPrivateAddress (address: string): boolean {
  const family = isIP(address)
  if (family === 4) return PRIVATE.check(address, 'ipv4')
  if (family !== 6) return true
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped !== null) return PRIVATE.check(mapped[1]!, 'ipv4')
  return PRIVATE.check(address, 'ipv6')
}

export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

/** How a host name becomes addresses (tests give their own). */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>

export const systemResolver: Resolver = async hostname =>
  (await lookup(hostname, { all: true, verbatim: true })).map(entry => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }))

/**
 * The address to connect to for `hostname`, checked now, at send time: a name that
 * resolves to any private address is refused (a name may hold several, and a rebinding
 * one changes between checks, so the request then goes to exactly the address checked).
 * Throws an Error saying why.
 */
export async function checkedAddress (hostname: string, resolve: Resolver, allowPrivate: boolean): Promise<ResolvedAddress> {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1')
  const family = isIP(bare)
  const addresses = family === 0 ? await resolve(bare) : [{ address: bare, family: family as 4 | 6 }]
  if (addresses.length === 0) throw new Error(`${hostname} has no address`)
  if (!allowPrivate && addresses.some(entry => isPrivateAddress(entry.address))) {
    throw new Error(`${hostname} resolves to a private address: refused`)
  }
  return addresses[0]!
}
