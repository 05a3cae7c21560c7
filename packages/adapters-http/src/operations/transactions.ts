import * as t from 'io-ts'
import * as TE from 'fp-ts/TaskEither'
import {
  canonicalUuid,
  embedClaimOf,
  intRange,
  MAX_AMOUNT,
  OperationDone,
  pageOf,
  Refund,
  Refunds,
  Transaction,
  TransactionCapture,
  TransactionCaptureCreate,
  TransactionCreate,
  TransactionRefundAllCreate,
  TransactionRefundCreate,
  TransactionStatus,
  TransactionSummary,
  TransactionUpdate,
  TransactionVoid,
  Currency,
  boundedString,
  DomainError,
  rfc3339DateTime,
  unavailable,
  keyActor,
} from '@orka/domain'
import { defineOperation, OperationRequest, ParameterDocs, Tag } from './operation'
import { PAGE_QUERY } from './page'
import { booleanParam, integerParam, listParam } from '../decode/decode'

export const TRANSACTIONS: Tag = {
  name: 'Transactions',
  description:
    "Card payments: authorized through the merchant account's card services in priority order, then captured, voided or refunded.",
}

export const TRANSACTION_ID = { transaction_id: { codec: canonicalUuid, description: 'The ID of the transaction.' } }
export const one = (req: OperationRequest<typeof TRANSACTION_ID, ParameterDocs, unknown>) => ({
  merchantAccountId: req.access.merchantAccount.id,
  transactionId: req.params.transaction_id,
})

const IDEMPOTENCY =
  'With an `idempotency-key`, the same key and body replay the first answer byte for byte (`Idempotent-Replayed: true`) and call ' +
  'no card service again; another body with the key is a `400`, a request while the first still runs a `425`.'

export const createTransaction = defineOperation({
  method: 'POST',
  path: '/transactions',
  scope: 'transactions.write',
  operationId: 'create_transaction',
  rateLimit: 'embed',
  doc: {
    tag: TRANSACTIONS,
    summary: 'Create transaction',
    description:
      'Takes a payment, with a card, a stored payment method or a checkout session whose card Secure Fields stored, and gift cards. ' +
      "The transaction is recorded before any card service is asked, then routed: the account's active card services are tried in " +
      'priority order (or only the one `payment_service_id` names); a technical failure moves to the next, a decline stops. A ' +
      'declined or failed payment is still a `201` Transaction (its `status` says so). Properties Orka does not offer (3-D Secure ' +
      'data, `merchant_initiated`, ...) are a `400` naming them; so are an unknown, used or expired checkout session, an expired ' +
      'card and an unknown buyer.\n\n' +
      '`payment_method: {method: "id", id, security_code?}` pays with a stored card (`POST /payment-methods`, or `store: true`); ' +
      'the security code, typed by the buyer for this payment, is sent to the card service and never kept. A method that is ' +
      "unknown, deleted, of another merchant account, out of the caller's reach (an `embed` token reaches only its claim's buyer's), " +
      'not `succeeded` or past its expiry month is a `400` on `payment_method.id` (type `unknown_payment_method`, or ' +
      "`expired_card`). A request naming no buyer is made for the method's buyer; one naming another buyer (or describing a " +
      "guest) is a `400` (type `payment_method_buyer_mismatch`). The transaction's `payment_method.id` names the method, whose " +
      '`usage_count` and `last_used_at` (and their `cit_` pair) count each authorized payment it makes.\n\n' +
      '`store: true` keeps the card that pays (sent in the request, or the one of the checkout session) as a payment method of the ' +
      "transaction's buyer, which must be named by `buyer_id` or `buyer_external_identifier` (else a `400` on `store`, as is " +
      '`store: true` with gift cards only). The method is `processing` until the payment ends: then `succeeded` when it was ' +
      'authorized, `failed` when declined or failed (a card the buyer had stored and paid with before stays `succeeded`). The same ' +
      'card for the same buyer is one method. The number is sealed, the security code never kept; neither is in any answer, event or ' +
      'webhook.\n\n' +
      '`gift_cards` (or the gift cards a checkout session holds) pay part or all of it: at most 10, each for more than 0, none twice, ' +
      'together no more than `amount`, all of it without a `payment_method` and not all of it with one (else a `400` naming the item); ' +
      'a stored card the caller cannot reach is a `404`. The card part is authorized first, then each gift card redeemed; if one ' +
      'fails, the others are given back and the card part voided (`authorization_voided`, `intent_outcome: failed`, the gift ' +
      "card's `error_code`). `gift_card_redemptions` shows each.\n\n" +
      'An `embed` token may only create a transaction that matches what its `embed` claim pins (`amount`, `currency`, ' +
      '`buyer_id`/`buyer_external_identifier`, `checkout_session_id`): `403` otherwise. ' +
      IDEMPOTENCY,
  },
  idempotent: true,
  body: TransactionCreate,
  success: { status: 201, codec: Transaction, description: 'The transaction, whatever its outcome.' },
  handle: (u) => (req) =>
    u.createTransaction({
      merchantAccountId: req.access.merchantAccount.id,
      actor: keyActor(req.access.principal.key),
      input: req.body,
      idempotencyKey: req.idempotencyKey,
      embed: embedClaimOf(req.access.principal, 'transactions.write'),
    }),
})

