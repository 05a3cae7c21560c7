import { randomInt } from 'node:crypto'
import { expect } from 'chai'
import { getToken } from '@gr4vy/sdk'
import {
  Buyer,
  CardPaymentMethodCreate,
  PaymentMethod,
  PaymentMethod$inboundSchema,
  PaymentMethodSummary,
  Transaction,
} from '@gr4vy/sdk/models/components'
import { Error400, Error404 } from '@gr4vy/sdk/models/errors'
import { luhnValid } from '@orka/domain'
import { errorBody, Reply, UUID_RE } from '../support/harness'
import { rejectionOf } from './support'
import { expectedTransaction, failedValidation, onBothStores, refusedByOrka, SDK_HEADER, SdkWorld, uniqueId } from './transactions-support'

/**
 * The original API SDK's own end-to-end cases for cards on file (issue 26), ported to Orka on
 * the embedded store and on MongoDB: its `tests/processing/payment-methods.test.ts` (create, get,
 * list, delete, update, stored against a buyer, network and payment service tokens), the buyer
 * lifecycle flow (`tests/flows/buyer-lifecycle.test.ts`), the transaction entry point that vaults
 * a card with `store: true` and pays with it by id (`tests/processing/transactions.test.ts`), and
 * the checkout session paid with a stored method (`tests/processing/checkout-sessions.test.ts`,
 * with its Secure Fields helper `putCheckoutSessionStoredMethod`). Where the SDK's cases look at
 * a field or two, these assert the whole PaymentMethod, summary or Transaction the SDK parsed
 * (the SDK validates every answer against its schemas, so a parse is a check too), with the
 * values only Orka knows (ids, fingerprints) taken from the answer and checked for their form.
 *
 * The SDK's fixture stores the same card (4111 1111 1111 1111) in every case; Orka's vault keeps
 * one method per card and buyer (the README, "Cards on file"), so each case here stores cards of
 * its own: a case's expectations do not depend on what another case (or run) stored.
 */

/** A Visa number (approved by the mock card service) that no other case or run stores. */
const freshCardNumber = (): string => {
  for (;;) {
    const body = `4${String(randomInt(10 ** 12)).padStart(12, '0')}${String(randomInt(100)).padStart(2, '0')}`
    const number = Array.from({ length: 10 }, (_, d) => `${body}${d}`).find(luhnValid)!
    if (number !== '4000000000000002' && number !== '4000000000009995') return number
  }
}

/** A card as the SDK sends it (`cardPaymentMethod()` of its fixtures, with a number of its own). */
const freshCard = (o: Partial<CardPaymentMethodCreate> = {}): CardPaymentMethodCreate & { number: string; expirationDate: string } => ({
  method: 'card',
  number: freshCardNumber(),
  expirationDate: '12/35',
  securityCode: '123',
  ...o,
})

const FINGERPRINT_RE = /^[A-Za-z0-9_-]{43}$/

/**
 * The whole PaymentMethod the SDK parses for `card`, stored by `POST /payment-methods` at `now`
 * for no buyer: `succeeded` at once, never used. The id and fingerprint are taken from `m`
 * (checked for their form by `expectForm`).
 */
const expectedMethod = (
  m: PaymentMethod,
  card: { number: string; expirationDate: string },
  now: Date,
  o: Partial<PaymentMethod> = {},
): PaymentMethod => ({
  type: 'payment-method',
  id: m.id,
  merchantAccountId: 'default',
  method: 'card',
  mode: 'card',
  status: 'succeeded',
  label: card.number.slice(-4),
  scheme: 'visa',
  additionalSchemes: null,
  expirationDate: card.expirationDate,
  fingerprint: m.fingerprint ?? null,
  details: { bin: card.number.slice(0, 6), cardType: null },
  approvalUrl: null,
  country: null,
  currency: null,
  lastReplacedAt: null,
  hasReplacement: false,
  buyer: null,
  externalIdentifier: null,
  usageCount: 0,
  citUsageCount: 0,
  lastUsedAt: null,
  citLastUsedAt: null,
  createdAt: now,
  updatedAt: now,
  ...o,
})

