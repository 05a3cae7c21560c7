import type * as domain from '@orka/domain'
import type { Tracer } from '@opentelemetry/api'
import type { IdempotencyConflict } from './context'
import type { HttpLog } from './http-log'
import type { DemoCheckoutStart } from './routes/demo-checkout'

// The log is part of what the app hands in (`HttpDeps.log`); code that needs only the log imports ./http-log.
export type { HttpLog }

/**
 * What one finished request was, for metrics: every value from a bounded set (no ids, no raw
 * paths, nothing a client chose).
 */
export interface RequestDone {
  /** The HTTP method, or `_OTHER` for one outside the standard set. */
  readonly method: string
  /** The route template (`/transactions/{transaction_id}`), or `unmatched`. */
  readonly route: string
  /** The status sent; 0 when the connection closed before any. */
  readonly status: number
  readonly seconds: number
  /** Answered from an idempotency key's record (`Idempotent-Replayed: true`). */
  readonly replayed: boolean
  readonly idempotencyConflict: IdempotencyConflict | undefined
  /** The rate limit that refused it. */
  readonly rateLimited: domain.RateLimitPolicy | undefined
}

/** Told of every request once it is answered (or its connection closed); must not throw. */
export type RequestObserver = (r: RequestDone) => void

export interface PublicBaseUrls {
  /** Base URL of the sandbox environment; `{id}` stands for the instance subdomain. */
  readonly sandbox: string
  readonly production: string
}

export interface HttpDeps {
  /** To look up a token's `kid`. */
  keys: domain.ApiKeyPairRepository
  /** Told of each request a key authenticated (`last_used_at`); unset: uses are not recorded. */
  onKeyUsed?: (keyId: string) => void
  /** Every time check (exp, nbf) reads this clock, so tests can move time. */
  clock: domain.Clock
  /** Hashes tokens without a `jti` into a rate-limit identity (purpose `token-hash`). */
  mac: domain.Mac
  log: HttpLog
  /** Told of every finished request (metrics); unset: nothing is measured. */
  onRequestDone?: RequestObserver
  /** Set when tracing is on: a server span per request, a span per operation's handler. Unset: no tracing work at all. */
  tracer?: Tracer
  /** Readiness of storage: resolves to what is ready (e.g. the database name), throws when it cannot serve. */
  ready?: () => Promise<string>
  config: {
    /** Lower-case header naming the merchant account, e.g. `x-orka-merchant-account-id`. */
    merchantAccountHeader: string
    defaultMerchantAccountId: string
    maxBodyBytes: number
    tokenCacheSize: number
    /** Longest lifetime a token may claim (`exp` − `iat`, or `exp` − now). Default: 86400. */
    maxTokenLifetimeS?: number
    /** The OpenAPI document's `servers`; `{id}` is the instance subdomain. Default: `*.orka.example`. */
    publicBaseUrls?: PublicBaseUrls
    /** Default of the servers' `{id}` variable. Default: `example`. */
    instanceId?: string
    /** Prefix of the webhook signature headers, for the document's `webhooks`. Default: `X-Orka`. */
    webhookHeaderPrefix?: string
    /** How long a rate limit's 429 is held before it is sent (at most its `Retry-After`). Default: 0. */
    rateLimitHoldMs?: number
    /** Origins (as browsers send them) whose pages may call the browser routes. Default: none, no CORS at all. */
    corsAllowedOrigins?: readonly string[]
  }
  useCases: UseCases
  /** The sandbox's demo checkout (`GET /demo/checkout`): how it starts a checkout as a merchant's server would. Unset: 404. */
  demoCheckout?: DemoCheckoutStart
}

