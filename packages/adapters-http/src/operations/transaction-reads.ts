import * as t from 'io-ts'
import { canonicalUuid, Capture, pageOf, Refund, TransactionEvent } from '@orka/domain'
import { defineOperation } from './operation'
import { PAGE_QUERY } from './page'
import { one, TRANSACTION_ID, TRANSACTIONS } from './transactions'

const itemsOf = <C extends t.Mixed>(name: string, item: C) => t.type({ items: t.readonlyArray(item) }, name)

export const listTransactionRefunds = defineOperation({
  method: 'GET',
  path: '/transactions/{transaction_id}/refunds',
  scope: 'transactions.read',
  operationId: 'list_transaction_refunds',
  doc: { tag: TRANSACTIONS, summary: 'List transaction refunds', description: 'Every refund of the transaction, oldest first.' },
  params: TRANSACTION_ID,
  success: { status: 200, codec: itemsOf('TransactionRefunds', Refund), description: 'The refunds.' },
  handle: (u) => (req) => u.listRefunds(one(req)),
})

const REFUND_ID = { refund_id: { codec: canonicalUuid, description: 'The ID of the refund.' } }

export const getTransactionRefund = defineOperation({
  method: 'GET',
  path: '/transactions/{transaction_id}/refunds/{refund_id}',
  scope: 'transactions.read',
  operationId: 'get_transaction_refund',
  doc: { tag: TRANSACTIONS, summary: 'Get transaction refund', description: 'One refund of the transaction.' },
  params: { ...TRANSACTION_ID, ...REFUND_ID },
  success: { status: 200, codec: Refund, description: 'The refund.' },
  handle: (u) => (req) => u.getRefund({ ...one(req), refundId: req.params.refund_id }),
})

export const listTransactionCaptures = defineOperation({
  method: 'GET',
  path: '/transactions/{transaction_id}/captures',
  scope: 'transactions.read',
  operationId: 'list_transaction_captures',
  doc: { tag: TRANSACTIONS, summary: 'List transaction captures', description: 'Every capture of the transaction, oldest first.' },
  params: TRANSACTION_ID,
  success: { status: 200, codec: itemsOf('CaptureCollection', Capture), description: 'The captures.' },
  handle: (u) => (req) => u.listCaptures(one(req)),
})

export const getTransactionCapture = defineOperation({
  method: 'GET',
  path: '/transactions/{transaction_id}/captures/{capture_id}',
  scope: 'transactions.read',
  operationId: 'get_transaction_capture',
  doc: { tag: TRANSACTIONS, summary: 'Get transaction capture', description: 'One capture of the transaction.' },
  params: { ...TRANSACTION_ID, capture_id: { codec: canonicalUuid, description: 'The ID of the capture.' } },
  success: { status: 200, codec: Capture, description: 'The capture.' },
  handle: (u) => (req) => u.getCapture({ ...one(req), captureId: req.params.capture_id }),
})

export const listTransactionEvents = defineOperation({
  method: 'GET',
  path: '/transactions/{transaction_id}/events',
  scope: 'transactions.read',
  operationId: 'list_transaction_events',
  doc: {
    tag: TRANSACTIONS,
    summary: 'List transaction events',
    description:
      'What happened to the transaction, oldest first: the request, each card service attempt and its outcome, status changes. Never card data.',
  },
  params: TRANSACTION_ID,
  query: { ...PAGE_QUERY, limit: { ...PAGE_QUERY.limit, description: 'Events per page.', default: 100 } },
  success: { status: 200, codec: pageOf('TransactionEvents', TransactionEvent), description: 'A page of events.' },
  handle: (u) => (req) => u.listTransactionEvents({ ...one(req), ...req.query }),
})

export const getRefund = defineOperation({
  method: 'GET',
  path: '/refunds/{refund_id}',
  scope: 'transactions.read',
  operationId: 'get_refund',
  doc: { tag: TRANSACTIONS, summary: 'Get refund', description: "A refund of any of the merchant account's transactions, by its own id." },
  params: REFUND_ID,
  success: { status: 200, codec: Refund, description: 'The refund.' },
  handle: (u) => (req) => u.getRefund({ merchantAccountId: req.access.merchantAccount.id, refundId: req.params.refund_id }),
})

export const TRANSACTION_READ_OPERATIONS = [
  listTransactionRefunds,
  getTransactionRefund,
  listTransactionCaptures,
  getTransactionCapture,
  listTransactionEvents,
  getRefund,
]