const expectForm = (m: { id: string; fingerprint?: string | null | undefined }) => {
  expect(m.id).to.match(UUID_RE)
  expect(m.fingerprint).to.match(FINGERPRINT_RE)
}

/** The PaymentMethod's properties its summary has not: its buyer, status, identifier and timestamps. */
const NOT_IN_SUMMARY: readonly string[] = ['buyer', 'externalIdentifier', 'status', 'createdAt', 'updatedAt'] satisfies readonly Exclude<
  keyof PaymentMethod,
  keyof PaymentMethodSummary
>[]
/** What `buyers.paymentMethods.list` shows of a method (the SDK's PaymentMethodSummary). */
const summaryOf = (m: PaymentMethod): PaymentMethodSummary =>
  Object.fromEntries(Object.entries(m).filter(([k]) => !NOT_IN_SUMMARY.includes(k))) as PaymentMethodSummary

/** A Transaction's buyer when it is one of the account's (the SDK's TransactionBuyer). */
const transactionBuyer = (b: Buyer): Transaction['buyer'] => ({
  type: 'buyer',
  id: b.id ?? null,
  displayName: b.displayName ?? null,
  externalIdentifier: b.externalIdentifier ?? null,
  billingDetails: b.billingDetails ?? null,
  accountNumber: b.accountNumber ?? null,
})

/** A Transaction's payment method when it paid with (or stored) the method `m`. */
const paidWith = (m: PaymentMethod): Transaction['paymentMethod'] => ({
  type: 'payment-method',
  method: 'card',
  id: m.id,
  label: m.label ?? null,
  scheme: m.scheme ?? null,
  expirationDate: m.expirationDate ?? null,
  fingerprint: m.fingerprint ?? null,
  details: { bin: m.details?.bin ?? null, cardType: null },
  country: null,
  currency: null,
  externalIdentifier: null,
})

/** A call with the SDK's own token and header, with a body: for what SDK 1.10.18 has no method for. */
const sdkCall = async <T>(w: SdkWorld, method: string, path: string, body?: unknown): Promise<Reply<T>> =>
  w.h.request<T>(method, path, {
    auth: await getToken({ privateKey: w.h.pems.admin }),
    headers: { [SDK_HEADER]: 'default' },
    ...(body === undefined ? {} : { body }),
  })

/** The SDK's `putCheckoutSessionStoredMethod` (its `tests/utils/fields.ts`): Secure Fields with no token, `204` or it throws. */
const putCheckoutSessionStoredMethod = async (w: SdkWorld, sessionId: string, paymentMethodId: string, securityCode?: string) => {
  const r = await fetch(`${w.h.url}/checkout/sessions/${sessionId}/fields`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      payment_method: { method: 'id', id: paymentMethodId, ...(securityCode ? { security_code: securityCode } : {}) },
    }),
  })
  if (r.status !== 204) throw new Error(`Unexpected status ${r.status} submitting checkout session fields: ${await r.text()}`)
}

