import 'reflect-metadata'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import * as E from 'fp-ts/Either'
import { DependencyContainer } from 'tsyringe'
import { ManualClock } from '@orka/domain/testing'
import { loadConfig } from '../../src/config'
import { stableUuid } from '../../src/stable-id'
import { createLogger } from '../../src/logger'
import { generateKeyPair } from '../../src/dev-key'
import { mintToken, MintOptions } from '../../src/mint-token'
import { SeedFile } from '../../src/seed-file'
import { startServer, RunningServer } from '../../src/server'

/** The `default` account's primary gift card service, as the sandbox provisions it. */
export const DEFAULT_GIFT_CARD_SERVICE = {
  type: 'gift-card-service',
  id: stableUuid('gift-card-service', 'default', 'mock-gift-card', 'Mock gift cards'),
  gift_card_service_definition_id: 'mock-gift-card',
  display_name: 'Mock gift cards',
}

export const IDS = {
  defaultBuyer: '11111111-1111-4111-8111-111111111111',
  acmeBuyer: '22222222-2222-4222-8222-222222222222',
  defaultWebhook: '33333333-3333-4333-8333-333333333333',
  acmeWebhook: '44444444-4444-4444-8444-444444444444',
  instanceWebhook: '55555555-5555-4555-8555-555555555555',
  acmeService: '66666666-6666-4666-8666-666666666666',
}

/** The keys a test can sign with; each is provisioned with the roles its name says. */
export type KeyName = 'admin' | 'acmeAdmin' | 'readOnly' | 'giftCardOperator'

/** A response; `T` is what the test expects the body to be (not checked: a wrong guess fails the test). */
export interface Reply<T = unknown> {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** Parsed JSON body, or undefined when there was none. */
  readonly body: T
}

/** A page of a list operation. */
export interface Page<T = Resource> {
  readonly items: T[]
  readonly limit: number
  readonly next_cursor: string | null
  readonly previous_cursor: string | null
}

/** A record as the API shows it; a test names the other properties it reads. */
export interface Resource {
  readonly id: string
  readonly [property: string]: unknown
}

/** The spec's error body (see `errorBody`). */
export interface ErrorBody {
  readonly type: 'error'
  readonly code: string
  readonly status: number
  readonly message: string
  readonly details: readonly { readonly type: string; readonly location: string; readonly pointer: string; readonly message?: string }[]
  readonly resource_id?: string
}

/** The body of a request refused before it reached a use case (422). */
export interface ValidationErrorBody {
  readonly detail: readonly { readonly type: string; readonly loc: readonly (string | number)[]; readonly msg: string }[]
}

export interface Harness {
  readonly url: string
  readonly clock: ManualClock
  readonly server: RunningServer
  readonly container: DependencyContainer
  /** Every log line the server wrote, raw. */
  readonly logs: string[]
  readonly pems: Record<KeyName, string>
  token(key?: KeyName, o?: Partial<MintOptions>): string
  request<T = unknown>(method: string, path: string, o?: RequestOptions): Promise<Reply<T>>
  close(): Promise<void>
}

export interface RequestOptions {
  /** A token, or a key name (`KeyName`) to mint a fresh administrator-scoped token with, or null for none. */
  readonly auth?: string | null
  readonly body?: unknown
  /** Sent as is, instead of JSON-encoding `body`. */
  readonly rawBody?: string
  readonly headers?: Record<string, string>
  readonly merchantAccount?: string
}

export interface HarnessOptions {
  readonly env?: Record<string, string>
  readonly configure?: (c: DependencyContainer) => void
  /** Keys and seed to share with another instance (several instances, one database). */
  readonly fixture?: Fixture
  /** A clock to share with another instance. */
  readonly clock?: ManualClock
}

// --- Recorded responses, for the OpenAPI conformance suite (test/docs/openapi-conformance.spec.ts) ---
/** One response a test received through `Harness.request`. */
export interface RecordedResponse {
  readonly method: string
  /** The request's path, query string included. */
  readonly path: string
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
  readonly body: unknown
}
/**
 * Every response received through `Harness.request` in this mocha process, by every suite. The
 * conformance suite runs last and validates each against the served OpenAPI document.
 */
export const recordedResponses: RecordedResponse[] = []
// --- end of recorded responses ---

/** The provisioning a harness starts from: fresh keys, and a seed file naming them. */
export interface Fixture {
  readonly dir: string
  readonly seedFile: string
  readonly pems: Record<KeyName, string>
}

const KEYS: Record<KeyName, { merchant_account_id: string | null; roles: string[] }> = {
  admin: { merchant_account_id: null, roles: ['administrator'] },
  acmeAdmin: { merchant_account_id: 'acme', roles: ['administrator'] },
  readOnly: { merchant_account_id: null, roles: ['read-only'] },
  giftCardOperator: { merchant_account_id: null, roles: ['gift-card-operator'] },
}

