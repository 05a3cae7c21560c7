import { createHmac, generateKeyPairSync } from 'node:crypto'
import { AddressInfo } from 'node:net'
import { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { sign, SignOptions } from 'jsonwebtoken'
import {
  Admission,
  ApiKeyPair,
  ApiKeyPairChanges,
  ApiKeyPairRepository,
  Buyer,
  GiftCard,
  Mac,
  MerchantAccountRepository,
  Page,
  RateLimitStore,
  unavailable,
} from '@orka/domain'
import { ManualClock } from '@orka/domain/testing'
import { HttpDeps, HttpLog, jwkThumbprint } from '../src'

export { catalogueRoles } from '@orka/domain/testing'

export interface TestKey {
  readonly privateKeyPem: string
  readonly publicKeyPem: string
  readonly thumbprint: string
}

export const newP521Key = (): TestKey => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-521' })
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString()
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem,
    thumbprint: jwkThumbprint(publicKeyPem),
  }
}

/** 2027-01-15T08:00:00Z, in seconds: tokens carry explicit times against this clock. */
export const T0 = 1_800_000_000

/** A clock at T0, moved by hand. */
export const clockAtT0 = (): ManualClock => new ManualClock(new Date(T0 * 1000))

/** A real HMAC-SHA256 under a test key (not `fakeMac` of the domain's doubles): token ids must have the production format. */
export const fakeMac: Mac = { mac: (purpose, data) => createHmac('sha256', `test-${purpose}`).update(data).digest('base64url') }

export const keyPair = (k: TestKey, over: Partial<ApiKeyPair> = {}): ApiKeyPair => ({
  id: '7f0c8a52-2f5e-4c1e-9d53-3a1b2c4d5e6f',
  thumbprint: k.thumbprint,
  public_key_pem: k.publicKeyPem,
  merchant_account_id: null,
  roles: ['administrator'],
  revoked: false,
  created_at: new Date(T0 * 1000).toISOString(),
  ...over,
})

/** An in-test key store: enough of the port for the verifier, with a switch to make it fail. */
export class FakeKeys implements ApiKeyPairRepository {
  readonly byThumbprint = new Map<string, ApiKeyPair>()
  failing = false
  lookups = 0
  constructor(...keys: ApiKeyPair[]) {
    for (const k of keys) this.byThumbprint.set(k.thumbprint, k)
  }
  findByThumbprint(thumbprint: string) {
    this.lookups++
    return this.failing ? TE.left(unavailable(new Error('key store down'))) : TE.right(O.fromNullable(this.byThumbprint.get(thumbprint)))
  }
  upsert(key: ApiKeyPair) {
    this.byThumbprint.set(key.thumbprint, key)
    return TE.right(undefined)
  }
  list() {
    return TE.right([...this.byThumbprint.values()])
  }
  revoke(id: string) {
    const k = [...this.byThumbprint.values()].find((x) => x.id === id)
    if (k) this.byThumbprint.set(k.thumbprint, { ...k, revoked: true })
    return TE.right(k !== undefined)
  }
  findById(id: string) {
    return TE.right(O.fromNullable([...this.byThumbprint.values()].find((x) => x.id === id)))
  }
  create(key: ApiKeyPair) {
    return this.upsert(key)
  }
  listPage() {
    return this.list()
  }
  update(id: string, changes: ApiKeyPairChanges) {
    const k = [...this.byThumbprint.values()].find((x) => x.id === id && !x.revoked)
    if (k) this.byThumbprint.set(k.thumbprint, { ...k, ...changes, roles: [...(changes.roles ?? k.roles)] })
    return TE.right(O.fromNullable(k && this.byThumbprint.get(k.thumbprint)))
  }
  markUsed() {
    return TE.right(undefined)
  }
}

export const mint = (k: TestKey, payload: Record<string, unknown>, options: Partial<SignOptions> = {}): string =>
  sign(payload, k.privateKeyPem, { algorithm: 'ES512', keyid: k.thumbprint, noTimestamp: true, ...options })

export const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url')

/** A token assembled by hand, for shapes no well-behaved library would produce. */
export const handmade = (header: unknown, payload: unknown, signature = 'A'.repeat(176)) => `${b64(header)}.${b64(payload)}.${signature}`

export const hs512WithKey = (header: Record<string, unknown>, payload: unknown, secret: string) => {
  const input = `${b64(header)}.${b64(payload)}`
  return `${input}.${createHmac('sha512', secret).update(input).digest('base64url')}`
}

export interface LogLine {
  readonly level: 'info' | 'warn' | 'error'
  readonly o: Record<string, unknown>
  readonly msg: string | undefined
}
export class CaptureLog implements HttpLog {
  readonly lines: LogLine[] = []
  info(o: object, msg?: string) {
    this.lines.push({ level: 'info', o: o as Record<string, unknown>, msg })
  }
  warn(o: object, msg?: string) {
    this.lines.push({ level: 'warn', o: o as Record<string, unknown>, msg })
  }
  error(o: object, msg?: string) {
    this.lines.push({ level: 'error', o: o as Record<string, unknown>, msg })
  }
}