onBothStores("the original API SDK's payment methods against Orka", (world) => {
  describe('payment methods', () => {
    it('create → get → list → delete, then get is a 404 client error', async () => {
      const { sdk } = world()
      const card = freshCard({ externalIdentifier: uniqueId('pm') })
      const created = await sdk.paymentMethods.create(card)
      expectForm(created)
      expect(created).to.deep.equal(expectedMethod(created, card, world().now(), { externalIdentifier: card.externalIdentifier }))
      expect(JSON.stringify(created)).not.to.include(card.number)

      // The vendor SDK 2.x requires `scheme_transaction_id` and `scheme_transaction_id_scheme`,
      // which 1.10.18 strips as unknown keys: the JSON Orka sends has both.
      const raw = await sdkCall<Record<string, unknown>>(world(), 'GET', `/payment-methods/${created.id}`)
      expect(raw.status, raw.text).to.equal(200)
      expect(raw.body).to.include({ scheme_transaction_id: null, scheme_transaction_id_scheme: null, transaction_link_id: null })
      expect(raw.text).not.to.include(card.number)

      const fetched = await sdk.paymentMethods.get(created.id)
      expect(fetched).to.deep.equal(created)

      // Newest first: this case's method heads the account's list; its external identifier finds it alone.
      const page = await sdk.paymentMethods.list({})
      expect(page.result.items[0]).to.deep.equal(created)
      expect([page.result.limit, page.result.previousCursor]).to.deep.equal([20, null])
      const only = await sdk.paymentMethods.list({ externalIdentifier: card.externalIdentifier! })
      expect(only.result).to.deep.equal({ items: [created], limit: 20, nextCursor: null, previousCursor: null })

      await sdk.paymentMethods.delete(created.id)
      const gone = await rejectionOf(sdk.paymentMethods.get(created.id))
      expect(gone).to.be.instanceOf(Error404)
      expect([(gone as Error404).statusCode, JSON.parse((gone as Error404).body)]).to.deep.equal([404, errorBody(404)])
      expect((await sdk.paymentMethods.list({ externalIdentifier: card.externalIdentifier! })).result.items).to.deep.equal([])
      // A second delete is a 404 too.
      expect(await rejectionOf(sdk.paymentMethods.delete(created.id))).to.be.instanceOf(Error404)
      expect(world().h.logs.join('')).not.to.include(card.number)
    })

    // SDK 1.10.18 has no `paymentMethods.update` (sdk/paymentmethods.d.ts: list, create, get,
    // delete), which the SDK's own case calls: the same request goes out as a raw PUT with the
    // SDK's token and header, and its answer is parsed with the SDK's own PaymentMethod schema,
    // as the SDK would parse it.
    it('update changes only the expiration date (partial), through a raw PUT parsed by the SDK schema', async () => {
      const w = world()
      const card = freshCard()
      const created = await w.sdk.paymentMethods.create(card)
      w.h.clock.advance(1000)
      const reply = await sdkCall<unknown>(w, 'PUT', `/payment-methods/${created.id}`, { expiration_date: '12/30' })
      expect(reply.status, reply.text).to.equal(200)
      const updated = PaymentMethod$inboundSchema.parse(reply.body)
      expect(updated).to.deep.equal({ ...created, expirationDate: '12/30', updatedAt: w.now() })
      expect(await w.sdk.paymentMethods.get(created.id)).to.deep.equal(updated)
    })

    it('can be stored against a buyer; the same card for the same buyer is the same method, a later expiry renews it', async () => {
      const { sdk, h } = world()
      const owner = await sdk.buyers.create({ displayName: 'John Doe', externalIdentifier: uniqueId('buyer') })
      const card = freshCard()
      const method = await sdk.paymentMethods.create({ ...card, buyerId: owner.id })
      expectForm(method)
      expect(method.buyer?.id).to.equal(owner.id)
      expect(method).to.deep.equal(expectedMethod(method, card, world().now(), { buyer: owner }))

      // The vault's one method per card and buyer: stored again, it is answered as it is.
      h.clock.advance(1000)
      expect(await sdk.paymentMethods.create({ ...card, buyerId: owner.id })).to.deep.equal(method)
      const renewed = await sdk.paymentMethods.create({ ...card, expirationDate: '12/36', buyerId: owner.id })
      expect(renewed).to.deep.equal({ ...method, expirationDate: '12/36', updatedAt: world().now() })
      // For no buyer, it is another method.
      const unowned = await sdk.paymentMethods.create(card)
      expect(unowned.id).not.to.equal(method.id)
      expect(unowned).to.deep.equal(expectedMethod(unowned, card, world().now()))
      expect(unowned.fingerprint).to.equal(method.fingerprint)
    })

    it('lists by buyer a page at a time (limit 1, the PageIterator), with the status filter', async () => {
      const { sdk, h } = world()
      const owner = await sdk.buyers.create({ displayName: 'Paging Buyer', externalIdentifier: uniqueId('buyer') })
      const first = await sdk.paymentMethods.create({ ...freshCard(), buyerId: owner.id })
      h.clock.advance(1000)
      const second = await sdk.paymentMethods.create({ ...freshCard(), buyerId: owner.id })

      const page1 = await sdk.paymentMethods.list({ buyerId: owner.id, limit: 1, status: ['succeeded'] })
      expect(page1.result.items).to.deep.equal([second])
      expect([page1.result.limit, page1.result.previousCursor]).to.deep.equal([1, null])
      expect(page1.result.nextCursor).to.be.a('string')
      const page2 = await page1.next()
      expect(page2?.result.items).to.deep.equal([first])
      expect([page2?.result.limit, page2?.result.nextCursor]).to.deep.equal([1, null])
      expect(page2?.result.previousCursor).to.be.a('string')
      // The last page: no next one.
      expect(await page2?.next()).to.equal(null)
      const pages: string[][] = []
      for await (const page of await sdk.paymentMethods.list({ buyerId: owner.id, limit: 1 }))
        pages.push(page.result.items.map((m) => m.id))
      expect(pages).to.deep.equal([[second.id], [first.id]])

      const both = await sdk.paymentMethods.list({ buyerExternalIdentifier: owner.externalIdentifier!, status: ['succeeded', 'failed'] })
      expect(both.result).to.deep.equal({ items: [second, first], limit: 20, nextCursor: null, previousCursor: null })
      expect((await sdk.paymentMethods.list({ buyerId: owner.id, status: ['failed', 'processing'] })).result.items).to.deep.equal([])

      // The buyer's usable methods, newest first unless asked otherwise; country and currency narrow nothing.
      expect(await sdk.buyers.paymentMethods.list({ buyerId: owner.id })).to.deep.equal({ items: [summaryOf(second), summaryOf(first)] })
      const asc = await sdk.buyers.paymentMethods.list({
        buyerExternalIdentifier: owner.externalIdentifier!,
        sortBy: 'last_used_at',
        orderBy: 'asc',
        country: 'US',
        currency: 'USD',
      })
      expect(asc).to.deep.equal({ items: [summaryOf(first), summaryOf(second)] })
    })

    // The SDK's network token and payment service token cases: Orka offers neither (the README,
    // "Cards on file", "Not offered"), so their routes do not exist and both calls are a 404.
    it('not offered: networkTokens.list and paymentServiceTokens.list are 404s (the routes do not exist)', async () => {
      const { sdk } = world()
      const card = await sdk.paymentMethods.create(freshCard())
      for (const call of [sdk.paymentMethods.networkTokens.list(card.id), sdk.paymentMethods.paymentServiceTokens.list(card.id)]) {
        const e = await rejectionOf(call)
        expect(e).to.be.instanceOf(Error404)
        expect([(e as Error404).statusCode, JSON.parse((e as Error404).body)]).to.deep.equal([404, errorBody(404)])
      }
    })
  })

  describe('buyer lifecycle', () => {
    it('create a buyer, store a card against them, list it under the buyer, pay with it by id', async () => {
      const { sdk } = world()
      const created = await sdk.buyers.create({ displayName: 'Ada Lovelace', externalIdentifier: uniqueId('buyer') })
      expect(created.id).to.match(UUID_RE)
      expect(created.displayName).to.equal('Ada Lovelace')

      const card = freshCard()
      const method = await sdk.paymentMethods.create({ ...card, buyerId: created.id })
      expect(method).to.deep.equal(expectedMethod(method, card, world().now(), { buyer: created }))

      const buyerMethods = await sdk.buyers.paymentMethods.list({ buyerId: created.id })
      expect(buyerMethods).to.deep.equal({ items: [summaryOf(method)] })

      // The SDK's flow adds shipping details for the buyer here and names them in the payment
      // (`shippingDetailsId`): Orka has no shipping details, so that step is left out.
      const externalIdentifier = uniqueId('txn')
      const transaction = await sdk.transactions.create({
        amount: 1299,
        currency: 'USD',
        buyerId: created.id,
        externalIdentifier,
        paymentMethod: { method: 'id', id: method.id, securityCode: '123' },
      })
      expect(transaction.status).to.equal('authorization_succeeded')
      expect(transaction).to.deep.equal(
        expectedTransaction(transaction, world().now(), {
          externalIdentifier,
          buyer: transactionBuyer(created),
          paymentMethod: paidWith(method),
        }),
      )
      expect(await sdk.transactions.get(transaction.id)).to.deep.equal(transaction)

      // The payment counts one (customer-initiated) use.
      const now = world().now()
      const used = { usageCount: 1, citUsageCount: 1, lastUsedAt: now, citLastUsedAt: now }
      expect(await sdk.paymentMethods.get(method.id)).to.deep.equal({ ...method, ...used, updatedAt: now })
      expect(await sdk.buyers.paymentMethods.list({ buyerId: created.id })).to.deep.equal({ items: [{ ...summaryOf(method), ...used }] })

      // The buyer's gift cards are reachable too (none).
      expect(await sdk.buyers.giftCards.list(undefined, created.id)).to.deep.equal({ items: [] })
    })
  })

  describe('paying with stored cards', () => {
    it('store: true vaults the card against the buyer; the stored method then pays by id with no buyer named', async () => {
      const { sdk } = world()
      const owner = await sdk.buyers.create({ displayName: 'John Doe', externalIdentifier: uniqueId('buyer') })
      const card = freshCard()
      const externalIdentifier = uniqueId('txn')
      const transaction = await sdk.transactions.create({
        amount: 1299,
        currency: 'USD',
        buyerId: owner.id,
        store: true,
        externalIdentifier,
        paymentMethod: card,
      })
      expect(transaction.status).to.equal('authorization_succeeded')
      expect(transaction.paymentMethod?.id).to.match(UUID_RE)
      const now = world().now()
      const used = { usageCount: 1, citUsageCount: 1, lastUsedAt: now, citLastUsedAt: now }
      const stored = await sdk.paymentMethods.get(transaction.paymentMethod!.id!)
      expectForm(stored)
      expect(stored).to.deep.equal(expectedMethod(stored, card, now, { buyer: owner, ...used }))
      expect(transaction).to.deep.equal(
        expectedTransaction(transaction, now, { externalIdentifier, buyer: transactionBuyer(owner), paymentMethod: paidWith(stored) }),
      )

      // The vaulted method is now reusable as a stored token.
      const listed = await sdk.buyers.paymentMethods.list({ buyerId: owner.id })
      expect(listed.items.length).to.be.at.least(1)
      expect(listed).to.deep.equal({ items: [summaryOf(stored)] })

      const reusedId = uniqueId('txn')
      const reused = await sdk.transactions.create({
        amount: 500,
        currency: 'USD',
        externalIdentifier: reusedId,
        paymentMethod: { method: 'id', id: listed.items[0]!.id, securityCode: '123' },
      })
      expect(reused.status).to.equal('authorization_succeeded')
      // Naming no buyer, the payment is made for the method's.
      expect(reused).to.deep.equal(
        expectedTransaction(reused, now, {
          amount: 500,
          externalIdentifier: reusedId,
          buyer: transactionBuyer(owner),
          paymentMethod: paidWith(stored),
        }),
      )
      expect(await sdk.paymentMethods.get(stored.id)).to.deep.equal({ ...stored, usageCount: 2, citUsageCount: 2 })
      // Neither the number nor the security code is in any log line.
      const logs = world().h.logs.join('')
      expect(logs).not.to.include(card.number)
      expect(logs).not.to.match(/security_code/)
    })

    it('a card declined with store: true is kept as failed, and paying with its id is a 400 that does not say why', async () => {
      const { sdk } = world()
      const owner = await sdk.buyers.create({ displayName: 'John Doe', externalIdentifier: uniqueId('buyer') })
      const card = freshCard()
      // Amount 200011: the mock card service declines it with insufficient_funds.
      const t = await sdk.transactions.create({ amount: 200011, currency: 'USD', buyerId: owner.id, store: true, paymentMethod: card })
      const failed = (await sdk.paymentMethods.list({ buyerId: owner.id })).result.items
      expect(failed).to.have.length(1)
      const method = failed[0]!
      expectForm(method)
      expect(method).to.deep.equal(expectedMethod(method, card, world().now(), { buyer: owner, status: 'failed' }))
      expect(t).to.deep.equal(
        expectedTransaction(t, world().now(), {
          amount: 200011,
          status: 'authorization_declined',
          authorizedAmount: 0,
          errorCode: 'insufficient_funds',
          rawResponseCode: 'insufficient_funds',
          rawResponseDescription: 'Simulated decline',
          authResponseCode: null,
          paymentServiceTransactionId: null,
          authorizedAt: null,
          intentOutcome: 'failed',
          buyer: transactionBuyer(owner),
          paymentMethod: paidWith(method),
        }),
      )
      expect((await sdk.paymentMethods.list({ buyerId: owner.id, status: ['failed'] })).result.items).to.deep.equal([method])
      expect((await sdk.paymentMethods.list({ buyerId: owner.id, status: ['succeeded'] })).result.items).to.deep.equal([])
      // A failed method cannot pay: not among the buyer's usable ones, and refused by id.
      expect(await sdk.buyers.paymentMethods.list({ buyerId: owner.id })).to.deep.equal({ items: [] })
      const e = await refusedByOrka(
        sdk.transactions.create({ amount: 500, currency: 'USD', paymentMethod: { method: 'id', id: method.id, securityCode: '123' } }),
      )
      expect(e).to.be.instanceOf(Error400)
      expect(e.message).to.equal('Request failed validation')
      expect(JSON.parse(e.body)).to.deep.equal(
        failedValidation({
          pointer: '/payment_method/id',
          message: 'No stored payment method with this id can pay',
          type: 'unknown_payment_method',
        }),
      )
    })

    it('a checkout session whose Secure Fields name a stored method pays with it', async () => {
      const w = world()
      const { sdk } = w
      const card = freshCard()
      const paymentMethod = await sdk.paymentMethods.create(card)
      expect(paymentMethod).to.deep.equal(expectedMethod(paymentMethod, card, w.now()))

      const checkoutSession = await sdk.checkoutSessions.create()
      await putCheckoutSessionStoredMethod(w, checkoutSession.id, paymentMethod.id, '123')
      // The session shows the stored method, never the number.
      const held = await sdk.checkoutSessions.get(checkoutSession.id)
      expect(held.paymentMethod).to.deep.equal({
        type: 'payment-method',
        method: 'card',
        id: paymentMethod.id,
        label: paymentMethod.label,
        scheme: 'visa',
        fingerprint: paymentMethod.fingerprint,
        details: { bin: card.number.slice(0, 6), cardType: null },
      })

      const transaction = await sdk.transactions.create({
        amount: 1299,
        currency: 'USD',
        paymentMethod: { method: 'checkout-session', id: checkoutSession.id },
      })
      expect(transaction.id).to.match(UUID_RE)
      expect(transaction.status).to.equal('authorization_succeeded')
      expect(transaction.amount).to.equal(1299)
      expect(transaction).to.deep.equal(
        expectedTransaction(transaction, w.now(), { checkoutSessionId: checkoutSession.id, paymentMethod: paidWith(paymentMethod) }),
      )
      const now = w.now()
      expect(await sdk.paymentMethods.get(paymentMethod.id)).to.deep.equal({
        ...paymentMethod,
        usageCount: 1,
        citUsageCount: 1,
        lastUsedAt: now,
        citLastUsedAt: now,
      })
    })
  })
})