export const listTransactions = defineOperation({
  method: 'GET',
  path: '/transactions',
  scope: 'transactions.read',
  operationId: 'list_transactions',
  doc: {
    tag: TRANSACTIONS,
    summary: 'List transactions',
    description: "The merchant account's transactions, newest first; every filter given must hold.",
  },
  query: {
    ...PAGE_QUERY,
    status: {
      codec: t.array(TransactionStatus),
      description: 'Only transactions in one of these statuses (repeat the parameter, or separate with commas).',
      parse: listParam,
    },
    buyer_id: { codec: canonicalUuid, description: 'Only transactions of the buyer with this ID.' },
    buyer_external_identifier: {
      codec: boundedString('buyer_external_identifier', { min: 1, max: 200 }),
      description: 'Only transactions of the buyer with this external identifier.',
    },
    external_identifier: {
      codec: boundedString('external_identifier', { min: 1, max: 200 }),
      description: 'Only transactions with this external identifier.',
    },
    checkout_session_id: { codec: canonicalUuid, description: 'Only the transaction made from this checkout session.' },
    created_at_gte: {
      codec: rfc3339DateTime('created_at_gte'),
      description: 'Created at or after this instant: an RFC 3339 date-time with its time zone (`Z` or an offset).',
    },
    created_at_lte: {
      codec: rfc3339DateTime('created_at_lte'),
      description: 'Created at or before this instant: an RFC 3339 date-time with its time zone (`Z` or an offset).',
    },
    amount_gte: { codec: intRange('amount_gte', 0, MAX_AMOUNT), description: 'Amount at least this.', parse: integerParam },
    amount_lte: { codec: intRange('amount_lte', 0, MAX_AMOUNT), description: 'Amount at most this.', parse: integerParam },
    currency: {
      codec: t.array(Currency),
      description: 'Only transactions in one of these currencies (repeat the parameter, or separate with commas).',
      parse: listParam,
    },
    gift_card_id: { codec: canonicalUuid, description: 'Only transactions that redeemed (or tried to) the stored gift card with this ID.' },
    has_gift_card_redemptions: {
      codec: t.boolean,
      description: 'Only transactions with (`true`) or without (`false`) gift card redemptions.',
      parse: booleanParam,
    },
  },
  refusedQuery: [
    ...['search', 'id', 'metadata', 'country', 'method', 'disputed', 'buyer_search', 'buyer_email_address', 'ip_address'],
    ...['updated_at_gte', 'updated_at_lte', 'amount_eq', 'error_code', 'has_refunds', 'has_settlements', 'pending_review'],
    ...['payment_service_id', 'payment_service_transaction_id', 'reconciliation_id', 'payment_source', 'used_3ds'],
    ...['payment_method_id', 'payment_method_label', 'payment_method_scheme', 'payment_method_country'],
    ...['payment_method_fingerprint', 'payment_method_bin', 'is_subsequent_payment', 'merchant_initiated'],
    ...['gift_card_last4'],
  ],
  success: { status: 200, codec: pageOf('TransactionSummaries', TransactionSummary), description: 'A page of transactions.' },
  handle: (u) => (req) => {
    const { limit, cursor, ...filter } = req.query
    return u.listTransactions({
      merchantAccountId: req.access.merchantAccount.id,
      filter,
      ...(limit === undefined ? {} : { limit }),
      ...(cursor === undefined ? {} : { cursor }),
    })
  },
})

