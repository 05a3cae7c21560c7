import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import Stripe from 'stripe'
import { ProviderWebhook } from '@orka/domain'
import { StripeCardConnector } from '../src/connectors/stripe-card/connector'
import { lookupEvents } from '../src/connectors/stripe-card/notifications'
import { stripeMockModule } from '../src/testing/stripe-mock'

/** Headers as Stripe signs them, made by Stripe's own Node library. */
const stripe = new Stripe('sk_test_signatures_only')
const SECRET = 'whsec_orka_notifications'
const NOW = new Date('2027-01-15T10:00:00Z')
const NOW_S = Math.floor(NOW.getTime() / 1000)
const fields = [
  { key: 'secret_key', value: 'sk_test_orka' },
  { key: 'webhook_secret', value: SECRET },
]
// Reading a webhook makes no call: no Stripe behind it.
const connector = new StripeCardConnector({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 1000 })
const REPLY = { contentType: 'application/json', body: '{"received":true}' }

type Obj = Record<string, unknown>
/** Stripe's own example objects (stripe-mock's fixtures), changed where a case says. */
let fixtures: Record<string, Obj>
before(function () {
  this.timeout(300_000)
  fixtures = (JSON.parse(readFileSync(path.join(stripeMockModule(), 'fixtures3.json'), 'utf8')) as { resources: Record<string, Obj> })
    .resources
})
const refund = (o: Obj): Obj => ({
  ...structuredClone(fixtures.refund),
  id: 're_1',
  payment_intent: 'pi_1',
  metadata: { orka_reference: 'tx-1:refund-1' },
  ...o,
})
const intent = (o: Obj): Obj => ({
  ...structuredClone(fixtures.payment_intent),
  id: 'pi_1',
  latest_charge: 'ch_1',
  metadata: { orka_reference: 'tx-1:authorize' },
  ...o,
})
const eventBody = (type: string, object: Obj, id = 'evt_1'): string =>
  JSON.stringify({ ...structuredClone(fixtures.event), id, type, data: { object } })
const header = (payload: string, o: { secret?: string; timestamp?: number } = {}) =>
  stripe.webhooks.generateTestHeaderString({ payload, secret: o.secret ?? SECRET, timestamp: o.timestamp ?? NOW_S })
const signed = (body: string): ProviderWebhook => ({ headers: { 'stripe-signature': header(body) }, body })
const read = (webhook: ProviderWebhook, f = fields) => connector.readNotification(f, webhook, NOW)
const eventsOf = (type: string, object: Obj) => {
  const r = read(signed(eventBody(type, object)))
  if (E.isLeft(r)) return expect.fail(`refused: ${r.left.reason}`)
  expect(r.right.reply).to.deep.equal(REPLY)
  return r.right.events
}

