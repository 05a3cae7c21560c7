/**
 * Every collection and index the adapters use, in one place: `ensureIndexes` creates exactly
 * these, one `createIndexes` call per index (FerretDB 1.24 can misbehave when given several).
 */
export const COLLECTIONS = {
  merchantAccounts: 'merchant_accounts',
  apiKeyPairs: 'api_key_pairs',
  roles: 'roles',
  buyers: 'buyers',
  /** One document per (merchant account, external_identifier): the buyer that holds it. */
  buyerExternalIdentifiers: 'buyer_external_identifiers',
  /** Buyers' shipping details, `_id` the record id. */
  shippingDetails: 'shipping_details',
  webhookSubscriptions: 'webhook_subscriptions',
  deletedWebhookSubscriptions: 'deleted_webhook_subscriptions',
  giftCardServices: 'gift_card_services',
  /** Card services (the original API's payment services), `_id` the service id. */
  paymentServices: 'payment_services',
  vaultedGiftCards: 'vaulted_gift_cards',
  /** Stored cards (payment methods), `_id` the method id. */
  vaultedPaymentMethods: 'vaulted_payment_methods',
  idempotencyRecords: 'idempotency_records',
  /** One document per admitted request (sliding log). */
  rateLimitAdmissions: 'rate_limit_admissions',
  /** Events stored before the write that raises them, until handed over to delivery; `_id` is the event id. */
  webhookOutbox: 'webhook_outbox',
  webhookDeliveries: 'webhook_deliveries',
  /** One document per (delivery, attempt number): who runs that attempt, until when. */
  webhookDeliveryClaims: 'webhook_delivery_claims',
  /** One document per version of a transaction (`_id`: transaction id and version). */
  transactionVersions: 'transaction_versions',
  checkoutSessions: 'checkout_sessions',
  /** One document per card taken from a session (session id, card nonce): who took it. */
  checkoutSessionUses: 'checkout_session_uses',
  /** One document per movement of a gift card's balance at the sandbox provider (`_id`: card and number). */
  giftCardLedger: 'gift_card_ledger',
  /** Audit records, `_id` the record id: pending until their change is stored, then committed. */
  auditLog: 'audit_log',
} as const

/**
 * Expired idempotency records and rate-limit admissions are removed this long after they
 * expire, never sooner: a sweep races only with requests that took longer than this (see
 * the two stores). Also the TTL index's `expireAfterSeconds` where the server has TTL indexes.
 */
export const EXPIRY_GRACE_MS = 60_000

export interface IndexSpec {
  readonly collection: string
  readonly name: string
  readonly key: Readonly<Record<string, 1 | -1>>
  readonly unique?: boolean
  /**
   * A TTL index where the server accepts one. FerretDB 1.24 rejects TTL indexes (code 238):
   * there the same key becomes a plain index named `fallbackName`, which the periodic sweeps use.
   */
  readonly ttl?: { readonly expireAfterSeconds: number; readonly fallbackName: string }
}

const C = COLLECTIONS
const expiry = (collection: string): IndexSpec => ({
  collection,
  name: 'expiresAt_ttl',
  key: { expiresAt: 1 },
  ttl: { expireAfterSeconds: EXPIRY_GRACE_MS / 1000, fallbackName: 'expiresAt_1' },
})

