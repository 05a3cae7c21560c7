import { connect } from 'node:net'
import * as TE from 'fp-ts/TaskEither'
import { makeAuthorize, makeCheckRateLimit, Role, ROLE_CATALOGUE } from '@orka/domain'
import type { HttpDeps } from '../../src'
import {
  aCard,
  CaptureLog,
  catalogueRoles,
  clockAtT0,
  FakeKeys,
  fakeMac,
  fakeMerchantAccounts,
  SlidingLogRateLimitStore,
  useCasesWith,
} from '../support'

const roles = catalogueRoles
const merchantAccounts = fakeMerchantAccounts('default')
export const card = aCard

export const UNAUTHORIZED_BODY = JSON.stringify({
  type: 'error',
  code: 'unauthorized',
  status: 401,
  message: 'No valid API authentication found',
  details: [],
})

export interface RecordingDeps {
  readonly deps: HttpDeps
  /** Every use case reached, authorization and the rate limiter included, in order. */
  readonly calls: string[]
  readonly log: CaptureLog
}

/** The app's deps with fakes whose every use case records its calls. */
export const recordingDeps = (
  keys: FakeKeys,
  opts: { rateLimit?: number; maxBodyBytes?: number; maxTokenLifetimeS?: number } = {},
): RecordingDeps => {
  const calls: string[] = []
  const log = new CaptureLog()
  const clock = clockAtT0()
  const record =
    <A extends unknown[], R>(name: string, f: (...a: A) => R) =>
    (...a: A): R => {
      calls.push(name)
      return f(...a)
    }
  const unexpected = (name: string) => () => {
    calls.push(name)
    throw new Error(`${name} was not expected here`)
  }
  const deps: HttpDeps = {
    keys,
    clock,
    mac: fakeMac,
    log,
    config: {
      merchantAccountHeader: 'x-orka-merchant-account-id',
      defaultMerchantAccountId: 'default',
      maxBodyBytes: opts.maxBodyBytes ?? 1024,
      tokenCacheSize: 10,
      ...(opts.maxTokenLifetimeS === undefined ? {} : { maxTokenLifetimeS: opts.maxTokenLifetimeS }),
    },
    useCases: useCasesWith(unexpected, {
      authorize: record('authorize', makeAuthorize({ merchantAccounts, roles })),
      checkRateLimit: record(
        'checkRateLimit',
        makeCheckRateLimit({ store: new SlidingLogRateLimitStore(), clock, config: { limit: opts.rateLimit ?? 1000, windowS: 60 } }),
      ),
      activateGiftCard: record('activateGiftCard', () => TE.right({ value: card, replayed: false })),
      putCheckoutSessionFields: record('putCheckoutSessionFields', () => TE.right(undefined)),
      listRoles: record('listRoles', () =>
        TE.right({ items: [ROLE_CATALOGUE[0]!] as Role[], limit: 20, next_cursor: null, previous_cursor: null }),
      ),
    }),
  }
  return { deps, calls, log }
}

export interface RawResponse {
  readonly status: number
  /** Lower-case names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** Parses one HTTP/1.1 response with a Content-Length out of what a raw socket received. */
export const parseResponse = (raw: Buffer): RawResponse => {
  const end = raw.indexOf('\r\n\r\n')
  if (end < 0) throw new Error(`no complete response head in ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`)
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n')
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine!)?.[1])
  const headers: Record<string, string> = {}
  for (const l of lines) {
    const i = l.indexOf(':')
    const name = l.slice(0, i).trim().toLowerCase()
    const value = l.slice(i + 1).trim()
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
  }
  const length = Number(headers['content-length'] ?? 0)
  return { status, headers, body: raw.subarray(end + 4, end + 4 + length).toString('utf8') }
}

/**
 * Sends `head` (the request line and header lines, without the blank line) as written, on a
 * fresh connection that asks to be closed, and reads until the server closes it.
 */
export const rawRequest = (port: number, head: string, body = ''): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (c: Buffer) => chunks.push(c))
    socket.on('error', reject)
    socket.on('close', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks)))
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)))
      }
    })
    // Not `end()`: a Node server aborts a request whose client half-closes before the answer.
    socket.write(`${head}\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
  })
