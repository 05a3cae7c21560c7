import * as t from 'io-ts'
import * as TE from 'fp-ts/TaskEither'
import { canonicalUuid, closed, NoItems, notFound, Transaction } from '@orka/domain'
import { defineOperation } from './operation'
import { one, TRANSACTION_ID, TRANSACTIONS } from './transactions'

/** A list nothing in Orka produces yet (the original API's actions, settlements, refund settlements): always empty. */
const Empty = (name: string) => closed(name, { items: NoItems })
const emptyList = (path: string, operationId: string, summary: string, name: string) =>
  defineOperation({
    method: 'GET',
    path: `/transactions/{transaction_id}/${path}`,
    scope: 'transactions.read',
    operationId,
    doc: {
      tag: TRANSACTIONS,
      summary,
      description: 'Nothing in Orka produces these yet: the list is empty (a `404` for an unknown transaction).',
    },
    params: TRANSACTION_ID,
    success: { status: 200, codec: Empty(name), description: 'No items.' },
    handle: (u) => (req) => TE.map((): { items: readonly never[] } => ({ items: [] }))(u.getTransaction(one(req))),
  })

const noneOf = (path: string, param: string, operationId: string, summary: string) =>
  defineOperation({
    method: 'GET',
    path: `/transactions/{transaction_id}/${path}/{${param}}`,
    scope: 'transactions.read',
    operationId,
    doc: { tag: TRANSACTIONS, summary, description: 'Nothing in Orka produces these yet: every id is a `404`.' },
    params: { ...TRANSACTION_ID, [param]: { codec: canonicalUuid, description: 'The ID.' } },
    errorsOnly: true,
    success: { status: 204, description: 'Never answered.' },
    handle: () => (req) => TE.left(notFound(path, String((req.params as Record<string, unknown>)[param]))),
  })

/**
 * An operation no connected card service offers: a `400` that says so (never a `404` for the
 * route, never a `5xx`). For an `embed` token a `403`, as every transaction route but creation.
 */
const unsupported = (path: string, operationId: string, summary: string, what: string) =>
  defineOperation({
    method: 'POST',
    path: `/transactions/{transaction_id}/${path}`,
    scope: 'transactions.write',
    serverOnly: true,
    operationId,
    doc: {
      tag: TRANSACTIONS,
      summary,
      description: `${what} is not supported by the card services Orka connects to: a \`400\` that says so (\`403\` for an \`embed\` token).`,
    },
    params: TRANSACTION_ID,
    optionalBody: true,
    body: t.record(t.string, t.unknown),
    errorsOnly: true,
    success: { status: 204, description: 'Never answered.' },
    handle: (u) => (req) => u.unsupportedTransactionOperation({ ...one(req), operation: what }),
  })

/** Asks the card service what it says now, and settles it (as its notifications would). */
const syncTransaction = defineOperation({
  method: 'POST',
  path: '/transactions/{transaction_id}/sync',
  scope: 'transactions.write',
  serverOnly: true,
  operationId: 'sync_transaction',
  doc: {
    tag: TRANSACTIONS,
    summary: 'Sync transaction',
    description:
      'Asks the card service that holds the authorization what it says now of it and of each capture, void and refund still ' +
      'awaited (`capture_pending`, `authorization_void_pending`, a `processing` refund), and settles what it says, once, as its ' +
      "notification would. A service with no way to be asked (Adyen's Checkout API) changes nothing: its notifications settle. " +
      'Calls still in flight are left to their own flow. `502`/`504` when the service cannot be asked.',
  },
  params: TRANSACTION_ID,
  optionalBody: true,
  body: t.record(t.string, t.unknown),
  success: { status: 200, codec: Transaction, description: 'The transaction after what the service said.' },
  handle: (u) => (req) => u.syncTransaction(one(req)),
})

export const TRANSACTION_EXTRA_OPERATIONS = [
  syncTransaction,
  emptyList('actions', 'list_transaction_actions', 'List transaction actions', 'TransactionActions'),
  emptyList('settlements', 'list_transaction_settlements', 'List transaction settlements', 'TransactionSettlements'),
  emptyList('refund-settlements', 'list_transaction_refund_settlements', 'List transaction refund settlements', 'RefundSettlements'),
  noneOf('settlements', 'settlement_id', 'get_transaction_settlement', 'Get transaction settlement'),
  noneOf('refund-settlements', 'refund_settlement_id', 'get_transaction_refund_settlement', 'Get transaction refund settlement'),
  unsupported('cancel', 'cancel_transaction', 'Cancel transaction', 'Canceling a transaction'),
  unsupported(
    'authorization/increment',
    'increment_transaction_authorization',
    'Increment transaction authorization',
    'Incrementing an authorization',
  ),
]
