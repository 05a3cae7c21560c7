import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { AuthorizeRequest, ProviderEvent } from '@orka/domain'
import { aPaymentServiceRecord, cardConnectorContract, right } from '@orka/domain/testing'
import { StripeCardConnector } from '../src/connectors/stripe-card/connector'
import { startStripeDouble, StripeDouble } from '../src/testing/stripe-double'

const WEBHOOK_SECRET = 'whsec_orka_double'
const service = aPaymentServiceRecord({
  payment_service_definition_id: 'stripe-card',
  fields: [
    { key: 'secret_key', value: 'sk_test_orka_double' },
    { key: 'webhook_secret', value: WEBHOOK_SECRET },
  ],
})
const APPROVING = { number: '4242424242424242', expirationDate: '12/34', securityCode: '123' }
const TIMEOUT_MS = 1000

let started: Promise<StripeDouble> | undefined
/** One double for this file's suites, started on first use. */
const theDouble = () => (started ??= startStripeDouble())
after(async () => {
  if (started !== undefined) await (await started).close()
})

cardConnectorContract('stripe-card (the Stripe double)', async () => {
  const d = await theDouble()
  return {
    port: new StripeCardConnector({ baseUrl: d.url, timeoutMs: TIMEOUT_MS }),
    service,
    approvingCard: APPROVING,
    decliningCard: { number: '4000000000000002', expirationDate: '12/34', securityCode: '123' },
    timeoutMs: TIMEOUT_MS,
    unanswered: { amount: d.hangingAmount, card: APPROVING },
    teardown: () => Promise.resolve(),
  }
})

