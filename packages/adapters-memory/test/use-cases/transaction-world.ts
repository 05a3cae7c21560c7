import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  CheckoutSessionStore,
  makeCaptureTransaction,
  makeCreateTransaction,
  makeRecoverTransactions,
  makeRefundAllTransaction,
  makeRefundTransaction,
  makeVoidTransaction,
  PaymentServiceRecord,
  TransactionCreate,
  TransactionDeps,
} from '@orka/domain'
import {
  aPaymentServiceRecord,
  cardConnectorsOf,
  ManualClock,
  MERCHANT_A,
  right,
  ScriptedCardConnector,
  SequentialIds,
} from '@orka/domain/testing'
import { MemoryBuyerRepository, MemoryIdempotencyStore, MemoryPaymentServiceRepository, MemoryTransactionStore } from '../../src'
import { eventWorld, START, testBox, testMac } from './support'

/** No checkout sessions: the card payments of these tests carry their card. */
const noSessions: CheckoutSessionStore = {
  create: () => TE.right(undefined),
  find: () => TE.right(O.none),
  update: () => TE.right(false),
  delete: () => TE.right(false),
  putCard: () => TE.right(O.none),
  takeCard: () => TE.right(O.none),
  sweep: () => TE.right(0),
}

/** A card payment's input: the approving card, a next-year expiry. */
export const payment = (o: Record<string, unknown> = {}): TransactionCreate => {
  const decoded = TransactionCreate.decode({
    amount: 1299,
    currency: 'USD',
    payment_method: { method: 'card', number: '4111111111111111', expiration_date: '12/30', security_code: '123' },
    ...o,
  })
  if (E.isLeft(decoded)) throw new Error(`invalid test payment: ${JSON.stringify(o)}`)
  return decoded.right
}

/**
 * Transactions in memory, on a manual clock, with one card connector per service (by
 * definition id: each service gets its own definition so that a test scripts each one).
 */
export const transactionWorld = async (connectors: readonly ScriptedCardConnector[] = [new ScriptedCardConnector()]) => {
  const clock = new ManualClock(START)
  const ids = new SequentialIds()
  const services = new MemoryPaymentServiceRepository()
  const records: PaymentServiceRecord[] = connectors.map((_, i) =>
    aPaymentServiceRecord({
      id: `0b0b0b0b-0000-4000-8000-00000000000${i + 1}`,
      payment_service_definition_id: `card-${i + 1}`,
      position: i,
      display_name: `Service ${i + 1}`,
    }),
  )
  for (const r of records) await right(services.upsert(r))
  const deps: TransactionDeps = {
    transactions: new MemoryTransactionStore(),
    sessions: noSessions,
    services,
    connectors: cardConnectorsOf(Object.fromEntries(connectors.map((c, i) => [`card-${i + 1}`, c]))),
    buyers: new MemoryBuyerRepository(),
    idempotency: new MemoryIdempotencyStore(),
    box: testBox(),
    mac: testMac(),
    clock,
    ids,
    ...eventWorld(clock, ids),
    config: { replayS: 86_400, leaseS: 30, retryAfterS: 2 },
  }
  const op = (transactionId: string, idempotencyKey: string | null = null) => ({
    merchantAccountId: MERCHANT_A,
    transactionId,
    idempotencyKey,
  })
  return {
    ...deps,
    clock,
    records,
    create: (input: TransactionCreate = payment(), idempotencyKey: string | null = null) =>
      makeCreateTransaction(deps)({ merchantAccountId: MERCHANT_A, input, idempotencyKey, embed: null }),
    capture: (id: string, input: { amount?: number } = {}, key: string | null = null) =>
      makeCaptureTransaction(deps)({ ...op(id, key), input }),
    void: (id: string, key: string | null = null) => makeVoidTransaction(deps)({ ...op(id, key), input: null }),
    refund: (id: string, input: { amount?: number } = {}, key: string | null = null) =>
      makeRefundTransaction(deps)({ ...op(id, key), input }),
    refundAll: (id: string, key: string | null = null) => makeRefundAllTransaction(deps)({ ...op(id, key), input: {} }),
    recover: (staleAfterMs = 60_000) => makeRecoverTransactions({ ...deps, recovery: { staleAfterMs, batch: 100 } })(),
  }
}
export type TransactionWorld = Awaited<ReturnType<typeof transactionWorld>>
