import { expect } from 'chai'
import fc from 'fast-check'
import { Transaction } from '@gr4vy/sdk/models/components'
import { Error400, Error404, Error409 } from '@gr4vy/sdk/models/errors'
import { errorBody, IDS, UUID_RE } from '../support/harness'
import { rejectionOf } from './support'
import {
  APPROVING_CARD,
  cardPaymentMethod,
  expectedTransaction,
  expectServiceFields,
  fcParams,
  failedValidation,
  onBothStores,
  refusedByOrka,
  summaryOf,
  uniqueId,
} from './transactions-support'

/**
 * The original API SDK's own end-to-end cases for transactions (its
 * `tests/processing/transactions.test.ts`, and the payment cases of
 * `tests/processing/checkout-sessions.test.ts`), ported to Orka and asserting the whole answer
 * where they assert a field or two. SDK 1.10.18 has no `refundSettlements` and no
 * `incrementAuthorization`: those routes are called with the SDK's token and header. The
 * lifecycle flows are in transaction-lifecycle-sdk.spec.ts.
 */
onBothStores("the original API SDK's transactions against Orka", (world) => {
  describe('entry points', () => {
    it('creates a transaction with card details posted directly: the whole Transaction, authorized', async () => {
      const { sdk, h } = world()
      const externalIdentifier = uniqueId('txn')
      const t = await sdk.transactions.create({ amount: 1299, currency: 'USD', externalIdentifier, paymentMethod: cardPaymentMethod() })
      expect(t).to.deep.equal(expectedTransaction(t, world().now(), { externalIdentifier }))
      expectServiceFields(t)
      expect(await sdk.transactions.get(t.id)).to.deep.equal(t)
      expect(h.logs.join('')).not.to.include(APPROVING_CARD.number)
      // The same card in the same account has the same fingerprint.
      const again = await sdk.transactions.create({ amount: 500, currency: 'USD', paymentMethod: cardPaymentMethod() })
      expect(again.paymentMethod?.fingerprint).to.equal(t.paymentMethod?.fingerprint)
    })

    it('store: true (vaulting the card) for no buyer is a 400 on `store`, and nothing is charged or stored', async () => {
      const { sdk } = world()
      const externalIdentifier = uniqueId('txn')
      const e = await refusedByOrka(
        sdk.transactions.create({ amount: 1299, currency: 'USD', store: true, externalIdentifier, paymentMethod: cardPaymentMethod() }),
      )
      expect(e).to.be.instanceOf(Error400)
      expect(JSON.parse(e.body)).to.deep.equal(
        failedValidation({
          pointer: '/store',
          message: '`store: true` needs a buyer: `buyer_id` or `buyer_external_identifier`',
          type: 'buyer_required',
        }),
      )
      expect(e.message).to.equal('Request failed validation')
      expect((await sdk.transactions.list({ externalIdentifier })).result.items).to.deep.equal([])
    })

    it('a stored payment method (`method: "id"`) the account does not hold is a 400 on `payment_method.id`', async () => {
      const { sdk } = world()
      const e = await refusedByOrka(
        sdk.transactions.create({
          amount: 500,
          currency: 'USD',
          paymentMethod: { method: 'id', id: IDS.defaultBuyer, securityCode: '123' },
        }),
      )
      expect(e).to.be.instanceOf(Error400)
      expect(JSON.parse(e.body)).to.deep.equal(
        failedValidation({
          pointer: '/payment_method/id',
          message: 'No stored payment method with this id can pay',
          type: 'unknown_payment_method',
        }),
      )
    })
  })

  describe('reads and updates', () => {
    it('get and list reflect a created transaction; the status, external identifier and checkout session filters hold', async () => {
      const { sdk, authorizeViaCheckoutSession } = world()
      const created = await authorizeViaCheckoutSession(1299)
      expect(created).to.deep.equal(
        expectedTransaction(created, world().now(), {
          externalIdentifier: created.externalIdentifier,
          checkoutSessionId: created.checkoutSessionId,
        }),
      )
      expect(created.checkoutSessionId).to.match(UUID_RE)
      expect(await sdk.transactions.get(created.id)).to.deep.equal(created)

      const page = (await sdk.transactions.list({})).result
      expect(page.items[0]).to.deep.equal(summaryOf(created))
      expect([page.limit, page.previousCursor]).to.deep.equal([20, null])
      const only = { items: [summaryOf(created)], limit: 20, nextCursor: null, previousCursor: null }
      const ext = created.externalIdentifier!
      expect((await sdk.transactions.list({ externalIdentifier: ext })).result).to.deep.equal(only)
      expect((await sdk.transactions.list({ checkoutSessionId: created.checkoutSessionId! })).result).to.deep.equal(only)
      expect((await sdk.transactions.list({ externalIdentifier: ext, status: ['authorization_succeeded'] })).result).to.deep.equal(only)
      const both = await sdk.transactions.list({ externalIdentifier: ext, status: ['authorization_declined', 'authorization_succeeded'] })
      expect(both.result).to.deep.equal(only)
      const declined = await sdk.transactions.list({ externalIdentifier: ext, status: ['authorization_declined'] })
      expect(declined.result.items).to.deep.equal([])
      expect(await rejectionOf(sdk.transactions.get(created.id, 'acme'))).to.be.instanceOf(Error404)
    })

    it("lists a buyer's transactions newest first, a page at a time through the SDK's page iterator", async () => {
      const { sdk, h } = world()
      const buyer = await sdk.buyers.create({ displayName: 'Paging Buyer', externalIdentifier: uniqueId('buyer') })
      const paid: Transaction[] = []
      for (const amount of [100, 200, 300]) {
        paid.push(await sdk.transactions.create({ amount, currency: 'USD', buyerId: buyer.id, paymentMethod: cardPaymentMethod() }))
        h.clock.advance(1000)
      }
      expect(paid[0]?.buyer).to.deep.equal({
        type: 'buyer',
        id: buyer.id,
        displayName: 'Paging Buyer',
        externalIdentifier: buyer.externalIdentifier,
        billingDetails: null,
        accountNumber: null,
      })
      const pages: string[][] = []
      for await (const page of await sdk.transactions.list({ buyerId: buyer.id, limit: 2 })) pages.push(page.result.items.map((t) => t.id))
      expect(pages).to.deep.equal([[paid[2]!.id, paid[1]!.id], [paid[0]!.id]])
      const byExternal = await sdk.transactions.list({ buyerExternalIdentifier: buyer.externalIdentifier!, amountGte: 200 })
      expect(byExternal.result.items.map((t) => t.amount)).to.deep.equal([300, 200])
    })

    it('update replaces the metadata whole and the external identifier; what is not given stays', async () => {
      const { sdk, authorizeViaCheckoutSession } = world()
      const created = await authorizeViaCheckoutSession(1299, { metadata: { original: 'value' } })
      const externalIdentifier = uniqueId('txn-updated')
      const updated = await sdk.transactions.update({ metadata: { updated: 'value' }, externalIdentifier }, created.id)
      expect(updated).to.deep.equal({ ...created, metadata: { updated: 'value' }, externalIdentifier })
      expect(await sdk.transactions.get(created.id)).to.deep.equal(updated)
      const metadataOnly = await sdk.transactions.update({ metadata: null }, created.id)
      expect(metadataOnly).to.deep.equal({ ...updated, metadata: null })
      expect(await rejectionOf(sdk.transactions.update({ metadata: { k: 'v' } }, created.id, 'acme'))).to.be.instanceOf(Error404)
    })
  })

  describe('properties', () => {
    // Any accepted amount and currency authorizes, and the whole answer echoes them.
    it('authorizes across amounts and currencies, answering the whole Transaction for each', async () => {
      const { authorizeViaCheckoutSession } = world()
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 199_999 }),
          fc.constantFrom('USD', 'EUR', 'GBP', 'JPY', 'SEK', 'CHF', 'BHD'),
          async (amount, currency) => {
            const t = await authorizeViaCheckoutSession(amount, { currency })
            expect(t).to.deep.equal(
              expectedTransaction(t, world().now(), {
                amount,
                currency,
                externalIdentifier: t.externalIdentifier,
                checkoutSessionId: t.checkoutSessionId,
              }),
            )
          },
        ),
        fcParams(5),
      )
    })

    // Metadata is the merchant's: keys in either case convention, dots, dollars and any text come back as sent.
    it('metadata round-trips through create and get unchanged', async () => {
      const { sdk, authorizeViaCheckoutSession } = world()
      const text = (maxLength: number, minLength = 0) =>
        fc.string({ unit: 'grapheme', minLength, maxLength }).filter((s) => !s.includes('\u0000') && Array.from(s).length <= maxLength)
      const key = fc.oneof(fc.constantFrom('orderId', 'campaign', 'order_id', 'internal_note', 'a.b', '$set'), text(40, 1))
      await fc.assert(
        fc.asyncProperty(fc.dictionary(key, text(255), { minKeys: 1, maxKeys: 6 }), async (metadata) => {
          const created = await authorizeViaCheckoutSession(1299, { metadata })
          expect(created.metadata).to.deep.equal(metadata)
          expect((await sdk.transactions.get(created.id)).metadata).to.deep.equal(metadata)
        }),
        fcParams(4),
      )
    })
  })

  describe("routes the mock card service cannot take further (the SDK's request-level cases)", () => {
    const MISSING = '00000000-0000-4000-8000-000000000000'

    it('lists refund settlements as {items: []} and answers a missing one with a 404', async () => {
      const { authorizeViaCheckoutSession, withSdkToken } = world()
      const t = await authorizeViaCheckoutSession(1299)
      const list = await withSdkToken('GET', `/transactions/${t.id}/refund-settlements`)
      expect([list.status, list.body]).to.deep.equal([200, { items: [] }])
      const one = await withSdkToken('GET', `/transactions/${t.id}/refund-settlements/${MISSING}`)
      expect([one.status, one.body]).to.deep.equal([404, errorBody(404)])
    })

    it('incrementing an authorization is a 400 that says it is not supported, and leaves the transaction as it was', async () => {
      const { sdk, authorizeViaCheckoutSession, withSdkToken } = world()
      const t = await authorizeViaCheckoutSession(1299)
      const r = await withSdkToken('POST', `/transactions/${t.id}/authorization/increment`)
      expect([r.status, r.body]).to.deep.equal([
        400,
        failedValidation({
          pointer: '',
          message: 'Incrementing an authorization is not supported by the card service Mock cards (mock-card)',
          type: 'unsupported_operation',
        }),
      ])
      expect(await sdk.transactions.get(t.id)).to.deep.equal(t)
    })

    it('cancel is an SDK Error400 that says it is not supported; sync answers the transaction as it is (the sandbox has nothing more to tell)', async () => {
      const { sdk, authorizeViaCheckoutSession } = world()
      const t = await authorizeViaCheckoutSession(1700)
      const cancel = await refusedByOrka(sdk.transactions.cancel(t.id))
      expect(cancel).to.be.instanceOf(Error400)
      expect(JSON.parse(cancel.body)).to.deep.equal(
        failedValidation({
          pointer: '',
          message: 'Canceling a transaction is not supported by the card service Mock cards (mock-card)',
          type: 'unsupported_operation',
        }),
      )
      expect(await sdk.transactions.sync(t.id)).to.deep.equal(t)
      expect(await sdk.transactions.get(t.id)).to.deep.equal(t)
    })
  })

  describe('declines (the mock card service simulates them)', () => {
    it('amount 200011 is declined with insufficient_funds: a 201 Transaction that says so, nothing authorized', async () => {
      const { sdk } = world()
      const t = await sdk.transactions.create({ amount: 200011, currency: 'USD', paymentMethod: cardPaymentMethod() })
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
        }),
      )
    })

    it('card 4000000000000002 is declined by its issuer; a declined transaction cannot be captured, voided or refunded (409)', async () => {
      const { sdk } = world()
      const t = await sdk.transactions.create({
        amount: 1299,
        currency: 'USD',
        paymentMethod: cardPaymentMethod({ number: '4000000000000002' }),
      })
      expect(t).to.deep.include({
        status: 'authorization_declined',
        errorCode: 'issuer_decline',
        authorizedAmount: 0,
        intentOutcome: 'failed',
        // A decline carries the service's address and security code checks too.
        avsResponseCode: null,
        cvvResponseCode: 'match',
      })
      expect(t.paymentMethod).to.deep.include({ label: '0002', details: { bin: '400000', cardType: null } })
      const capture = await refusedByOrka(sdk.transactions.capture({ transactionId: t.id, transactionCaptureCreate: {} }))
      expect(capture).to.be.instanceOf(Error409)
      expect(JSON.parse(capture.body)).to.deep.equal({
        ...errorBody(409, [
          {
            location: 'unknown',
            pointer: '',
            message: 'A transaction in status authorization declined cannot be captured: only an authorized one can',
            type: 'invalid_transaction_status',
          },
        ]),
        resource_id: t.id,
      })
      expect(await refusedByOrka(sdk.transactions.void(t.id))).to.be.instanceOf(Error409)
      expect(await refusedByOrka(sdk.transactions.refunds.create({ amount: 100 }, t.id))).to.be.instanceOf(Error409)
      expect(await sdk.transactions.get(t.id)).to.deep.equal(t)
    })
  })

  describe("paying with a checkout session (the SDK's checkout session payment cases)", () => {
    const noCardData = failedValidation({
      pointer: '/payment_method/id',
      message: 'The checkout session holds no card data',
      type: 'no_card_data',
    })

    it('pays once with a session whose card Secure Fields stored; the session then holds no card, and a second payment is a 400', async () => {
      const { sdk, putCheckoutSessionCard } = world()
      const session = await sdk.checkoutSessions.create()
      await putCheckoutSessionCard(session)
      const paymentMethod = { method: 'checkout-session', id: session.id } as const
      const t = await sdk.transactions.create({ amount: 1299, currency: 'USD', paymentMethod })
      expect(t).to.deep.equal(expectedTransaction(t, world().now(), { checkoutSessionId: session.id }))
      expect((await sdk.checkoutSessions.get(session.id)).paymentMethod).to.equal(null)
      const again = await refusedByOrka(sdk.transactions.create({ amount: 1299, currency: 'USD', paymentMethod }))
      expect(JSON.parse(again.body)).to.deep.equal(
        failedValidation({
          pointer: '/payment_method/id',
          message: 'The checkout session was used for another transaction',
          type: 'used_checkout_session',
        }),
      )
    })

    it('a session without card data is an Error400 "Request failed validation" that says so', async () => {
      const { sdk } = world()
      const session = await sdk.checkoutSessions.create()
      const e = await refusedByOrka(
        sdk.transactions.create({ amount: 1299, currency: 'USD', paymentMethod: { method: 'checkout-session', id: session.id } }),
      )
      expect(e).to.be.instanceOf(Error400)
      expect(e.message).to.equal('Request failed validation')
      expect(JSON.parse(e.body)).to.deep.equal(noCardData)
    })

    it('a stored payment method the account does not hold is refused by Secure Fields (400 on `payment_method.id`), so the session pays nothing', async () => {
      const { sdk, h } = world()
      const session = await sdk.checkoutSessions.create()
      const fields = await h.request('PUT', `/checkout/sessions/${session.id}/fields`, {
        auth: null,
        body: { payment_method: { method: 'id', id: IDS.defaultBuyer, security_code: '123' } },
      })
      const detail = { location: 'body', pointer: '/payment_method/id', message: 'No stored payment method with this id can pay' }
      expect([fields.status, fields.body]).to.deep.equal([400, errorBody(400, [{ ...detail, type: 'unknown_payment_method' }])])
      const e = await refusedByOrka(
        sdk.transactions.create({ amount: 1299, currency: 'USD', paymentMethod: { method: 'checkout-session', id: session.id } }),
      )
      expect(JSON.parse(e.body)).to.deep.equal(noCardData)
    })
  })
})