/** A Koa app's handler as a Node request listener: Koa answers its own errors, so its promise never rejects. */
export const koaListener =
  (handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>): RequestListener =>
  (req, res) => {
    void handle(req, res)
  }

/** The object without the named keys (what a rest pattern that drops them gives). */
export const omit = <T extends object, K extends keyof T>(o: T, ...keys: K[]): Omit<T, K> =>
  Object.fromEntries(Object.entries(o).filter(([k]) => !(keys as PropertyKey[]).includes(k))) as Omit<T, K>

export const listen = async (app: { listen(port: number): Server }): Promise<{ url: string; close(): Promise<void> }> => {
  const server = app.listen(0)
  await new Promise<void>((resolve) =>
    server.once('listening', () => {
      resolve()
    }),
  )
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((e) => {
          if (e) reject(e)
          else resolve()
        })
      }),
  }
}

// --- Fakes shared by the suites that build the app by hand ---

/** Exact sliding log: enough of the port to see the middleware count and refuse. */
export class SlidingLogRateLimitStore implements RateLimitStore {
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

/** Admits everything: for suites where rate limits are not under test. */
export class AdmitAll implements RateLimitStore {
  admit(): TE.TaskEither<never, Admission> {
    return TE.right({ admitted: true, remaining: 100, resetMs: 0 })
  }
}

/** These unlocked merchant accounts, and no other. */
export const fakeMerchantAccounts = (...ids: string[]): MerchantAccountRepository => ({
  find: (id) => TE.right(ids.includes(id) ? O.some({ id, display_name: id === 'default' ? 'Default' : id, locked: false }) : O.none),
  upsert: () => TE.right(undefined),
  create: () => TE.right(undefined),
  list: () => TE.right([]),
})

type UseCases = HttpDeps['useCases']
/** Every use case, once: a use case added to the app fails to compile here until it is listed. */
const USE_CASES: Record<keyof UseCases, true> = {
  authorize: true,
  checkRateLimit: true,
  activateGiftCard: true,
  storeGiftCard: true,
  listGiftCards: true,
  getGiftCard: true,
  deleteGiftCard: true,
  checkBalances: true,
  listBuyerGiftCards: true,
  listRoles: true,
  listAuditLogs: true,
  createBuyer: true,
  listBuyers: true,
  getBuyer: true,
  updateBuyer: true,
  deleteBuyer: true,
  createMerchantAccount: true,
  createApiKeyPair: true,
  listApiKeyPairs: true,
  getApiKeyPair: true,
  updateApiKeyPair: true,
  deleteApiKeyPair: true,
  listMerchantAccounts: true,
  getMerchantAccount: true,
  updateMerchantAccount: true,
  createShippingDetails: true,
  listShippingDetails: true,
  getShippingDetails: true,
  updateShippingDetails: true,
  deleteShippingDetails: true,
  createWebhookSubscription: true,
  getWebhookSubscription: true,
  listWebhookSubscriptions: true,
  deleteWebhookSubscription: true,
  createPaymentService: true,
  listPaymentServices: true,
  getPaymentService: true,
  updatePaymentService: true,
  deletePaymentService: true,
  verifyPaymentServiceCredentials: true,
  paymentServiceSession: true,
  listPaymentServiceDefinitions: true,
  getPaymentServiceDefinition: true,
  paymentServiceDefinitionSession: true,
  listPaymentOptions: true,
  listCardSchemeDefinitions: true,
  updateWebhookSubscription: true,
  rotateWebhookSecret: true,
  listWebhookDeliveries: true,
  redeliverWebhookDelivery: true,
  createTransaction: true,
  listTransactions: true,
  getTransaction: true,
  updateTransaction: true,
  captureTransaction: true,
  voidTransaction: true,
  refundTransaction: true,
  refundAllTransaction: true,
  listRefunds: true,
  getRefund: true,
  listCaptures: true,
  getCapture: true,
  listTransactionEvents: true,
  unsupportedTransactionOperation: true,
  syncTransaction: true,
  receiveProviderWebhook: true,
  createCheckoutSession: true,
  getCheckoutSession: true,
  updateCheckoutSession: true,
  deleteCheckoutSession: true,
  putCheckoutSessionFields: true,
  storePaymentMethod: true,
  listPaymentMethods: true,
  getPaymentMethod: true,
  updatePaymentMethod: true,
  deletePaymentMethod: true,
  listBuyerPaymentMethods: true,
}

/** The transaction use cases, each throwing when called: for suites that do not exercise them. */
export const TRANSACTION_USE_CASES_UNUSED = Object.fromEntries(
  [
    'createTransaction',
    'listTransactions',
    'getTransaction',
    'updateTransaction',
    'captureTransaction',
    'voidTransaction',
    'refundTransaction',
    'refundAllTransaction',
    'listRefunds',
    'getRefund',
    'listCaptures',
    'getCapture',
    'listTransactionEvents',
    'unsupportedTransactionOperation',
    'syncTransaction',
    'receiveProviderWebhook',
  ].map((n) => [
    n,
    () => {
      throw new Error(`${n} is not used by this suite`)
    },
  ]),
) as unknown as Pick<
  UseCases,
  | 'createTransaction'
  | 'listTransactions'
  | 'getTransaction'
  | 'updateTransaction'
  | 'captureTransaction'
  | 'voidTransaction'
  | 'refundTransaction'
  | 'refundAllTransaction'
  | 'listRefunds'
  | 'getRefund'
  | 'listCaptures'
  | 'getCapture'
  | 'listTransactionEvents'
  | 'unsupportedTransactionOperation'
  | 'syncTransaction'
  | 'receiveProviderWebhook'
>

/** The payment method use cases (and the audit log's), each throwing when called: for suites that do not exercise them. */
export const PAYMENT_METHOD_USE_CASES_UNUSED = Object.fromEntries(
  [
    'storePaymentMethod',
    'listPaymentMethods',
    'getPaymentMethod',
    'updatePaymentMethod',
    'deletePaymentMethod',
    'listBuyerPaymentMethods',
    'listAuditLogs',
    'createMerchantAccount',
    'listMerchantAccounts',
    'getMerchantAccount',
    'updateMerchantAccount',
    'createShippingDetails',
    'listShippingDetails',
    'getShippingDetails',
    'updateShippingDetails',
    'deleteShippingDetails',
    'createApiKeyPair',
    'listApiKeyPairs',
    'getApiKeyPair',
    'updateApiKeyPair',
    'deleteApiKeyPair',
  ].map((n) => [
    n,
    () => {
      throw new Error(`${n} is not used by this suite`)
    },
  ]),
) as unknown as Pick<
  UseCases,
  | 'listAuditLogs'
  | 'createMerchantAccount'
  | 'listMerchantAccounts'
  | 'getMerchantAccount'
  | 'updateMerchantAccount'
  | 'createShippingDetails'
  | 'listShippingDetails'
  | 'getShippingDetails'
  | 'updateShippingDetails'
  | 'deleteShippingDetails'
  | 'createApiKeyPair'
  | 'listApiKeyPairs'
  | 'getApiKeyPair'
  | 'updateApiKeyPair'
  | 'deleteApiKeyPair'
  | 'storePaymentMethod'
  | 'listPaymentMethods'
  | 'getPaymentMethod'
  | 'updatePaymentMethod'
  | 'deletePaymentMethod'
  | 'listBuyerPaymentMethods'
>

/** The payment service use cases, for suites that do not call them. */
export const PAYMENT_SERVICE_USE_CASES_UNUSED = Object.fromEntries(
  [
    'createPaymentService',
    'listPaymentServices',
    'getPaymentService',
    'updatePaymentService',
    'deletePaymentService',
    'verifyPaymentServiceCredentials',
    'paymentServiceSession',
    'listPaymentServiceDefinitions',
    'getPaymentServiceDefinition',
    'paymentServiceDefinitionSession',
    'listPaymentOptions',
    'listCardSchemeDefinitions',
  ].map((n) => [
    n,
    () => {
      throw new Error(`${n} is not used by this suite`)
    },
  ]),
) as unknown as Pick<
  UseCases,
  | 'createPaymentService'
  | 'listPaymentServices'
  | 'getPaymentService'
  | 'updatePaymentService'
  | 'deletePaymentService'
  | 'verifyPaymentServiceCredentials'
  | 'paymentServiceSession'
  | 'listPaymentServiceDefinitions'
  | 'getPaymentServiceDefinition'
  | 'paymentServiceDefinitionSession'
  | 'listPaymentOptions'
  | 'listCardSchemeDefinitions'
>

/** Every use case as `fill(name)` makes it (say, one that throws), except those `given`. */
export const useCasesWith = (fill: (name: keyof UseCases) => unknown, given: Partial<UseCases> = {}): UseCases =>
  ({ ...Object.fromEntries(Object.keys(USE_CASES).map((n) => [n, fill(n as keyof UseCases)])), ...given }) as UseCases

export const aBuyer: Buyer = {
  type: 'buyer',
  id: '0d4bd3b8-1b73-4f1c-8f35-6d3c1f8b9a10',
  reconciliation_id: 'abc',
  merchant_account_id: 'default',
  display_name: 'Jo',
  external_identifier: null,
  billing_details: null,
  account_number: null,
  created_at: '2027-01-15T08:00:00.000Z',
  updated_at: '2027-01-15T08:00:00.000Z',
}

export const aCard: GiftCard = {
  type: 'gift-card',
  id: '9a0e4a0b-5b1f-4a7c-8f6e-1d2c3b4a5f60',
  merchant_account_id: 'default',
  gift_card_service: {
    type: 'gift-card-service',
    id: '1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d',
    gift_card_service_definition_id: 'mock-gift-card',
    display_name: 'Mock',
  },
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

export const pageOf = <A>(items: A[]): Page<A> => ({ items, limit: 20, next_cursor: null, previous_cursor: null })