export const getTransaction = defineOperation({
  method: 'GET',
  path: '/transactions/{transaction_id}',
  scope: 'transactions.read',
  operationId: 'get_transaction',
  doc: {
    tag: TRANSACTIONS,
    summary: 'Get transaction',
    description: "A transaction of the merchant account; another account's is a `404`.",
  },
  params: TRANSACTION_ID,
  success: { status: 200, codec: Transaction, description: 'The transaction.' },
  handle: (u) => (req) => u.getTransaction(one(req)),
})

export const updateTransaction = defineOperation({
  method: 'PUT',
  path: '/transactions/{transaction_id}',
  scope: 'transactions.write',
  serverOnly: true,
  operationId: 'update_transaction',
  doc: {
    tag: TRANSACTIONS,
    summary: 'Manually update a transaction',
    description:
      'Changes `external_identifier` and `metadata` (the whole map is replaced); what is not given stays as it is. While a call to ' +
      'a card service has no outcome (the authorization, or a capture, void or refund waiting for its service) it is a `409` naming ' +
      'the status, and nothing changes.',
  },
  params: TRANSACTION_ID,
  body: TransactionUpdate,
  success: { status: 200, codec: Transaction, description: 'The transaction as updated.' },
  handle: (u) => (req) => u.updateTransaction({ ...one(req), actor: keyActor(req.access.principal.key), input: req.body }),
})

const PREFER =
  'The answer is the transaction; with the header `Prefer: resource=transaction-capture` (`resource=transaction-void` for a void) ' +
  "it is the original API's wrapper, which also says the operation's own status and codes."

/** The representation a `Prefer` header asks for. */
const wants = (prefer: string | null, resource: string): boolean =>
  prefer?.split(',').some((p) => p.trim().replace(/\s+/g, '') === `resource=${resource}`) === true

const captureView = (done: OperationDone, prefer: string | null): Transaction | TransactionCapture =>
  wants(prefer, 'transaction-capture')
    ? {
        type: 'transaction-capture',
        status: done.capture?.status ?? 'failed',
        code: done.capture?.error_code ?? null,
        raw_response_code: done.capture?.raw_response_code ?? null,
        raw_response_description: done.capture?.raw_response_description ?? null,
        transaction: done.transaction,
        capture_id: done.capture?.id ?? null,
        payment_service_capture_id: done.capture?.payment_service_capture_id ?? null,
      }
    : done.transaction

const voidView = (done: OperationDone, prefer: string | null): Transaction | TransactionVoid =>
  wants(prefer, 'transaction-void')
    ? {
        type: 'transaction-void',
        status: done.transaction.status === 'authorization_voided' ? 'succeeded' : 'failed',
        code: done.transaction.error_code ?? null,
        raw_response_code: done.transaction.raw_response_code ?? null,
        raw_response_description: done.transaction.raw_response_description ?? null,
        transaction: done.transaction,
      }
    : done.transaction

export const captureTransaction = defineOperation({
  method: 'POST',
  path: '/transactions/{transaction_id}/capture',
  scope: 'transactions.write',
  serverOnly: true,
  operationId: 'capture_transaction',
  doc: {
    tag: TRANSACTIONS,
    summary: 'Capture transaction',
    description:
      'Captures an authorized transaction: all of it, or `amount` of it (never more than was authorized); the capture is final (`final: ' +
      'false` is a `400`). Any other status is a `409` naming it, and so is an authorization of 0 (a card check). ' +
      PREFER +
      ' ' +
      IDEMPOTENCY,
  },
  params: TRANSACTION_ID,
  body: TransactionCaptureCreate,
  optionalBody: true,
  idempotent: true,
  success: { status: 200, codec: t.union([Transaction, TransactionCapture]), description: 'The captured transaction.' },
  handle: (u) => (req) =>
    TE.map((r: { value: OperationDone; replayed: boolean }) => ({ value: captureView(r.value, req.prefer), replayed: r.replayed }))(
      u.captureTransaction({ ...one(req), actor: keyActor(req.access.principal.key), input: req.body, idempotencyKey: req.idempotencyKey }),
    ),
})