/** The use cases the routes call, built by the app. */
export interface UseCases {
  authorize: ReturnType<typeof domain.makeAuthorize>
  checkRateLimit: ReturnType<typeof domain.makeCheckRateLimit>
  activateGiftCard: ReturnType<typeof domain.makeActivateGiftCard>
  storeGiftCard: ReturnType<typeof domain.makeStoreGiftCard>
  listGiftCards: ReturnType<typeof domain.makeListGiftCards>
  getGiftCard: ReturnType<typeof domain.makeGetGiftCard>
  deleteGiftCard: ReturnType<typeof domain.makeDeleteGiftCard>
  listAuditLogs: ReturnType<typeof domain.makeListAuditLogs>
  checkBalances: ReturnType<typeof domain.makeCheckBalances>
  listBuyerGiftCards: ReturnType<typeof domain.makeListBuyerGiftCards>
  storePaymentMethod: ReturnType<typeof domain.makeStorePaymentMethod>
  listPaymentMethods: ReturnType<typeof domain.makeListPaymentMethods>
  getPaymentMethod: ReturnType<typeof domain.makeGetPaymentMethod>
  updatePaymentMethod: ReturnType<typeof domain.makeUpdatePaymentMethod>
  deletePaymentMethod: ReturnType<typeof domain.makeDeletePaymentMethod>
  listBuyerPaymentMethods: ReturnType<typeof domain.makeListBuyerPaymentMethods>
  listRoles: ReturnType<typeof domain.makeListRoles>
  createBuyer: ReturnType<typeof domain.makeCreateBuyer>
  listBuyers: ReturnType<typeof domain.makeListBuyers>
  getBuyer: ReturnType<typeof domain.makeGetBuyer>
  updateBuyer: ReturnType<typeof domain.makeUpdateBuyer>
  deleteBuyer: ReturnType<typeof domain.makeDeleteBuyer>
  createMerchantAccount: ReturnType<typeof domain.makeCreateMerchantAccount>
  listMerchantAccounts: ReturnType<typeof domain.makeListMerchantAccounts>
  getMerchantAccount: ReturnType<typeof domain.makeGetMerchantAccount>
  updateMerchantAccount: ReturnType<typeof domain.makeUpdateMerchantAccount>
  createApiKeyPair: ReturnType<typeof domain.makeCreateApiKeyPair>
  listApiKeyPairs: ReturnType<typeof domain.makeListApiKeyPairs>
  getApiKeyPair: ReturnType<typeof domain.makeGetApiKeyPair>
  updateApiKeyPair: ReturnType<typeof domain.makeUpdateApiKeyPair>
  deleteApiKeyPair: ReturnType<typeof domain.makeDeleteApiKeyPair>
  createShippingDetails: ReturnType<typeof domain.makeCreateShippingDetails>
  listShippingDetails: ReturnType<typeof domain.makeListShippingDetails>
  getShippingDetails: ReturnType<typeof domain.makeGetShippingDetails>
  updateShippingDetails: ReturnType<typeof domain.makeUpdateShippingDetails>
  deleteShippingDetails: ReturnType<typeof domain.makeDeleteShippingDetails>
  createWebhookSubscription: ReturnType<typeof domain.makeCreateWebhookSubscription>
  getWebhookSubscription: ReturnType<typeof domain.makeGetWebhookSubscription>
  listWebhookSubscriptions: ReturnType<typeof domain.makeListWebhookSubscriptions>
  deleteWebhookSubscription: ReturnType<typeof domain.makeDeleteWebhookSubscription>
  updateWebhookSubscription: ReturnType<typeof domain.makeUpdateWebhookSubscription>
  rotateWebhookSecret: ReturnType<typeof domain.makeRotateWebhookSecret>
  listWebhookDeliveries: ReturnType<typeof domain.makeListWebhookDeliveries>
  redeliverWebhookDelivery: ReturnType<typeof domain.makeRedeliverWebhookDelivery>
  createTransaction: ReturnType<typeof domain.makeCreateTransaction>
  listTransactions: ReturnType<typeof domain.makeListTransactions>
  getTransaction: ReturnType<typeof domain.makeGetTransaction>
  updateTransaction: ReturnType<typeof domain.makeUpdateTransaction>
  captureTransaction: ReturnType<typeof domain.makeCaptureTransaction>
  voidTransaction: ReturnType<typeof domain.makeVoidTransaction>
  refundTransaction: ReturnType<typeof domain.makeRefundTransaction>
  refundAllTransaction: ReturnType<typeof domain.makeRefundAllTransaction>
  syncTransaction: ReturnType<typeof domain.makeSyncTransaction>
  receiveProviderWebhook: ReturnType<typeof domain.makeReceiveProviderWebhook>
  listRefunds: ReturnType<typeof domain.makeListRefunds>
  getRefund: ReturnType<typeof domain.makeGetRefund>
  listCaptures: ReturnType<typeof domain.makeListCaptures>
  getCapture: ReturnType<typeof domain.makeGetCapture>
  listTransactionEvents: ReturnType<typeof domain.makeListTransactionEvents>
  unsupportedTransactionOperation: ReturnType<typeof domain.makeUnsupportedOperation>
  createCheckoutSession: ReturnType<typeof domain.makeCreateCheckoutSession>
  getCheckoutSession: ReturnType<typeof domain.makeGetCheckoutSession>
  updateCheckoutSession: ReturnType<typeof domain.makeUpdateCheckoutSession>
  deleteCheckoutSession: ReturnType<typeof domain.makeDeleteCheckoutSession>
  putCheckoutSessionFields: ReturnType<typeof domain.makePutCheckoutSessionFields>
  createPaymentService: ReturnType<typeof domain.makeCreatePaymentService>
  listPaymentServices: ReturnType<typeof domain.makeListPaymentServices>
  getPaymentService: ReturnType<typeof domain.makeGetPaymentService>
  updatePaymentService: ReturnType<typeof domain.makeUpdatePaymentService>
  deletePaymentService: ReturnType<typeof domain.makeDeletePaymentService>
  verifyPaymentServiceCredentials: ReturnType<typeof domain.makeVerifyCredentials>
  paymentServiceSession: ReturnType<typeof domain.makePaymentServiceSession>
  listPaymentServiceDefinitions: ReturnType<typeof domain.makeListPaymentServiceDefinitions>
  getPaymentServiceDefinition: ReturnType<typeof domain.makeGetPaymentServiceDefinition>
  paymentServiceDefinitionSession: ReturnType<typeof domain.makeDefinitionSession>
  listPaymentOptions: ReturnType<typeof domain.makeListPaymentOptions>
  listCardSchemeDefinitions: ReturnType<typeof domain.makeListCardSchemeDefinitions>
}