describe('stripe-card through the Stripe double: the lifecycle as Stripe runs it', function () {
  this.timeout(60_000)
  let d: StripeDouble
  let c: StripeCardConnector
  before(async () => {
    d = await theDouble()
    c = new StripeCardConnector({ baseUrl: d.url, timeoutMs: 5000 })
  })
  after(() => {
    // Every answer the double gave in this file validated against Stripe's document.
    expect(d.violations).to.deep.equal([])
  })
  const authorize = (reference: string, o: Partial<AuthorizeRequest> = {}) =>
    right(
      c.authorize({ service, reference, amount: 5000, currency: 'EUR', capture: false, card: APPROVING, billingPostalCode: '10115', ...o }),
    )

  it('checks its answers and events for real: one Stripe’s document does not allow is a violation', () => {
    expect(d.check('/v1/refunds', 'post', 200, { id: 're_1', object: 'refund', amount: '5' })).to.be.a('string')
    expect(d.check('/v1/payment_intents', 'post', 402, { error: { type: 'not_a_type' } })).to.be.a('string')
    d.signedEvent('refund.updated', 'not an object', WEBHOOK_SECRET)
    expect(d.violations.pop()).to.match(/^event refund.updated: /)
  })

  it('holds, captures in part, refunds twice in part, and refuses a refund over what is left', async () => {
    const held = await authorize('tx-10:authorize')
    if (held._tag !== 'Authorized') return expect.fail(JSON.stringify(held))
    expect(held).to.deep.include({ captured: false, avs: 'match', cvv: 'match', cardType: 'credit', rawResponseCode: 'requires_capture' })
    const money = { service, authorization: 'tx-10:authorize', serviceTransactionId: held.serviceTransactionId, currency: 'EUR' }
    expect(await right(c.capture({ ...money, reference: 'tx-10:capture', amount: 3000 }))).to.deep.include({ _tag: 'Succeeded' })
    const first = await right(c.refund({ ...money, reference: 'tx-10:refund-1', amount: 1000 }))
    const second = await right(c.refund({ ...money, reference: 'tx-10:refund-2', amount: 2000 }))
    expect([first._tag, second._tag]).to.deep.equal(['Succeeded', 'Succeeded'])
    expect(first._tag === 'Succeeded' && second._tag === 'Succeeded' && first.serviceId !== second.serviceId).to.equal(true)
    expect(await right(c.refund({ ...money, reference: 'tx-10:refund-3', amount: 1 }))).to.deep.include({
      _tag: 'Declined',
      rawResponseCode: 'charge_already_refunded',
    })
    // A capture after the capture: Stripe's unexpected state, a refusal.
    expect(await right(c.capture({ ...money, reference: 'tx-10:capture-2', amount: 1 }))).to.deep.include({
      _tag: 'Declined',
      rawResponseCode: 'payment_intent_unexpected_state',
    })
  })

  it('declines Stripe’s test cards with Orka’s codes, keeping Stripe’s; a processing error is a failure', async () => {
    const card = (number: string) => ({ ...APPROVING, number })
    const outcomes = []
    for (const [i, n] of ['4000000000009995', '4000000000000069', '4000000000000127', '4000000000000119'].entries()) {
      const r = await authorize(`tx-2${String(i)}:authorize`, { card: card(n) })
      outcomes.push([r._tag, r._tag === 'Authorized' ? null : r.errorCode, r.rawResponseCode])
    }
    expect(outcomes).to.deep.equal([
      ['Declined', 'insufficient_funds', 'insufficient_funds'],
      ['Declined', 'expired_payment_method', 'expired_card'],
      ['Declined', 'incorrect_cvv', 'incorrect_cvc'],
      ['Failed', 'service_error', 'processing_error'],
    ])
  })

  it('sells at once with `capture`, and voids what it holds', async () => {
    expect(await authorize('tx-30:authorize', { capture: true, card: { ...APPROVING, number: '4000056655665556' } })).to.deep.include({
      _tag: 'Authorized',
      captured: true,
      cardType: 'debit',
    })
    const held = await authorize('tx-31:authorize')
    if (held._tag !== 'Authorized') return expect.fail(JSON.stringify(held))
    const voided = await right(
      c.void({ service, reference: 'tx-31:void', authorization: 'tx-31:authorize', serviceTransactionId: held.serviceTransactionId }),
    )
    expect(voided).to.deep.include({ _tag: 'Succeeded', serviceId: held.serviceTransactionId, rawResponseCode: 'canceled' })
  })

  it('verifies a key with a balance read; a key Stripe refuses names the field, never the key', async () => {
    expect(await c.verify(service.fields)()).to.deep.equal(E.right(undefined))
    expect(await c.verify([{ key: 'secret_key', value: 'sk_test_refused' }])()).to.deep.equal(
      E.left({ _tag: 'CredentialsRefused', field: 'secret_key', reason: 'Stripe refused the key' }),
    )
  })

  it('voids an attempt that never reached Stripe: its key was unused, so the probe holds nothing and is cancelled', async () => {
    const before = d.requests.length
    const r = await right(
      c.void({ service, reference: 'tx-40:authorize:void', authorization: 'tx-40:authorize', serviceTransactionId: null }),
    )
    expect(r).to.deep.include({ _tag: 'Succeeded', rawResponseCode: 'canceled' })
    expect(d.requests.slice(before)).to.deep.equal([
      'POST /v1/payment_intents',
      `POST /v1/payment_intents/${String(r._tag === 'Succeeded' && r.serviceId)}/cancel`,
    ])
  })

  it('leaves a lost authorization’s void unknown while Stripe’s search does not show its intent yet, then voids it', async () => {
    const quick = new StripeCardConnector({ baseUrl: d.url, timeoutMs: 500 })
    const lost = {
      service,
      reference: 'tx-41:authorize',
      amount: d.hangingAmount,
      currency: 'EUR',
      capture: false,
      card: APPROVING,
      billingPostalCode: null,
    }
    expect(await quick.authorize(lost)()).to.deep.equal(E.left({ _tag: 'ServiceTimeout', service: 'card' }))
    const voidIt = () =>
      c.void({ service, reference: 'tx-41:authorize:void', authorization: 'tx-41:authorize', serviceTransactionId: null })()
    d.searchLagS = 3600
    try {
      expect(await voidIt()).to.deep.equal(
        E.left({ _tag: 'ServiceFailed', service: 'card', reason: 'Stripe shows no payment for the reference yet' }),
      )
    } finally {
      d.searchLagS = 0
    }
    const voided = await voidIt()
    expect(E.isRight(voided) && voided.right).to.deep.include({ _tag: 'Succeeded', rawResponseCode: 'canceled' })
    // The intent the lost authorization made, found by its reference, is the one cancelled.
    const cancelled = d.requests.filter((r) => r.endsWith('/cancel')).at(-1)
    expect(cancelled).to.equal(
      `POST /v1/payment_intents/${String(E.isRight(voided) && voided.right._tag === 'Succeeded' && voided.right.serviceId)}/cancel`,
    )
  })

  /** The events a webhook the double signed carries, as the connector reads it. */
  const notified = (type: string, object: unknown): readonly ProviderEvent[] => {
    const read = c.readNotification(service.fields, d.signedEvent(type, object, WEBHOOK_SECRET), new Date())
    return E.isRight(read) ? read.right.events : expect.fail(`refused: ${read.left.reason}`)
  }

  it('answers a pending refund Received; a lookup and Stripe’s webhook then tell it succeeded', async () => {
    const sold = await authorize('tx-50:authorize', { capture: true })
    if (sold._tag !== 'Authorized') return expect.fail(JSON.stringify(sold))
    const pi = sold.serviceTransactionId
    const money = { service, authorization: 'tx-50:authorize', serviceTransactionId: pi, currency: 'EUR' }
    const pending = await right(c.refund({ ...money, reference: 'tx-50:refund-1', amount: d.pendingRefundAmount }))
    if (pending._tag !== 'Received' || pending.serviceId === null) return expect.fail(JSON.stringify(pending))
    expect(pending).to.deep.include({ rawResponseCode: 'pending' })
    // Another refund, not awaited, is not told.
    await right(c.refund({ ...money, reference: 'tx-50:refund-2', amount: 100 }))
    const lookup = { service, authorization: 'tx-50:authorize', serviceTransactionId: pi, awaited: ['tx-50:refund-1'] }
    const refundEvent = (status: string, outcome: string) => ({
      id: `lookup:${String(pending.serviceId)}:${status}`,
      name: 'refund',
      kind: 'refund',
      reference: 'tx-50:refund-1',
      serviceTransactionId: pi,
      serviceId: pending.serviceId,
      outcome,
      errorCode: null,
      rawResponseCode: status,
      rawResponseDescription: null,
    })
    const captured = {
      id: `lookup:${pi}:succeeded`,
      name: 'payment_intent',
      kind: 'capture',
      reference: 'tx-50:authorize',
      serviceTransactionId: pi,
      serviceId: d.paymentIntent(pi)?.latest_charge,
      outcome: 'succeeded',
      errorCode: null,
      rawResponseCode: 'succeeded',
      rawResponseDescription: null,
    }
    expect(await right(c.lookup(lookup))).to.deep.equal([refundEvent('pending', 'pending'), captured])
    const settled = d.settleRefund(pending.serviceId, 'succeeded')
    expect(await right(c.lookup(lookup))).to.deep.equal([refundEvent('succeeded', 'succeeded'), captured])
    const [event] = notified('charge.refund.updated', settled)
    expect(event).to.deep.equal({ ...refundEvent('succeeded', 'succeeded'), id: event?.id, name: 'charge.refund.updated' })
    expect(event?.id).to.match(/^evt_/)
    // The refund's key replayed answers as Stripe first did.
    expect(await right(c.refund({ ...money, reference: 'tx-50:refund-1', amount: d.pendingRefundAmount }))).to.deep.equal(pending)
  })

  it('tells a pending refund that failed with Orka’s code, and what failed can be refunded again', async () => {
    const sold = await authorize('tx-51:authorize', { capture: true, amount: d.pendingRefundAmount })
    if (sold._tag !== 'Authorized') return expect.fail(JSON.stringify(sold))
    const money = { service, authorization: 'tx-51:authorize', serviceTransactionId: sold.serviceTransactionId, currency: 'EUR' }
    const pending = await right(c.refund({ ...money, reference: 'tx-51:refund-1', amount: d.pendingRefundAmount }))
    if (pending._tag !== 'Received' || pending.serviceId === null) return expect.fail(JSON.stringify(pending))
    const failed = d.settleRefund(pending.serviceId, 'failed')
    const [event] = notified('refund.failed', failed)
    expect(event).to.deep.include({ kind: 'refund', reference: 'tx-51:refund-1', outcome: 'failed', errorCode: 'canceled_payment_method' })
    const looked = await right(c.lookup({ ...money, awaited: ['tx-51:refund-1'] }))
    expect(looked[0]).to.deep.include({ outcome: 'failed', rawResponseDescription: 'expired_or_canceled_card' })
    expect(await right(c.refund({ ...money, reference: 'tx-51:refund-2', amount: 500 }))).to.deep.include({ _tag: 'Succeeded' })
  })

  it('looks up a cancelled intent as the authorization’s void, as Stripe’s webhook tells it', async () => {
    const held = await authorize('tx-52:authorize')
    if (held._tag !== 'Authorized') return expect.fail(JSON.stringify(held))
    const pi = held.serviceTransactionId
    const lookup = { service, authorization: 'tx-52:authorize', serviceTransactionId: pi, awaited: ['tx-52:void'] }
    // Held, not yet settled either way: nothing to tell.
    expect(await right(c.lookup(lookup))).to.deep.equal([])
    await right(c.void({ service, reference: 'tx-52:void', authorization: 'tx-52:authorize', serviceTransactionId: pi }))
    const voided = {
      kind: 'void',
      reference: 'tx-52:authorize',
      serviceTransactionId: pi,
      serviceId: pi,
      outcome: 'succeeded',
      errorCode: null,
      rawResponseCode: 'canceled',
      rawResponseDescription: null,
    }
    expect(await right(c.lookup(lookup))).to.deep.equal([{ ...voided, id: `lookup:${pi}:canceled`, name: 'payment_intent' }])
    const told = notified('payment_intent.canceled', d.paymentIntent(pi))
    expect(told).to.have.length(1)
    expect(told[0]).to.deep.include({ ...voided, name: 'payment_intent.canceled' })
  })

  it('leaves a lookup unknown when Stripe does not know the intent', async () => {
    expect(await c.lookup({ service, authorization: 'tx-53:authorize', serviceTransactionId: 'pi_unknown', awaited: [] })()).to.deep.equal(
      E.left({ _tag: 'ServiceFailed', service: 'card', reason: 'Stripe answered 404' }),
    )
  })

  it('holds at most its connection limit in flight: a call past it waits, and gives up unsent when none comes free', async () => {
    const one = new StripeCardConnector({ baseUrl: d.url, timeoutMs: 500, maxConnections: 1 })
    const request = (reference: string, amount: number) =>
      one.authorize({ service, reference, amount, currency: 'EUR', capture: false, card: APPROVING, billingPostalCode: null })()
    const before = d.requests.length
    const [hung, waited] = await Promise.all([request('tx-60:authorize', d.hangingAmount), request('tx-61:authorize', 5000)])
    expect([hung, waited]).to.deep.equal([
      E.left({ _tag: 'ServiceTimeout', service: 'card' }),
      E.left({ _tag: 'ServiceTimeout', service: 'card' }),
    ])
    // Turns go first come first served: both cards were made, then the hung intent took the one
    // connection, and the other authorization's intent never left.
    expect(d.requests.slice(before)).to.deep.equal(['POST /v1/payment_methods', 'POST /v1/payment_methods', 'POST /v1/payment_intents'])
    const free = await request('tx-62:authorize', 5000)
    expect(E.isRight(free) && free.right._tag).to.equal('Authorized')
  })
})
