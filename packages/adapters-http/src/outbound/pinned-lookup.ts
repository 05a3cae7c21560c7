import { lookup as dnsLookup, LookupAddress } from 'node:dns'
import { isIP, LookupFunction } from 'node:net'
import { isBlockedAddress, isLocalHostName, parseIpv4, parseIpv6 } from '@orka/domain'
import { OutboundFailure, orAbort } from './outbound-failure'

/** Every address a host name resolves to; injectable so tests need no DNS. */
export type HostLookup = (host: string) => Promise<readonly LookupAddress[]>

export const systemLookup: HostLookup = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true }, (e, addresses) => {
      if (e) reject(e)
      else resolve(addresses)
    })
  })

export interface AddressPolicy {
  readonly allowPrivateAddresses: boolean
  readonly lookup: HostLookup
}

/**
 * Whether deliveries may not go to an address. What the domain's parser cannot read (node takes
 * `fe80::1%eth0`, with a zone id, for an address; the parser does not) is refused: fail closed.
 */
const refused = (address: string): boolean =>
  (parseIpv4(address) === undefined && parseIpv6(address) === undefined) || isBlockedAddress(address)

/**
 * The one address to connect to (`host` without IPv6 brackets). Unless private addresses are
 * allowed, every address the name resolves to must be allowed: one blocked answer refuses the
 * host, so a name cannot mix a public and a private address and hope the private one is used.
 */
export const vetHost = async (host: string, policy: AddressPolicy, signal: AbortSignal): Promise<LookupAddress> => {
  const strict = !policy.allowPrivateAddresses
  const family = isIP(host)
  if (family !== 0) {
    if (strict && refused(host)) throw new OutboundFailure('blocked_address')
    return { address: host, family }
  }
  // `localhost` names are this machine whatever DNS says (RFC 6761): not even looked up.
  if (strict && isLocalHostName(host)) throw new OutboundFailure('blocked_address')
  let addresses: readonly LookupAddress[]
  try {
    addresses = await orAbort(policy.lookup(host), signal)
  } catch (e) {
    if (e instanceof OutboundFailure) throw e
    throw new OutboundFailure('unresolvable_host') // ENOTFOUND, EAI_AGAIN, ENODATA...
  }
  const first = addresses[0]
  if (first === undefined || addresses.some((a) => isIP(a.address) === 0)) throw new OutboundFailure('unresolvable_host')
  if (strict && addresses.some((a) => refused(a.address))) throw new OutboundFailure('blocked_address')
  return first
}

/**
 * A `lookup` for `http.request` that answers with the vetted address only, so the connection
 * goes where the check said, however DNS would answer a second time (rebinding). TLS still
 * names the host: the request keeps `hostname`/`servername`, only the address is fixed.
 */
export const pinnedLookup =
  (a: LookupAddress): LookupFunction =>
  (_host, options, callback) => {
    if (options.all) callback(null, [a])
    else callback(null, a.address, a.family)
  }
