import { lookup as dnsLookup, LookupAddress } from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import { isIP, LookupFunction } from 'node:net'
import { isBlockedAddress, WebhookAttemptError } from '@orka/domain'

/** How one outbound request can fail before an answer is read. */
export class OutboundFailure extends Error {
  constructor(readonly kind: Extract<WebhookAttemptError, 'timeout' | 'connection_failed' | 'blocked_address' | 'unresolvable_host' | 'https_required'>) {
    super(kind)
  }
}

export type Resolve = (host: string) => Promise<ReadonlyArray<LookupAddress>>
export const systemResolve: Resolve = (host) =>
  new Promise((resolve, reject) => dnsLookup(host, { all: true }, (e, addresses) => (e ? reject(e) : resolve(addresses))))

export interface PostOptions {
  readonly signal: AbortSignal
  readonly allowPrivateAddresses: boolean
  readonly requireHttps: boolean
  readonly resolve: Resolve
  /** Bytes of the answer read at most; the rest is not read. */
  readonly maxRead: number
}

export interface Exchange {
  readonly status: number
  readonly body: Buffer
}

const aborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    if (signal.aborted) reject(new OutboundFailure('timeout'))
    signal.addEventListener('abort', () => reject(new OutboundFailure('timeout')), { once: true })
  })

/**
 * The address to connect to: every address the host resolves to must be allowed (one blocked
 * address refuses the host, so a name cannot mix a public and a private answer), and the
 * connection then goes to the one checked, so DNS cannot answer differently in between.
 */
const vet = async (host: string, o: PostOptions): Promise<LookupAddress> => {
  if (isIP(host) !== 0) {
    if (!o.allowPrivateAddresses && isBlockedAddress(host)) throw new OutboundFailure('blocked_address')
    return { address: host, family: isIP(host) }
  }
  let addresses: ReadonlyArray<LookupAddress>
  try {
    addresses = await Promise.race([o.resolve(host), aborted(o.signal)])
  } catch (e) {
    if (e instanceof OutboundFailure) throw e
    throw new OutboundFailure('unresolvable_host')
  }
  if (addresses.length === 0) throw new OutboundFailure('unresolvable_host')
  if (!o.allowPrivateAddresses && (host.toLowerCase() === 'localhost' || addresses.some((a) => isBlockedAddress(a.address))))
    throw new OutboundFailure('blocked_address')
  return addresses[0]!
}

const pinned =
  (a: LookupAddress): LookupFunction =>
  (_host, options, callback) =>
    (options as { all?: boolean }).all ? (callback as (e: null, a: LookupAddress[]) => void)(null, [a]) : callback(null, a.address, a.family)

/**
 * One `POST`, never following a redirect, on a connection of its own (no pooling: each attempt
 * resolves and vets its host afresh). Resolves with the status and at most `maxRead` bytes of
 * the answer; rejects with an `OutboundFailure`.
 */
export const postOnce = async (url: string, headers: Record<string, string>, body: string, o: PostOptions): Promise<Exchange> => {
  let target: URL
  try {
    target = new URL(url)
  } catch {
    throw new OutboundFailure('connection_failed')
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new OutboundFailure('connection_failed')
  if (target.protocol === 'http:' && o.requireHttps) throw new OutboundFailure('https_required')
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1')
  const address = await vet(host, o)
  const payload = Buffer.from(body, 'utf8')
  return new Promise<Exchange>((resolve, reject) => {
    const fail = () => reject(new OutboundFailure(o.signal.aborted ? 'timeout' : 'connection_failed'))
    const req = (target.protocol === 'https:' ? https : http).request(
      {
        protocol: target.protocol,
        hostname: host,
        port: target.port === '' ? undefined : Number(target.port),
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(payload.length) },
        agent: false,
        lookup: pinned(address),
        ...(target.protocol === 'https:' && isIP(host) === 0 ? { servername: host } : {}),
        signal: o.signal,
      },
      (res) => {
        const chunks: Buffer[] = []
        let size = 0
        const done = () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).subarray(0, o.maxRead) })
        res.on('data', (c: Buffer) => {
          chunks.push(c)
          size += c.length
          // Enough read: the rest is dropped with the connection.
          if (size >= o.maxRead) {
            done()
            res.destroy()
          }
        })
        res.on('end', done)
        res.on('error', fail)
        res.on('aborted', fail)
      },
    )
    req.on('error', fail)
    req.end(payload)
  })
}