export const INDEXES: readonly IndexSpec[] = [
  // Keyset reads of every account, newest first (`listed_at`: created_at, else the epoch).
  { collection: C.merchantAccounts, name: 'listed', key: { listed_at: -1, _id: -1 } },
  { collection: C.apiKeyPairs, name: 'thumbprint_unique', key: { thumbprint: 1 }, unique: true },
  // Keyset reads of the keys not revoked, newest first: every key's, and one account's.
  { collection: C.apiKeyPairs, name: 'revoked_created', key: { revoked: 1, created_at: -1, _id: -1 } },
  { collection: C.apiKeyPairs, name: 'merchant_revoked_created', key: { merchant_account_id: 1, revoked: 1, created_at: -1, _id: -1 } },
  { collection: C.roles, name: 'slug_unique', key: { slug: 1 }, unique: true },
  // Keyset reads in (slug, id) order.
  { collection: C.roles, name: 'slug_1__id_1', key: { slug: 1, _id: 1 } },
  // Keyset reads of one account's buyers, newest first, with and without the external_identifier filter.
  { collection: C.buyers, name: 'merchant_created', key: { merchant_account_id: 1, created_at: -1, _id: -1 } },
  {
    collection: C.buyers,
    name: 'merchant_external_created',
    key: { merchant_account_id: 1, external_identifier: 1, created_at: -1, _id: -1 },
  },
  // One buyer's shipping details, newest first (`listOfBuyer`); also serves `deleteOfBuyer`.
  { collection: C.shippingDetails, name: 'merchant_buyer_created', key: { merchant_account_id: 1, buyer_id: 1, created_at: -1, _id: -1 } },
  // Also serves `recipients` (merchant_account_id $in [account, null]): an account has few subscriptions.
  { collection: C.webhookSubscriptions, name: 'merchant_created', key: { merchant_account_id: 1, created_at: -1, _id: -1 } },
  {
    collection: C.giftCardServices,
    name: 'merchant_primary_promoted',
    key: { merchant_account_id: 1, primary: 1, promoted_seq: -1, _id: -1 },
  },
  // An account's card services in routing order (position, oldest first, id); also every account's, for the CLI.
  {
    collection: C.paymentServices,
    name: 'merchant_position_created',
    key: { merchant_account_id: 1, position: 1, created_at: 1, _id: 1 },
  },
  // The vault's dedup: one card per (account, fingerprint), enforced by the server.
  { collection: C.vaultedGiftCards, name: 'merchant_fingerprint_unique', key: { merchant_account_id: 1, fingerprint: 1 }, unique: true },
  // Keyset reads of one account's cards, newest first, with and without the buyer filter (which also serves `deleteByBuyer`).
  { collection: C.vaultedGiftCards, name: 'merchant_created', key: { merchant_account_id: 1, 'card.created_at': -1, _id: -1 } },
  {
    collection: C.vaultedGiftCards,
    name: 'merchant_buyer_created',
    key: { merchant_account_id: 1, 'card.buyer.id': 1, 'card.created_at': -1, _id: -1 },
  },
  // One method per (account, buyer or none, card), enforced by the server; also serves `findByFingerprint`.
  {
    collection: C.vaultedPaymentMethods,
    name: 'merchant_owner_fingerprint_unique',
    key: { merchant_account_id: 1, owner: 1, fingerprint: 1 },
    unique: true,
  },
  // Keyset reads of one account's methods, newest first; with the buyer filter (and `forBuyer`, `deleteByBuyer`) the second.
  { collection: C.vaultedPaymentMethods, name: 'merchant_created', key: { merchant_account_id: 1, 'method.created_at': -1, _id: -1 } },
  {
    collection: C.vaultedPaymentMethods,
    name: 'merchant_owner_created',
    key: { merchant_account_id: 1, owner: 1, 'method.created_at': -1, _id: -1 },
  },
  expiry(C.idempotencyRecords),
  { collection: C.rateLimitAdmissions, name: 'key_1_n_-1', key: { key: 1, n: -1 } },
  expiry(C.rateLimitAdmissions),
  // The relay's scan of entries older than an instant, oldest first.
  { collection: C.webhookOutbox, name: 'created_at_1__id_1', key: { created_at: 1, _id: 1 } },
  // The dispatcher's poll: pending deliveries due by now, soonest first.
  { collection: C.webhookDeliveries, name: 'status_next_attempt', key: { status: 1, next_attempt_at: 1, _id: 1 } },
  // Keyset reads of one subscription's deliveries, newest first, with and without the status filter.
  { collection: C.webhookDeliveries, name: 'subscription_created', key: { subscription_id: 1, created_at: -1, _id: -1 } },
  { collection: C.webhookDeliveries, name: 'subscription_status_created', key: { subscription_id: 1, status: 1, created_at: -1, _id: -1 } },
  // The sweep of finished deliveries last updated before an instant.
  { collection: C.webhookDeliveries, name: 'status_updated', key: { status: 1, updated_at: 1 } },
  // A transaction's versions, newest first (find, history).
  { collection: C.transactionVersions, name: 'transaction_version', key: { transaction_id: 1, version: -1 } },
  // Keyset reads of one account's transactions, newest first, newest versions only.
  {
    collection: C.transactionVersions,
    name: 'merchant_current_created',
    key: { merchant_account_id: 1, superseded: 1, created_at: -1, transaction_id: -1 },
  },
  { collection: C.transactionVersions, name: 'merchant_refund', key: { merchant_account_id: 1, refund_ids: 1 } },
  // Recovery's scan: pending newest versions written before an instant, oldest first.
  { collection: C.transactionVersions, name: 'current_pending_updated', key: { superseded: 1, pending: 1, updated_at_ms: 1 } },
  // The relay's scan of versions whose audit entries and events are not folded yet (the flag is unset once they are), oldest first.
  { collection: C.transactionVersions, name: 'unfolded_updated', key: { unfolded: 1, updated_at_ms: 1, _id: 1 } },
  // Sessions are read by `_id`; expiry is filtered on every read, so the TTL index (or the sweep) only reclaims space.
  expiry(C.checkoutSessions),
  expiry(C.checkoutSessionUses),
  // A card's latest entry; and a reference applied once per card.
  { collection: C.giftCardLedger, name: 'card_seq', key: { card: 1, seq: -1 } },
  { collection: C.giftCardLedger, name: 'card_reference_unique', key: { card: 1, reference: 1 }, unique: true },
  // Keyset reads of one account's committed records, newest first; the filters scan within them.
  { collection: C.auditLog, name: 'merchant_committed_timestamp', key: { merchant_account_id: 1, committed: 1, timestamp: -1, _id: -1 } },
  // The relay's scan of records left pending before an instant, oldest first.
  { collection: C.auditLog, name: 'committed_timestamp', key: { committed: 1, timestamp: 1, _id: 1 } },
  // The retention sweep, pending and committed alike.
  { collection: C.auditLog, name: 'timestamp_1', key: { timestamp: 1 } },
]
