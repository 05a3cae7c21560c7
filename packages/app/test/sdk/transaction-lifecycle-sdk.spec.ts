import { expect } from 'chai'
import { Transaction, TransactionEvent } from '@gr4vy/sdk/models/components'
import { Error400, Error404, Error409 } from '@gr4vy/sdk/models/errors'
import { errorBody, UUID_RE } from '../support/harness'
import { rejectionOf } from './support'
import {
  APPROVING_CARD,
  cartItem,
  expectedRefund,
  expectedTransaction,
  failedValidation,
  onBothStores,
  refusedByOrka,
  SdkWorld,
  uniqueId,
  unwrapTransaction,
} from './transactions-support'

/**
 * The original API SDK's own transaction lifecycle flows (its
 * `tests/flows/transaction-lifecycle.test.ts`), ported to Orka. Orka answers a capture, void or
 * refund once the card service has, so where the SDK's cases poll until a status shows, these
 * expect it in the answer itself, and the whole resource where they look at one field. SDK
 * 1.10.18 has no `transactions.captures`: captures are read with the SDK's token and header.
 */
onBothStores("the original API SDK's transaction lifecycle against Orka", (world) => {
  /** The SDK's `authorize`: a checkout session, its card through Secure Fields, then a payment of one cart item. */
  const authorize = async (amount: number, intent: 'authorize' | 'capture' = 'authorize') => {
    const { sdk, putCheckoutSessionCard } = world()
    const session = await sdk.checkoutSessions.create()
    await putCheckoutSessionCard(session)
    const externalIdentifier = uniqueId('txn')
    const cartItems = [cartItem({ unitAmount: amount })]
    const t = await sdk.transactions.create({
      amount,
      currency: 'USD',
      intent,
      externalIdentifier,
      cartItems,
      paymentMethod: { method: 'checkout-session', id: session.id },
    })
    const now = world().now()
    const captured: Partial<Transaction> =
      intent === 'capture' ? { status: 'capture_succeeded', capturedAmount: amount, capturedAt: now } : {}
    const fields = { amount, intent, externalIdentifier, cartItems, checkoutSessionId: session.id, ...captured } as const
    expect(t).to.deep.equal(expectedTransaction(t, now, fields))
    return t
  }

  /** A capture as Orka's `/captures` routes answer it (snake case: the SDK has no schema for it). */
  const expectedCapture = (id: string, t: Transaction, amount: number, now: Date, serviceCaptureId: string) => ({
    type: 'capture',
    id,
    merchant_account_id: 'default',
    transaction_id: t.id,
    currency: 'USD',
    amount,
    status: 'succeeded',
    final: true,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    captured_at: now.toISOString(),
    external_identifier: null,
    error_code: null,
    raw_response_code: '00',
    raw_response_description: 'Approved',
    transaction_external_identifier: t.externalIdentifier,
    payment_service_capture_id: serviceCaptureId,
  })

  /** The card service's id of the one capture listed, a UUID from the mock. */
  const serviceCaptureIdOf = (list: { body: { items: { payment_service_capture_id?: unknown }[] } }): string => {
    const id = list.body.items[0]?.payment_service_capture_id
    expect(id, "the card service's id of the capture").to.match(UUID_RE)
    return id as string
  }

  const capturesOf = (w: SdkWorld, t: Transaction) =>
    w.withSdkToken<{ items: { id: string; payment_service_capture_id?: unknown }[] }>('GET', `/transactions/${t.id}/captures`)

  it('authorize → capture (full) → refund (partial, then the rest) → both refunds through every refund accessor', async () => {
    const { sdk } = world()
    const now = world().now()
    const t = await authorize(5000)

    const captured = unwrapTransaction(await sdk.transactions.capture({ transactionId: t.id, transactionCaptureCreate: { amount: 5000 } }))
    const settled = { ...t, status: 'capture_succeeded', capturedAmount: 5000, capturedAt: now } as const
    expect(captured).to.deep.equal(settled)
    expect(await sdk.transactions.get(t.id)).to.deep.equal(settled)

    const partial = await sdk.transactions.refunds.create({ amount: 2000, reason: 'partial' }, t.id)
    expect(partial).to.deep.equal(expectedRefund(partial, t, now, { amount: 2000, reason: 'partial' }))
    expect([partial.id, partial.paymentServiceRefundId]).to.satisfy((ids: string[]) => ids.every((id) => UUID_RE.test(id)))

    const over = await refusedByOrka(sdk.transactions.refunds.create({ amount: 3001 }, t.id))
    expect(over).to.be.instanceOf(Error400)
    expect(JSON.parse(over.body)).to.deep.equal(
      failedValidation({
        pointer: '/amount',
        message: 'The amount is above what is left to refund, 3000',
        type: 'amount_above_refundable',
      }),
    )

    const rest = await sdk.transactions.refunds.all.create(t.id)
    const [full] = rest.items
    if (full === undefined) return expect.fail('refunds/all made no refund')
    expect(rest).to.deep.equal({ items: [expectedRefund(full, t, now, { amount: 3000 })], limit: 20 })

    expect(await sdk.transactions.refunds.list(t.id)).to.deep.equal({ items: [partial, full], limit: 20 })
    expect(await sdk.transactions.refunds.get(t.id, partial.id)).to.deep.equal(partial)
    expect(await sdk.refunds.get(partial.id)).to.deep.equal(partial)
    expect(await sdk.refunds.get(full.id)).to.deep.equal(full)
    expect(await sdk.transactions.get(t.id)).to.deep.equal({ ...settled, refundedAmount: 5000 })

    // Nothing is left to refund (a 409, as any refund a transaction cannot take); another account sees none of it.
    const more = await refusedByOrka(sdk.transactions.refunds.create({ amount: 1 }, t.id))
    expect(more).to.be.instanceOf(Error409)
    const detail = { location: 'unknown', pointer: '', message: 'Nothing is left to refund on this transaction' }
    expect(JSON.parse(more.body)).to.deep.equal({
      ...errorBody(409, [{ ...detail, type: 'invalid_transaction_status' }]),
      resource_id: t.id,
    })
    expect(await rejectionOf(sdk.refunds.get(partial.id, 'acme'))).to.be.instanceOf(Error404)
    expect(await rejectionOf(sdk.transactions.refunds.get(t.id, partial.id, 'acme'))).to.be.instanceOf(Error404)
  })

  it('authorize → capture (part) → the capture read back through list and get; a second capture is a 409', async () => {
    const w = world()
    const now = w.now()
    const t = await authorize(4500)
    const captured = unwrapTransaction(
      await w.sdk.transactions.capture({ transactionId: t.id, transactionCaptureCreate: { amount: 4000 } }),
    )
    expect(captured).to.deep.equal({ ...t, status: 'capture_succeeded', capturedAmount: 4000, capturedAt: now })

    const list = await capturesOf(w, t)
    const id = list.body.items[0]?.id ?? expect.fail('no capture listed')
    const serviceId = serviceCaptureIdOf(list)
    expect(serviceId, 'the capture has its own id at the service').to.not.equal(t.paymentServiceTransactionId)
    expect([list.status, list.body]).to.deep.equal([200, { items: [expectedCapture(id, t, 4000, now, serviceId)] }])
    const one = await w.withSdkToken('GET', `/transactions/${t.id}/captures/${id}`)
    expect([one.status, one.body]).to.deep.equal([200, expectedCapture(id, t, 4000, now, serviceId)])
    const missing = await w.withSdkToken('GET', `/transactions/${t.id}/captures/${t.id}`)
    expect([missing.status, missing.body]).to.deep.equal([404, errorBody(404)])

    expect(await refusedByOrka(w.sdk.transactions.capture({ transactionId: t.id, transactionCaptureCreate: {} }))).to.be.instanceOf(
      Error409,
    )
    expect(await refusedByOrka(w.sdk.transactions.void(t.id))).to.be.instanceOf(Error409)
  })

  it('a capture above what was authorized is a 400, and the transaction stays authorized', async () => {
    const { sdk } = world()
    const t = await authorize(1000)
    const e = await refusedByOrka(sdk.transactions.capture({ transactionId: t.id, transactionCaptureCreate: { amount: 1001 } }))
    expect(e).to.be.instanceOf(Error400)
    expect(JSON.parse(e.body)).to.deep.equal(
      failedValidation({
        pointer: '/amount',
        message: 'The amount is above the authorized amount of 1000',
        type: 'amount_above_authorized',
      }),
    )
    expect(await sdk.transactions.get(t.id)).to.deep.equal(t)
  })

  it('authorize → void releases the authorization at once; then neither capture nor refund nor a second void', async () => {
    const { sdk } = world()
    const t = await authorize(3300)
    const voided = unwrapTransaction(await sdk.transactions.void(t.id))
    const released = { ...t, status: 'authorization_voided', voidedAt: world().now() } as const
    expect(voided).to.deep.equal(released)
    expect(await sdk.transactions.get(t.id)).to.deep.equal(released)
    for (const refused of [
      sdk.transactions.void(t.id),
      sdk.transactions.capture({ transactionId: t.id, transactionCaptureCreate: {} }),
      sdk.transactions.refunds.create({}, t.id),
    ])
      expect(await refusedByOrka(refused)).to.be.instanceOf(Error409)
    expect(await sdk.transactions.refunds.list(t.id)).to.deep.equal({ items: [], limit: 20 })
  })

  it('intent=capture authorizes and captures in one step; the capture made with it is listed', async () => {
    const w = world()
    const t = await authorize(2500, 'capture')
    const list = await capturesOf(w, t)
    const id = list.body.items[0]?.id ?? expect.fail('no capture listed')
    // Captured with the authorization: the service's id of the capture is the authorization's.
    expect(serviceCaptureIdOf(list)).to.equal(t.paymentServiceTransactionId)
    expect(list.body).to.deep.equal({ items: [expectedCapture(id, t, 2500, w.now(), serviceCaptureIdOf(list))] })
  })

  it('answers the wrappers Prefer asks for: a TransactionCapture, a TransactionVoid', async () => {
    const { sdk } = world()
    const now = world().now()
    const outcome = { status: 'succeeded', code: null, rawResponseCode: '00', rawResponseDescription: 'Approved' } as const
    const t = await authorize(1800)
    const prefer = ['resource=transaction-capture']
    const capture = await sdk.transactions.capture({ transactionId: t.id, prefer, transactionCaptureCreate: {} })
    const captured = { ...t, status: 'capture_succeeded', capturedAmount: 1800, capturedAt: now } as const
    expect(capture).to.deep.equal({ type: 'transaction-capture', ...outcome, transaction: captured })
    const other = await authorize(1900)
    const voided = await sdk.transactions.void(other.id, ['resource=transaction-void'])
    const released = { ...other, status: 'authorization_voided', voidedAt: now } as const
    expect(voided).to.deep.equal({ type: 'transaction-void', ...outcome, transaction: released })
  })

  it('exposes actions, events and settlements for a transaction; a settlement by id is a 404', async () => {
    const { sdk } = world()
    const t = await authorize(4200, 'capture')
    expect(await sdk.transactions.actions.list(t.id)).to.deep.equal({ items: [] })
    expect(await sdk.transactions.settlements.list(t.id)).to.deep.equal({ items: [] })
    const events = (await sdk.transactions.events.list(t.id)).result
    expect(events.items.length).to.be.greaterThan(0)
    expect([events.limit, events.nextCursor, events.previousCursor]).to.deep.equal([100, null, null])
    const missing = await rejectionOf(sdk.transactions.settlements.get(t.id, '00000000-0000-4000-8000-000000000000'))
    expect(missing).to.be.instanceOf(Error404)
    expect(await rejectionOf(sdk.transactions.actions.list(t.id, 'acme'))).to.be.instanceOf(Error404)
  })

  it('the events log shows the request, the connector attempt and each status change, never the card, a page at a time', async () => {
    const { sdk } = world()
    const t = await authorize(1200)
    await sdk.transactions.capture({ transactionId: t.id, transactionCaptureCreate: {} })
    await sdk.transactions.refunds.create({ amount: 200 }, t.id)
    const items = (await sdk.transactions.events.list(t.id)).result.items
    const now = world().now()
    const ctx = (n: number) => items[n]?.context ?? {}
    const reference = ctx(1).reference as string
    const captureId = ctx(5).capture_id as string
    const refundId = ctx(8).refund_id as string
    const expected: { name: string; context: Record<string, unknown> }[] = [
      {
        // The request as the SDK sent it (its defaults included), with the session, never a card.
        name: 'transaction-api-request',
        context: {
          amount: 1200,
          currency: 'USD',
          external_identifier: t.externalIdentifier,
          intent: 'authorize',
          cart_items: [{ name: 'Joust Duffle Bag', quantity: 1, unit_amount: 1200 }],
          store: false,
          is_subsequent_payment: false,
          merchant_initiated: false,
          async_capture: false,
          account_funding_transaction: false,
          allow_partial_authorization: false,
          payment_method: { method: 'checkout-session', id: t.checkoutSessionId },
        },
      },
      { name: 'transaction-event', context: { step: 'authorization-requested', payment_service_id: t.paymentService?.id, reference } },
      {
        name: 'payment-connector-response-transaction-authorization-succeeded',
        context: {
          payment_service_id: t.paymentService?.id,
          reference,
          payment_service_transaction_id: t.paymentServiceTransactionId,
          avs: null,
          cvv: 'match',
        },
      },
      { name: 'transaction-updated-status', context: { from: 'processing', to: 'authorization_succeeded' } },
      { name: 'transaction-event', context: { step: 'capture-requested', capture_id: captureId, amount: 1200 } },
      { name: 'payment-connector-response-transaction-capture-succeeded', context: { capture_id: captureId, error_code: null } },
      { name: 'transaction-updated-status', context: { from: 'authorization_succeeded', to: 'capture_succeeded' } },
      { name: 'transaction-event', context: { step: 'refund-requested', refund_id: refundId, amount: 200 } },
      { name: 'refund-succeeded', context: { refund_id: refundId, error_code: null } },
    ]
    expect(items).to.deep.equal(expected.map((e, i) => ({ type: 'transaction-event', id: items[i]?.id, createdAt: now, ...e })))
    expect(new Set(items.map((e) => e.id)).size).to.equal(items.length)
    expect(JSON.stringify(items)).not.to.include(APPROVING_CARD.number)
    expect(reference).to.be.a('string').and.not.equal('')

    const pages: TransactionEvent[][] = []
    for await (const page of await sdk.transactions.events.list(t.id, undefined, 4)) pages.push(page.result.items)
    expect(pages.map((p) => p.length)).to.deep.equal([4, 4, 1])
    expect(pages.flat()).to.deep.equal(items)
  })
})