export const voidTransaction = defineOperation({
  method: 'POST',
  path: '/transactions/{transaction_id}/void',
  scope: 'transactions.write',
  serverOnly: true,
  operationId: 'void_transaction',
  doc: {
    tag: TRANSACTIONS,
    summary: 'Void transaction',
    description:
      'Voids an authorized transaction that was not captured; any other status is a `409` naming it. ' + PREFER + ' ' + IDEMPOTENCY,
  },
  params: TRANSACTION_ID,
  idempotent: true,
  success: { status: 200, codec: t.union([Transaction, TransactionVoid]), description: 'The voided transaction.' },
  handle: (u) => (req) =>
    TE.map((r: { value: OperationDone; replayed: boolean }) => ({ value: voidView(r.value, req.prefer), replayed: r.replayed }))(
      u.voidTransaction({ ...one(req), actor: keyActor(req.access.principal.key), input: null, idempotencyKey: req.idempotencyKey }),
    ),
})

export const createTransactionRefund = defineOperation({
  method: 'POST',
  path: '/transactions/{transaction_id}/refunds',
  scope: 'transactions.write',
  serverOnly: true,
  operationId: 'create_transaction_refund',
  doc: {
    tag: TRANSACTIONS,
    summary: 'Create transaction refund',
    description:
      'Refunds `amount` of a captured transaction (all that is left when absent): refunds together never exceed what was captured. ' +
      'A transaction not captured is a `409` naming its status. ' +
      IDEMPOTENCY,
  },
  params: TRANSACTION_ID,
  body: TransactionRefundCreate,
  optionalBody: true,
  idempotent: true,
  success: { status: 201, codec: Refund, description: 'The refund.' },
  handle: (u) => (req) =>
    TE.flatMap((r: { value: OperationDone; replayed: boolean }) => firstRefund(r))(
      u.refundTransaction({ ...one(req), actor: keyActor(req.access.principal.key), input: req.body, idempotencyKey: req.idempotencyKey }),
    ),
})

export const createFullTransactionRefund = defineOperation({
  method: 'POST',
  path: '/transactions/{transaction_id}/refunds/all',
  scope: 'transactions.write',
  serverOnly: true,
  operationId: 'create_full_transaction_refund',
  doc: { tag: TRANSACTIONS, summary: 'Create batch transaction refund', description: 'Refunds everything left to refund. ' + IDEMPOTENCY },
  params: TRANSACTION_ID,
  body: TransactionRefundAllCreate,
  optionalBody: true,
  idempotent: true,
  success: { status: 201, codec: Refunds, description: 'The refunds made.' },
  handle: (u) => (req) =>
    TE.map((r: { value: OperationDone; replayed: boolean }) => ({ value: { items: r.value.refunds }, replayed: r.replayed }))(
      u.refundAllTransaction({
        ...one(req),
        actor: keyActor(req.access.principal.key),
        input: req.body,
        idempotencyKey: req.idempotencyKey,
      }),
    ),
})

/** The refund a refund request made (the use case answers it, or fails). */
const firstRefund = (r: { value: OperationDone; replayed: boolean }): TE.TaskEither<DomainError, { value: Refund; replayed: boolean }> => {
  const [refund] = r.value.refunds
  return refund === undefined
    ? TE.left(unavailable(new Error('a refund request made no refund')))
    : TE.right({ value: refund, replayed: r.replayed })
}

export const TRANSACTION_OPERATIONS = [
  createTransaction,
  listTransactions,
  getTransaction,
  updateTransaction,
  captureTransaction,
  voidTransaction,
  createTransactionRefund,
  createFullTransactionRefund,
]