export const makeFixture = (): Fixture => {
  const dir = mkdtempSync(join(tmpdir(), 'orka-test-'))
  const pairs = Object.fromEntries(Object.keys(KEYS).map((k) => [k, generateKeyPair()])) as Record<
    KeyName,
    ReturnType<typeof generateKeyPair>
  >
  const seed: SeedFile = {
    merchant_accounts: [
      { id: 'acme', display_name: 'Acme' },
      { id: 'frozen', display_name: 'Frozen Ltd', locked: true },
    ],
    api_key_pairs: (Object.keys(KEYS) as KeyName[]).map((k) => ({ public_key_pem: pairs[k].publicKeyPem, ...KEYS[k] })),
    gift_card_services: [
      {
        id: IDS.acmeService,
        merchant_account_id: 'acme',
        gift_card_service_definition_id: 'mock-gift-card',
        display_name: 'Acme cards',
        primary: true,
      },
    ],
    buyers: [
      { id: IDS.defaultBuyer, merchant_account_id: 'default', external_identifier: 'buyer-1', display_name: 'Ada Lovelace' },
      { id: IDS.acmeBuyer, merchant_account_id: 'acme', external_identifier: 'buyer-1', display_name: 'Acme Buyer' },
    ],
    webhook_subscriptions: [
      { id: IDS.defaultWebhook, merchant_account_id: 'default', url: 'https://hooks.example.test/default' },
      { id: IDS.acmeWebhook, merchant_account_id: 'acme', url: 'https://hooks.example.test/acme' },
      { id: IDS.instanceWebhook, merchant_account_id: null, url: 'https://hooks.example.test/instance' },
    ],
  }
  const seedFile = join(dir, 'seed.json')
  writeFileSync(seedFile, JSON.stringify(seed))
  const pems = Object.fromEntries(Object.entries(pairs).map(([k, v]) => [k, v.privateKeyPem])) as Record<KeyName, string>
  return { dir, seedFile, pems }
}

export const startHarness = async (o: HarnessOptions = {}): Promise<Harness> => {
  const { dir, seedFile, pems } = o.fixture ?? makeFixture()
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    SEED_FILE: seedFile,
    DATA_DIR: join(dir, 'data'),
    CONNECTOR_TIMEOUT_MS: '300',
    // Tests send many 429s one after the other; the hold has tests of its own.
    RATE_LIMIT_HOLD_MS: '0',
    LOG_LEVEL: 'info',
    // Several instances run at once: none opens the metrics listener unless a test asks (test/metrics).
    METRICS_PORT: '0',
    ...o.env,
  })
  if (E.isLeft(config)) throw new Error(config.left.join('; '))
  const logs: string[] = []
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk))
      done()
    },
  })
  const clock = o.clock ?? new ManualClock(new Date())
  const server = await startServer(config.right, { clock, logger: createLogger('info', sink), configure: o.configure })
  const token = (key: KeyName = 'admin', m: Partial<MintOptions> = {}) =>
    mintToken(pems[key], { scopes: ['*.read', '*.write'], expiresInS: 3600, now: clock.now(), ...m })

  const request = async <T = unknown>(method: string, path: string, r: RequestOptions = {}): Promise<Reply<T>> => {
    const auth = r.auth === undefined ? token('admin') : r.auth === null ? undefined : r.auth in KEYS ? token(r.auth as KeyName) : r.auth
    const headers: Record<string, string> = { ...(auth ? { authorization: `Bearer ${auth}` } : {}) }
    if (r.merchantAccount) headers['x-orka-merchant-account-id'] = r.merchantAccount
    let payload: string | undefined = r.rawBody
    if (payload === undefined && r.body !== undefined) payload = JSON.stringify(r.body)
    if (payload !== undefined) headers['content-type'] = 'application/json'
    Object.assign(headers, r.headers)
    const res = await fetch(server.url + path, { method, headers, body: payload })
    const text = await res.text()
    let body: unknown
    try {
      body = text === '' ? undefined : JSON.parse(text)
    } catch {
      body = undefined
    }
    recordedResponses.push({ method, path, status: res.status, headers: Object.fromEntries(res.headers), text, body }) // for the conformance suite
    return { status: res.status, headers: res.headers, text, body: body as T }
  }
  return { url: server.url, clock, server, container: server.container, logs, pems, token, request, close: () => server.close() }
}

/** The spec's error body for a status, with its default message. */
export const errorBody = (status: number, details: unknown[] = [], extra: Record<string, unknown> = {}) => {
  const [code, message] = (
    {
      400: ['bad_request', 'Generic error'],
      401: ['unauthorized', 'No valid API authentication found'],
      403: ['forbidden', 'Generic error'],
      404: ['not_found', 'The resource could not be found'],
      405: ['method_not_allowed', 'Method Not Allowed'],
      409: ['duplicate_record', 'Generic error'],
      425: ['too_early', 'Generic error'],
      429: ['too_many_requests', 'Generic error'],
      500: ['server_error', 'Request could not be processed'],
      502: ['bad_gateway', 'Request could not be processed'],
      504: ['gateway_timeout', 'Request could not be processed'],
    } as Record<number, [string, string]>
  )[status]!
  return { type: 'error', code, status, message, details, ...extra }
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
