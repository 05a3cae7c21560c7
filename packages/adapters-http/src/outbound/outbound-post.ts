import http from 'node:http'
import https from 'node:https'
import { isIP } from 'node:net'
import { Agents } from './outbound-agents'
import { OutboundFailure } from './outbound-failure'
import { AddressPolicy, pinnedLookup, vetHost } from './pinned-lookup'

export interface PostOptions extends AddressPolicy {
  /** Aborted when the attempt's time is up: every step then ends as a timeout. */
  readonly signal: AbortSignal
  readonly requireHttps: boolean
  readonly agents: Agents
  /** Bytes of the answer read at most; the rest is not read. */
  readonly maxRead: number
}

export interface Exchange {
  readonly status: number
  readonly body: Buffer
}

/** A kept-alive connection the server had closed: nothing was answered on it. */
class StaleConnection extends Error {}

const target = (url: string, requireHttps: boolean): URL => {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    throw new OutboundFailure('connection_failed')
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new OutboundFailure('connection_failed')
  if (u.protocol === 'http:' && requireHttps) throw new OutboundFailure('https_required')
  return u
}

/**
 * One `POST`, never following a redirect. The host is resolved and vetted first, then the
 * connection goes to that address only. Resolves with the status and at most `maxRead` bytes of
 * the answer; rejects with an `OutboundFailure`.
 */
export const postOnce = async (url: string, headers: Record<string, string>, body: string, o: PostOptions): Promise<Exchange> => {
  const u = target(url, o.requireHttps)
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1')
  const address = await vetHost(host, o, o.signal)
  const secure = u.protocol === 'https:'
  const payload = Buffer.from(body, 'utf8')
  const options: https.RequestOptions = {
    protocol: u.protocol,
    hostname: host,
    port: u.port === '' ? undefined : Number(u.port),
    path: `${u.pathname}${u.search}`,
    method: 'POST',
    headers: { ...headers, 'Content-Length': String(payload.length) },
    agent: secure ? o.agents.https : o.agents.http,
    lookup: pinnedLookup(address),
    // Certificate and SNI are checked against the name, not the address (no SNI for a literal).
    ...(secure && isIP(host) === 0 ? { servername: host } : {}),
    signal: o.signal,
  }
  try {
    return await exchange(secure, options, payload, o)
  } catch (e) {
    if (!(e instanceof StaleConnection)) throw e
    // Node's documented remedy for a reused connection the server closed meanwhile: once more,
    // on a connection of its own. A receiver may see the event twice; delivery is at least once.
    return exchange(secure, { ...options, agent: false }, payload, o)
  }
}

const exchange = (secure: boolean, options: https.RequestOptions, payload: Buffer, o: PostOptions) =>
  new Promise<Exchange>((resolve, reject) => {
    let settled = false
    let answered = false
    const settle = (f: () => void) => {
      if (settled) return
      settled = true
      f()
    }
    const fail = (e?: NodeJS.ErrnoException) => {
      settle(() => {
        reject(
          o.signal.aborted
            ? new OutboundFailure('timeout')
            : !answered && req.reusedSocket && (e?.code === 'ECONNRESET' || e?.code === 'EPIPE')
              ? new StaleConnection()
              : new OutboundFailure('connection_failed'),
        )
      })
    }
    const req = (secure ? https : http).request(options, (res) => {
      answered = true
      const chunks: Buffer[] = []
      let size = 0
      const done = () => {
        settle(() => {
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks, Math.min(size, o.maxRead)) })
        })
      }
      res.on('data', (c: Buffer) => {
        if (settled) return
        chunks.push(c)
        size += c.length
        // Enough read: the rest is dropped with the connection, which is not reused.
        if (size >= o.maxRead) {
          done()
          res.destroy()
        }
      })
      res.on('end', done)
      res.on('error', fail)
      // Closed before the end (reset, or destroyed by the timeout): no complete answer.
      res.on('close', () => {
        if (res.complete) done()
        else fail()
      })
    })
    req.on('error', fail)
    req.end(payload)
  })
