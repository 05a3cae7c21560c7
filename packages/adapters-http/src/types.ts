import type {
  ApiKeyPairRepository,
  Clock,
  Mac,
  makeActivateGiftCard,
  makeAuthorize,
  makeCheckRateLimit,
  makeCreateBuyer,
  makeCreateWebhookSubscription,
  makeDeleteWebhookSubscription,
  makeGetWebhookSubscription,
  makeListBuyers,
  makeListRoles,
  makeListWebhookDeliveries,
  makeListWebhookSubscriptions,
  makeRedeliverWebhookDelivery,
  makeRotateWebhookSecret,
  makeUpdateWebhookSubscription,
} from '@orka/domain'

export interface PublicBaseUrls {
  /** Base URL of the sandbox environment; `{id}` stands for the instance subdomain. */
  readonly sandbox: string
  readonly production: string
}

export interface HttpLog {
  debug?(o: object, msg?: string): void
  info(o: object, msg?: string): void
  warn(o: object, msg?: string): void
  error(o: object, msg?: string): void
}

export interface HttpDeps {
  /** To look up a token's `kid`. */
  keys: ApiKeyPairRepository
  /** Every time check (exp, nbf) reads this clock, so tests can move time. */
  clock: Clock
  /** Hashes tokens without a `jti` into a rate-limit identity (purpose `token-hash`). */
  mac: Mac
  log: HttpLog
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
  }
  useCases: UseCases
}

/** The use cases the routes call, built by the app. */
export interface UseCases {
  authorize: ReturnType<typeof makeAuthorize>
  checkRateLimit: ReturnType<typeof makeCheckRateLimit>
  activateGiftCard: ReturnType<typeof makeActivateGiftCard>
  listRoles: ReturnType<typeof makeListRoles>
  createBuyer: ReturnType<typeof makeCreateBuyer>
  listBuyers: ReturnType<typeof makeListBuyers>
  createWebhookSubscription: ReturnType<typeof makeCreateWebhookSubscription>
  getWebhookSubscription: ReturnType<typeof makeGetWebhookSubscription>
  listWebhookSubscriptions: ReturnType<typeof makeListWebhookSubscriptions>
  deleteWebhookSubscription: ReturnType<typeof makeDeleteWebhookSubscription>
  updateWebhookSubscription: ReturnType<typeof makeUpdateWebhookSubscription>
  rotateWebhookSecret: ReturnType<typeof makeRotateWebhookSecret>
  listWebhookDeliveries: ReturnType<typeof makeListWebhookDeliveries>
  redeliverWebhookDelivery: ReturnType<typeof makeRedeliverWebhookDelivery>
}
