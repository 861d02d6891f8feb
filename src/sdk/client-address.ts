import net from 'node:net'

/**
 * The client a request counts as, for the per-client limits (event streams, sign-in
 * attempts): its address, an IPv4-mapped IPv6 address as its IPv4 one, and an IPv6
 * address by its /64 — the block one subscriber line or one host is given, which it
 * could otherwise walk through for more streams or more guesses.
 */
export function clientKey (address: string): string {
  const bare = address.replace(/%.*$/, '')
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)
  if (mapped !== null) return mapped[1]!
  if (net.isIPv6(bare)) return `${ipv6Groups(bare).slice(0, 4).join(':')}::/64`
  return bare
}

/** The eight 16-bit groups of an IPv6 address, in lower-case hex without leading zeros. */
function ipv6Groups (address: string): string[] {
  const [head = '', tail] = address.split('::')
  const part = (text: string): string[] => text === '' ? [] : text.split(':').flatMap(group => {
    if (!group.includes('.')) return [group]
    const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number)
    return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)] // an embedded IPv4 address: two groups
  })
  const left = part(head)
  const right = tail === undefined ? [] : part(tail)
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
  return groups.map(group => parseInt(group, 16).toString(16))
}
