import { randomBytes } from 'node:crypto'
import { expect } from 'chai'
import fc from 'fast-check'
import { getToken, Gr4vy, withToken } from '@gr4vy/sdk'
import {
  CardPaymentMethodCreate,
  CartItem,
  CheckoutSession,
  Refund,
  Transaction,
  TransactionCapture,
  TransactionCreate,
  TransactionSummary,
  TransactionVoid,
} from '@gr4vy/sdk/models/components'
import { Gr4vyError } from '@gr4vy/sdk/models/errors'
import { defaultCardServiceId } from '../../src/card-services'
import { freshDatabase } from '../mongo/support'
import { Harness, Reply, startHarness, UUID_RE } from '../support/harness'

/**
 * What the ports of the original API SDK's payment cases share (its `tests/utils/`: fixtures,
 * the Secure Fields helper, `authorizeViaCheckoutSession`, `reaches`, the fast-check settings),
 * rewritten for Orka: one harness per store, Orka's clock set to the real time before each case
 * (the SDK's tokens carry it), and the whole Transaction or Refund each call must answer.
 */
export const SDK_HEADER = 'x-gr4vy-merchant-account-id'

/** The SDK's `APPROVING_CARD` (as Secure Fields take it) and `cardPaymentMethod()` (as the SDK sends it). */
export const APPROVING_CARD = { number: '4111111111111111', expiration_date: '12/35', security_code: '123' }
export type RawCard = typeof APPROVING_CARD
export const cardPaymentMethod = (o: Partial<CardPaymentMethodCreate> = {}): CardPaymentMethodCreate => ({
  method: 'card',
  number: APPROVING_CARD.number,
  expirationDate: APPROVING_CARD.expiration_date,
  securityCode: APPROVING_CARD.security_code,
  ...o,
})
export const cartItem = (o: Partial<CartItem> = {}): CartItem => ({ name: 'Joust Duffle Bag', quantity: 1, unitAmount: 1299, ...o })
/** An identifier no other case (or run) uses, as the SDK's `uniqueId`. */
export const uniqueId = (prefix: string) => `${prefix}-${randomBytes(6).toString('hex')}`

/** fast-check's settings for cases that pay for real: a few runs, a fixed seed (`FC_SEED` overrides it). */
export const fcParams = (numRuns: number): fc.Parameters<unknown> => {
  const seed = Number(process.env.FC_SEED)
  return { numRuns, seed: Number.isFinite(seed) && process.env.FC_SEED !== '' ? seed : 42 }
}

/** Capture and void answer the transaction, or its wrapper when `Prefer` asks for it. */
export const unwrapTransaction = (r: Transaction | TransactionCapture | TransactionVoid): Transaction =>
  r.type === 'transaction' ? r : r.transaction

/** The dynamic fields of a transaction have the form the mock card service gives them. */
export const expectServiceFields = (t: Transaction) => {
  expect(t.id).to.match(UUID_RE)
  expect(t.reconciliationId).to.match(/^[0-9A-Za-z]{20,24}$/)
  expect(t.paymentMethod?.fingerprint).to.match(/^[A-Za-z0-9_-]{43}$/)
  expect(t.paymentServiceTransactionId).to.match(UUID_RE)
  expect(t.authResponseCode).to.match(/^\d{6}$/)
}

/**
 * The whole Transaction the SDK parses for an approved card payment of `APPROVING_CARD` (1299
 * USD, intent authorize) at `now`, with the values only Orka knows taken from `t`.
 */
export const expectedTransaction = (t: Transaction, now: Date, o: Partial<Transaction> = {}): Transaction => ({
  type: 'transaction',
  id: t.id,
  reconciliationId: t.reconciliationId,
  merchantAccountId: 'default',
  currency: 'USD',
  amount: 1299,
  status: 'authorization_succeeded',
  authorizedAmount: o.amount ?? 1299,
  capturedAmount: 0,
  refundedAmount: 0,
  settledCurrency: null,
  settledAmount: 0,
  settled: false,
  country: null,
  externalIdentifier: null,
  intent: 'authorize',
  paymentMethod: {
    type: 'payment-method',
    country: null,
    currency: null,
    details: { bin: '411111', cardType: null },
    expirationDate: '12/35',
    fingerprint: t.paymentMethod?.fingerprint ?? null,
    label: '1111',
    method: 'card',
    scheme: 'visa',
    id: null,
    externalIdentifier: null,
  },
  method: 'card',
  instrumentType: 'pan',
  errorCode: null,
  paymentService: {
    type: 'payment-service',
    id: defaultCardServiceId('default'),
    paymentServiceDefinitionId: 'mock-card',
    method: 'card',
    displayName: 'Mock cards',
  },
  pendingReview: false,
  buyer: null,
  rawResponseCode: '00',
  rawResponseDescription: 'Approved',
  checkoutSessionId: null,
  giftCardRedemptions: [],
  createdAt: now,
  updatedAt: now,
  disputed: false,
  authResponseCode: t.authResponseCode ?? null,
  avsResponseCode: null,
  cvvResponseCode: 'match',
  paymentSource: 'ecommerce',
  merchantInitiated: false,
  isSubsequentPayment: false,
  cartItems: null,
  paymentServiceTransactionId: t.paymentServiceTransactionId ?? null,
  metadata: null,
  authorizedAt: now,
  capturedAt: null,
  voidedAt: null,
  intentOutcome: 'succeeded',
  multiTender: false,
  accountFundingTransaction: false,
  ...o,
})

