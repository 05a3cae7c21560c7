/**
 * Where webhook deliveries may not go: addresses that reach the service's own host or network
 * rather than the merchant's endpoint (loopback, private and shared networks, link-local with
 * the cloud metadata address, unspecified, multicast and reserved ranges). Pure, so the same
 * rule refuses a literal address at create time and a resolved one at every attempt.
 */

/** Dotted-quad IPv4 (the form URL parsers and resolvers produce), as a 32-bit number. */
export const parseIpv4 = (s: string): bigint | undefined => {
  const parts = s.split('.')
  if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255)) return undefined
  return parts.reduce((n, p) => (n << 8n) | BigInt(p), 0n)
}

/** IPv6 text (RFC 4291 §2.2, zone id refused) as a 128-bit number. */
export const parseIpv6 = (s: string): bigint | undefined => {
  if (!/^[0-9a-fA-F:.]+$/.test(s)) return undefined
  let text = s
  if (text.includes('.')) {
    // A trailing dotted quad stands for the last two groups.
    const at = text.lastIndexOf(':')
    const quad = parseIpv4(text.slice(at + 1))
    if (quad === undefined) return undefined
    text = `${text.slice(0, at + 1)}${(quad >> 16n).toString(16)}:${(quad & 0xffffn).toString(16)}`
  }
  const halves = text.split('::')
  if (halves.length > 2) return undefined
  const groups = (h: string) => (h === '' ? [] : h.split(':'))
  const [before = '', after] = halves
  const head = groups(before)
  const rest = after === undefined ? [] : groups(after)
  if (![...head, ...rest].every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return undefined
  const given = head.length + rest.length
  if (halves.length === 1 ? given !== 8 : given > 7) return undefined
  const words = [...head, ...Array<string>(8 - given).fill('0'), ...rest].map((g) => BigInt(`0x${g}`))
  return words.reduce((n, w) => (n << 16n) | w, 0n)
}

type Range = readonly [bits: bigint, prefix: number]

/** A blocked range's address, which is written right below: one that does not parse is a bug here. */
const parsed = (bits: bigint | undefined, text: string): bigint => {
  if (bits === undefined) throw new Error(`Blocked address range ${text} does not parse`)
  return bits
}

const v4 = (dotted: string, prefix: number): Range => [parsed(parseIpv4(dotted), dotted), prefix]
const BLOCKED_V4: readonly Range[] = [
  v4('0.0.0.0', 8), // unspecified, "this network"
  v4('10.0.0.0', 8), // RFC 1918
  v4('100.64.0.0', 10), // shared address space (carrier-grade NAT)
  v4('127.0.0.0', 8), // loopback
  v4('169.254.0.0', 16), // link-local, cloud metadata
  v4('172.16.0.0', 12), // RFC 1918
  v4('192.0.0.0', 24), // IETF protocol assignments
  v4('192.168.0.0', 16), // RFC 1918
  v4('198.18.0.0', 15), // benchmarking
  v4('224.0.0.0', 4), // multicast
  v4('240.0.0.0', 4), // reserved, broadcast
]

const v6 = (text: string, prefix: number): Range => [parsed(parseIpv6(text), text), prefix]
const BLOCKED_V6: readonly Range[] = [
  v6('::', 128), // unspecified
  v6('::1', 128), // loopback
  v6('fc00::', 7), // unique local
  v6('fe80::', 10), // link-local
  v6('fec0::', 10), // site-local (deprecated)
  v6('ff00::', 8), // multicast
]
/** Prefixes that carry an IPv4 address in their last 32 bits: judged by that address. */
const EMBEDDING_V4: readonly Range[] = [
  v6('::ffff:0:0', 96), // IPv4-mapped
  v6('::', 96), // IPv4-compatible (deprecated)
  v6('64:ff9b::', 96), // NAT64
]

const within = (ip: bigint, [net, prefix]: Range, width: number) => ip >> BigInt(width - prefix) === net >> BigInt(width - prefix)

/**
 * Whether deliveries must not go to this IP address (v4 dotted or v6 text, brackets allowed).
 * Anything that is not an address is not judged here: `false`.
 */
export const isBlockedAddress = (address: string): boolean => {
  const a = address.replace(/^\[(.*)\]$/, '$1')
  const ip4 = parseIpv4(a)
  if (ip4 !== undefined) return BLOCKED_V4.some((r) => within(ip4, r, 32))
  const ip6 = parseIpv6(a)
  if (ip6 === undefined) return false
  // `::` and `::1` fall in the IPv4-compatible prefix too, and are blocked as 0.0.0.0/8 there.
  if (EMBEDDING_V4.some((r) => within(ip6, r, 128))) return BLOCKED_V4.some((r) => within(ip6 & 0xffffffffn, r, 32))
  return BLOCKED_V6.some((r) => within(ip6, r, 128))
}

/** Host names that always mean this machine (RFC 6761). */
export const isLocalHostName = (host: string): boolean => /^(localhost|localhost\.localdomain)\.?$|\.localhost\.?$/i.test(host)
