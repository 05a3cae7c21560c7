import { connect } from 'node:net'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  Admission,
  GiftCard,
  makeAuthorize,
  makeCheckRateLimit,
  MerchantAccountRepository,
  RateLimitStore,
  Role,
  ROLE_CATALOGUE,
  RoleRepository,
} from '@orka/domain'
import type { HttpDeps } from '../../src'
import { CaptureLog, FakeClock, FakeKeys, fakeMac } from '../support'

/** Exact sliding log, as in app.spec. */
class FakeRateLimitStore implements RateLimitStore {
  readonly hits = new Map<string, number[]>()
  admit(key: string, limit: number, windowMs: number, now: Date) {
    const t = now.getTime()
    const live = (this.hits.get(key) ?? []).filter((x) => x > t - windowMs)
    const admitted = live.length < limit
    if (admitted) live.push(t)
    this.hits.set(key, live)
    const a: Admission = { admitted, remaining: Math.max(0, limit - live.length), resetMs: live.length === 0 ? 0 : live[0]! + windowMs - t }
    return TE.right(a)
  }
}

const roles: RoleRepository = {
  list: () => TE.right(ROLE_CATALOGUE),
  findBySlugs: (slugs) => TE.right(ROLE_CATALOGUE.filter((r) => slugs.includes(r.slug))),
  upsert: () => TE.right(undefined),
}
const merchantAccounts: MerchantAccountRepository = {
  find: (id) => TE.right(id === 'default' ? O.some({ id, display_name: 'Default', locked: false }) : O.none),
  upsert: () => TE.right(undefined),
}
export const card: GiftCard = {
  type: 'gift-card',
  id: '9a0e4a0b-5b1f-4a7c-8f6e-1d2c3b4a5f60',
  merchant_account_id: 'default',
  gift_card_service: { type: 'gift-card-service', id: '1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d', gift_card_service_definition_id: 'mock-gift-card', display_name: 'Mock' },
  bin: '412345',
  sub_bin: '678',
  last4: '0001',
  expiration_date: null,
  buyer: null,
  created_at: '2027-01-15T08:00:00.000Z',
  updated_at: '2027-01-15T08:00:00.000Z',
  last_used_at: null,
  usage_count: 0,
  cit_last_used_at: null,
  cit_usage_count: 0,
}

export const UNAUTHORIZED_BODY = JSON.stringify({ type: 'error', code: 'unauthorized', status: 401, message: 'No valid API authentication found', details: [] })

export interface RecordingDeps {
  readonly deps: HttpDeps
  /** Every use case reached, authorization and the rate limiter included, in order. */
  readonly calls: string[]
  readonly log: CaptureLog
}

/** The app's deps with fakes whose every use case records its calls. */
export const recordingDeps = (keys: FakeKeys, opts: { rateLimit?: number; maxBodyBytes?: number; maxTokenLifetimeS?: number } = {}): RecordingDeps => {
  const calls: string[] = []
  const log = new CaptureLog()
  const clock = new FakeClock()
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
    useCases: {
      authorize: record('authorize', makeAuthorize({ merchantAccounts, roles })),
      checkRateLimit: record(
        'checkRateLimit',
        makeCheckRateLimit({ store: new FakeRateLimitStore(), clock, config: { limit: opts.rateLimit ?? 1000, windowS: 60 } }),
      ),
      activateGiftCard: record('activateGiftCard', () => TE.right({ card, replayed: false })),
      listRoles: record('listRoles', () => TE.right({ items: [ROLE_CATALOGUE[0]!] as Role[], limit: 20, next_cursor: null, previous_cursor: null })),
      createBuyer: unexpected('createBuyer'),
      listBuyers: unexpected('listBuyers'),
      createWebhookSubscription: unexpected('createWebhookSubscription'),
      getWebhookSubscription: unexpected('getWebhookSubscription'),
      listWebhookSubscriptions: unexpected('listWebhookSubscriptions'),
      deleteWebhookSubscription: unexpected('deleteWebhookSubscription'),
      updateWebhookSubscription: unexpected('updateWebhookSubscription'),
      rotateWebhookSecret: unexpected('rotateWebhookSecret'),
      listWebhookDeliveries: unexpected('listWebhookDeliveries'),
      redeliverWebhookDelivery: unexpected('redeliverWebhookDelivery'),
    },
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
        reject(e)
      }
    })
    // Not `end()`: a Node server aborts a request whose client half-closes before the answer.
    socket.write(`${head}\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
  })