describe('stripe-card: Stripe’s webhook events', () => {
  it('reads a refund’s events by its status, keeping Stripe’s words', () => {
    expect(eventsOf('refund.created', refund({ status: 'pending' }))).to.deep.equal([
      {
        id: 'evt_1',
        name: 'refund.created',
        kind: 'refund',
        reference: 'tx-1:refund-1',
        serviceTransactionId: 'pi_1',
        serviceId: 're_1',
        outcome: 'pending',
        errorCode: null,
        rawResponseCode: 'pending',
        rawResponseDescription: null,
      },
    ])
    const outcome = (type: string, o: Obj) => {
      const [e] = eventsOf(type, refund(o))
      return [e?.name, e?.outcome, e?.errorCode, e?.rawResponseCode, e?.rawResponseDescription]
    }
    expect([
      outcome('refund.updated', { status: 'succeeded' }),
      outcome('refund.updated', { status: 'requires_action' }),
      outcome('refund.failed', { status: 'failed', failure_reason: 'expired_or_canceled_card' }),
      outcome('charge.refund.updated', { status: 'failed', failure_reason: 'lost_or_stolen_card' }),
      outcome('charge.refund.updated', { status: 'canceled' }),
      outcome('refund.updated', { status: 'a_status_stripe_adds_later' }),
    ]).to.deep.equal([
      ['refund.updated', 'succeeded', null, 'succeeded', null],
      ['refund.updated', 'pending', null, 'requires_action', null],
      ['refund.failed', 'failed', 'canceled_payment_method', 'failed', 'expired_or_canceled_card'],
      ['charge.refund.updated', 'failed', 'suspected_fraud', 'failed', 'lost_or_stolen_card'],
      ['charge.refund.updated', 'failed', 'refused_transaction', 'canceled', null],
      ['refund.updated', 'pending', null, 'a_status_stripe_adds_later', null],
    ])
  })

  it('reads a PaymentIntent’s events as the authorization’s capture, void, hold or decline', () => {
    const base = { reference: 'tx-1:authorize', serviceTransactionId: 'pi_1', errorCode: null, rawResponseDescription: null }
    expect(eventsOf('payment_intent.succeeded', intent({ status: 'succeeded' }))).to.deep.equal([
      {
        ...base,
        id: 'evt_1',
        name: 'payment_intent.succeeded',
        kind: 'capture',
        serviceId: 'ch_1',
        outcome: 'succeeded',
        rawResponseCode: 'succeeded',
      },
    ])
    // A cancel is named by the intent, as `void` answers it.
    expect(eventsOf('payment_intent.canceled', intent({ status: 'canceled' }))).to.deep.equal([
      {
        ...base,
        id: 'evt_1',
        name: 'payment_intent.canceled',
        kind: 'void',
        serviceId: 'pi_1',
        outcome: 'succeeded',
        rawResponseCode: 'canceled',
      },
    ])
    expect(eventsOf('payment_intent.amount_capturable_updated', intent({ status: 'requires_capture', latest_charge: null }))).to.deep.equal(
      [
        {
          ...base,
          id: 'evt_1',
          name: 'payment_intent.amount_capturable_updated',
          kind: 'authorization',
          serviceId: null,
          outcome: 'succeeded',
          rawResponseCode: 'requires_capture',
        },
      ],
    )
    const lastError = {
      type: 'card_error',
      code: 'card_declined',
      decline_code: 'insufficient_funds',
      message: 'Your card has insufficient funds.',
    }
    expect(
      eventsOf('payment_intent.payment_failed', intent({ status: 'requires_payment_method', last_payment_error: lastError })),
    ).to.deep.equal([
      {
        ...base,
        id: 'evt_1',
        name: 'payment_intent.payment_failed',
        kind: 'authorization',
        serviceId: 'ch_1',
        outcome: 'failed',
        errorCode: 'insufficient_funds',
        rawResponseCode: 'insufficient_funds',
        rawResponseDescription: 'Your card has insufficient funds.',
      },
    ])
  })

  it('accepts and ignores an event of another type, and one about an object without Orka’s reference', () => {
    expect(
      eventsOf('charge.succeeded', { ...structuredClone(fixtures.charge), metadata: { orka_reference: 'tx-1:authorize' } }),
    ).to.deep.equal([])
    expect(eventsOf('customer.created', structuredClone(fixtures.customer ?? {}))).to.deep.equal([])
    expect(eventsOf('refund.updated', refund({ status: 'succeeded', metadata: {} }))).to.deep.equal([])
    expect(eventsOf('payment_intent.succeeded', intent({ status: 'succeeded', metadata: { other: 'x' } }))).to.deep.equal([])
    // An object that is not the one the type is about says nothing.
    expect(eventsOf('refund.updated', intent({ status: 'succeeded' }))).to.deep.equal([])
  })

  it('refuses what Stripe did not sign with the service’s secret, reading nothing of it', () => {
    const body = eventBody('refund.updated', refund({ status: 'succeeded' }))
    const good = header(body)
    const cases: [string, ProviderWebhook][] = [
      ['a changed body', { headers: { 'stripe-signature': good }, body: body.replace('re_1', 're_2') }],
      ['a stale timestamp', { headers: { 'stripe-signature': header(body, { timestamp: NOW_S - 301 }) }, body }],
      ['a timestamp ahead', { headers: { 'stripe-signature': header(body, { timestamp: NOW_S + 301 }) }, body }],
      ['no header', { headers: { 'content-type': 'application/json' }, body }],
      ['another secret', { headers: { 'stripe-signature': header(body, { secret: 'whsec_someone_else' }) }, body }],
      ['the header twice, as an array', { headers: { 'stripe-signature': [good, good] }, body }],
      ['the header twice, under two spellings', { headers: { 'stripe-signature': good, 'Stripe-Signature': good }, body }],
      ['the header twice, joined as Node joins repeats', { headers: { 'stripe-signature': `${good}, ${good}` }, body }],
      ['an empty array', { headers: { 'stripe-signature': [] }, body }],
    ]
    for (const [what, webhook] of cases) expect(read(webhook), what).to.deep.equal(E.left({ _tag: 'WebhookRefused', reason: 'signature' }))
  })

  it('refuses every webhook while the service has no webhook secret', () => {
    const webhook = signed(eventBody('refund.updated', refund({ status: 'succeeded' })))
    for (const f of [[fields[0]!], [fields[0]!, { key: 'webhook_secret', value: '  ' }]])
      expect(read(webhook, f)).to.deep.equal(E.left({ _tag: 'WebhookRefused', reason: 'not-configured' }))
  })

  it('refuses a signed body that is not a Stripe event as malformed', () => {
    for (const body of [
      'not json',
      '[1]',
      JSON.stringify(refund({})),
      JSON.stringify({ object: 'event', id: 'evt_1', type: 'refund.updated' }),
    ])
      expect(read(signed(body)), body).to.deep.equal(E.left({ _tag: 'WebhookRefused', reason: 'malformed' }))
  })

  it('accepts a header Stripe’s library signed, by either secret while one rolls, in one value or an array of one', () => {
    const body = eventBody('refund.updated', refund({ status: 'succeeded' }))
    const rolling = `${header(body)},${header(body, { secret: 'whsec_previous' }).split(',')[1]!}`
    for (const secret of [SECRET, 'whsec_previous'])
      expect(
        E.isRight(read({ headers: { 'stripe-signature': rolling }, body }, [{ key: 'webhook_secret', value: secret }])),
        secret,
      ).to.equal(true)
    expect(E.isRight(read({ headers: { 'Stripe-Signature': [header(body)] }, body }))).to.equal(true)
    // The same header and body pass Stripe's own check.
    const now = Math.floor(Date.now() / 1000)
    const live = header(body, { timestamp: now })
    expect(stripe.webhooks.constructEvent(body, live, SECRET).id).to.equal('evt_1')
    expect(E.isRight(connector.readNotification(fields, { headers: { 'stripe-signature': live }, body }, new Date(now * 1000)))).to.equal(
      true,
    )
  })

  it('tells nothing from a lookup whose answers are not a list and an intent (outcome unknown)', () => {
    const list = { status: 200, body: { object: 'list', data: [], has_more: false, url: '/v1/refunds' } }
    const pi = { status: 200, body: intent({ status: 'requires_capture' }) }
    expect(lookupEvents(list, pi, [])).to.deep.equal([])
    expect(lookupEvents({ status: 500, body: null }, pi, [])).to.deep.equal({
      _tag: 'ServiceFailed',
      service: 'card',
      reason: 'Stripe answered 500',
    })
    expect(lookupEvents(list, { status: 404, body: { error: {} } }, [])).to.deep.equal({
      _tag: 'ServiceFailed',
      service: 'card',
      reason: 'Stripe answered 404',
    })
  })
})
