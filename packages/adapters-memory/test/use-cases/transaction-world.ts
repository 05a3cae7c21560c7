import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import {
  capturedAmount,
  GiftCardConnector,
  makeCaptureTransaction,
  makeCreateTransaction,
  makeRecoverTransactions,
  makeRefundAllTransaction,
  makeRefundTransaction,
  makeUpdateTransaction,
  makeVoidTransaction,
  PaymentServiceRecord,
  TransactionCreate,
  TransactionDeps,
  TransactionRecord,
  TransactionRefundCreate,
} from '@orka/domain'
import {
  aGiftCardServiceRecord,
  aPaymentServiceRecord,
  cardConnectorsOf,
  ManualClock,
  MERCHANT_A,
  right,
  ScriptedCardConnector,
  SequentialIds,
} from '@orka/domain/testing'
import { MockGiftCardConnector } from '@orka/adapters-node'
import {
  MemoryBuyerRepository,
  MemoryShippingDetailsRepository,
  MemoryCheckoutSessionStore,
  MemoryGiftCardLedger,
  MemoryGiftCardServiceRepository,
  MemoryGiftCardVault,
  MemoryIdempotencyStore,
  MemoryPaymentMethodVault,
  MemoryPaymentServiceRepository,
} from '../../src'
import { eventWorld, START, testBox, testMac, ACTOR, transactionFolds } from './support'

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
export const transactionWorld = async (
  connectors: readonly ScriptedCardConnector[] = [new ScriptedCardConnector()],
  giftCardConnector?: (mock: GiftCardConnector) => GiftCardConnector,
) => {
  const clock = new ManualClock(START)
  // Gift cards: the sandbox provider on its own ledger (a test may wrap it to break or watch calls), the account's primary service.
  const ledger = new MemoryGiftCardLedger()
  const mock = new MockGiftCardConnector({ ledger, mac: testMac(), clock, timeoutMs: 1000 })
  const giftCardServices = new MemoryGiftCardServiceRepository()
  const giftCardService = aGiftCardServiceRecord()
  await right(giftCardServices.upsert(giftCardService))
  const vault = new MemoryGiftCardVault()
  const giftCard = giftCardConnector === undefined ? mock : giftCardConnector(mock)
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
  for (const r of records) await right(services.write(r))
  const events = eventWorld(clock, ids)
  const folding = transactionFolds(events)
  const deps: TransactionDeps = {
    ...folding,
    sessions: new MemoryCheckoutSessionStore(),
    cardServices: services,
    cardConnectors: cardConnectorsOf(Object.fromEntries(connectors.map((c, i) => [`card-${i + 1}`, c]))),
    buyers: new MemoryBuyerRepository(),
    shippingDetails: new MemoryShippingDetailsRepository(),
    idempotency: new MemoryIdempotencyStore(),
    box: testBox(),
    mac: testMac(),
    clock,
    ids,
    ...events,
    config: { replayS: 86_400, leaseS: 30, retryAfterS: 2 },
    paymentMethods: new MemoryPaymentMethodVault(),
    giftCards: {
      services: giftCardServices,
      connectors: { forDefinition: (d) => (d === giftCardService.service.gift_card_service_definition_id ? O.some(giftCard) : O.none) },
      vault,
    },
  }
  const op = (transactionId: string, idempotencyKey: string | null = null) => ({
    merchantAccountId: MERCHANT_A,
    transactionId,
    idempotencyKey,
  })
  return {
    ...events,
    ...deps,
    fanOut: folding.fanOut,
    fannedOut: folding.fannedOut,
    clock,
    records,
    ledger,
    giftCardMock: mock,
    giftCardService: giftCardService.service,
    create: (input: TransactionCreate = payment(), idempotencyKey: string | null = null) =>
      makeCreateTransaction(deps)({ merchantAccountId: MERCHANT_A, actor: ACTOR, input, idempotencyKey, embed: null }),
    capture: (id: string, input: { amount?: number } = {}, key: string | null = null) =>
      makeCaptureTransaction(deps)({ ...op(id, key), actor: ACTOR, input }),
    void: (id: string, key: string | null = null) => makeVoidTransaction(deps)({ ...op(id, key), actor: ACTOR, input: null }),
    refund: (id: string, input: TransactionRefundCreate = {}, key: string | null = null) =>
      makeRefundTransaction(deps)({ ...op(id, key), actor: ACTOR, input }),
    refundAll: (id: string, key: string | null = null) => makeRefundAllTransaction(deps)({ ...op(id, key), actor: ACTOR, input: {} }),
    update: (id: string, input: { external_identifier?: string | null; metadata?: Record<string, string> | null }) =>
      makeUpdateTransaction(deps)({ merchantAccountId: MERCHANT_A, actor: ACTOR, transactionId: id, input }),
    recover: (staleAfterMs = 60_000, batch = 100) => makeRecoverTransactions({ ...deps, recovery: { staleAfterMs, batch } })(),
  }
}
export type TransactionWorld = Awaited<ReturnType<typeof transactionWorld>>

export const record = async (w: TransactionWorld, id: string): Promise<TransactionRecord> => {
  const r = await right(w.transactions.find(MERCHANT_A, id))
  if (O.isNone(r)) throw new Error(`no transaction ${id}`)
  return r.value
}

/** What must hold of every transaction, however it got there: no money is lost, made up or held unseen. */
export const invariants = (r: TransactionRecord, services: readonly ScriptedCardConnector[]) => {
  expect(capturedAmount(r), 'captured <= authorized').to.be.at.most(r.authorization?.amount ?? 0)
  const cardRefunded = r.refunds.filter((x) => x.status === 'succeeded' && x.redemption_id === undefined).reduce((a, x) => a + x.amount, 0)
  expect(cardRefunded, 'refunded to the card <= captured').to.be.at.most(capturedAmount(r))
  const held = services.flatMap((s) => s.heldAuthorizations())
  const shown = r.authorization !== null && r.status !== 'authorization_voided' ? [r.authorization.reference] : []
  expect(held, 'authorizations held at the services are the one the transaction shows').to.deep.equal(shown)
  const effects = (op: string) => services.flatMap((s) => s.effects.filter((e) => e.op === op))
  expect(
    effects('capture').reduce((a, e) => a + (e.amount ?? 0), 0),
    'captured at the services',
  ).to.equal(
    r.captures.filter((c) => c.status === 'succeeded' && c.reference !== r.authorization?.reference).reduce((a, c) => a + c.amount, 0),
  )
  expect(
    effects('refund').reduce((a, e) => a + (e.amount ?? 0), 0),
    'refunded at the services',
  ).to.equal(cardRefunded)
}