/** What `transactions.list` shows of a transaction (the SDK's TransactionSummary): all but the details. */
const DETAILS = [
  'authResponseCode',
  'avsResponseCode',
  'cvvResponseCode',
  'paymentSource',
  'merchantInitiated',
  'isSubsequentPayment',
  'cartItems',
  'paymentServiceTransactionId',
  'metadata',
  'authorizedAt',
  'capturedAt',
  'voidedAt',
  'intentOutcome',
  'multiTender',
  'accountFundingTransaction',
] as const satisfies readonly Exclude<keyof Transaction, keyof TransactionSummary>[]
export const summaryOf = (t: Transaction): TransactionSummary =>
  Object.fromEntries(Object.entries(t).filter(([k]) => !(DETAILS as readonly string[]).includes(k))) as TransactionSummary

/** The whole Refund of `amount` of `t` the SDK parses, made at `now`; the ids only Orka knows taken from `r`. */
export const expectedRefund = (r: Refund, t: Transaction, now: Date, o: Partial<Refund> = {}): Refund => ({
  type: 'refund',
  id: r.id,
  transactionId: t.id,
  paymentServiceRefundId: r.paymentServiceRefundId ?? null,
  status: 'succeeded',
  currency: t.currency,
  amount: r.amount,
  reason: null,
  targetType: 'payment-method',
  targetId: null,
  reconciliationId: r.reconciliationId,
  externalIdentifier: null,
  transactionReconciliationId: t.reconciliationId,
  transactionExternalIdentifier: t.externalIdentifier ?? null,
  createdAt: now,
  updatedAt: now,
  errorCode: null,
  rawResponseCode: '00',
  rawResponseDescription: 'Approved',
  ...o,
})

/**
 * The SDK's `reaches`/`rejectsClientError`, made stricter: the call reached Orka (the SDK raised
 * an HTTP error, not one of its own before sending) and was refused with a `4xx` other than
 * `404` (the route exists). Answers the error for the case to look at.
 */
export const refusedByOrka = async (call: Promise<unknown>): Promise<Gr4vyError> => {
  let error: unknown
  try {
    await call
  } catch (e) {
    error = e
  }
  if (!(error instanceof Gr4vyError)) return expect.fail(`expected an HTTP error from Orka, got ${String(error)}`)
  expect(error.statusCode, error.body).to.be.within(400, 499)
  expect(error.statusCode, error.body).not.to.equal(404)
  return error
}

/** Orka's `400` for what the original API offers and Orka does not: the faulty fields, each named. */
export const failedValidation = (...details: { pointer: string; message: string; type: string }[]) => ({
  type: 'error',
  code: 'bad_request',
  status: 400,
  message: 'Request failed validation',
  details: details.map((d) => ({ location: 'body', ...d })),
})

export interface SdkWorld {
  readonly h: Harness
  readonly sdk: Gr4vy
  /** Orka's time for the running case. */
  readonly now: () => Date
  /** The SDK's `putCheckoutSessionCard`: Secure Fields with no token at all, `204` or it throws. */
  readonly putCheckoutSessionCard: (session: CheckoutSession, card?: RawCard) => Promise<void>
  /** The SDK's `authorizeViaCheckoutSession`: a session, its card, then a payment with it. */
  readonly authorizeViaCheckoutSession: (amount: number, o?: Partial<TransactionCreate>) => Promise<Transaction>
  /** A route SDK 1.10.18 has no method for, with the SDK's own token helper and header (recorded for the conformance suite). */
  readonly withSdkToken: <T>(method: string, path: string, headers?: Record<string, string>) => Promise<Reply<T>>
}

/** Runs `cases` against Orka on the embedded store and on MongoDB (a fresh database), each with its own server. */
export const onBothStores = (title: string, cases: (world: () => SdkWorld) => void) => {
  const stores: [string, () => { env: Record<string, string>; drop: () => Promise<void> }][] = [
    ['embedded store', () => ({ env: {}, drop: () => Promise.resolve() })],
    ['MongoDB', freshDatabase],
  ]
  for (const [store, database] of stores)
    describe(`${title} (${store})`, function () {
      this.timeout(30_000)
      let world: SdkWorld | undefined
      let drop = () => Promise.resolve()
      before(async () => {
        const db = database()
        drop = db.drop
        const h = await startHarness({ env: { MERCHANT_ACCOUNT_HEADER: SDK_HEADER, ...db.env } })
        const sdk = new Gr4vy({ serverURL: h.url, merchantAccountId: 'default', bearerAuth: withToken({ privateKey: h.pems.admin }) })
        const putCheckoutSessionCard = async (session: CheckoutSession, card: RawCard = APPROVING_CARD) => {
          const r = await fetch(`${h.url}/checkout/sessions/${session.id}/fields`, {
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ payment_method: { method: 'card', ...card } }),
          })
          if (r.status !== 204) throw new Error(`Unexpected status ${r.status} submitting checkout session fields: ${await r.text()}`)
        }
        world = {
          h,
          sdk,
          now: () => h.clock.now(),
          putCheckoutSessionCard,
          authorizeViaCheckoutSession: async (amount, o = {}) => {
            const session = await sdk.checkoutSessions.create()
            await putCheckoutSessionCard(session)
            return sdk.transactions.create({
              amount,
              currency: 'USD',
              externalIdentifier: uniqueId('txn'),
              ...o,
              paymentMethod: { method: 'checkout-session', id: session.id },
            })
          },
          withSdkToken: async <T>(method: string, path: string, headers: Record<string, string> = {}) =>
            h.request<T>(method, path, {
              auth: await getToken({ privateKey: h.pems.admin }),
              headers: { [SDK_HEADER]: 'default', ...headers },
            }),
        }
      })
      after(async () => {
        await world?.h.close()
        await drop()
      })
      beforeEach(() => {
        world?.h.clock.set(new Date())
      })
      cases(() => world ?? expect.fail('the harness did not start'))
    })
}
