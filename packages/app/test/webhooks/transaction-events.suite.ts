import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { PaymentServiceRepository, revisionOf } from '@orka/domain'
import { aPaymentServiceRecord } from '@orka/domain/testing'
import { defaultCardServiceId } from '../../src/card-services'
import { get } from '../../src/container'
import { Harness, Page, Resource, startHarness } from '../support/harness'
import { OpenApiDoc } from '../support/openapi'
import { eventually, quietFor, Receiver, startReceiver } from '../support/receiver'
import { expectedSignatures, StorageUnderTest, WEBHOOK_TEST_ENV } from './delivery.suite'

type Json = Record<string, unknown>

const NUMBER = '4111111111111111'
const DECLINED_NUMBER = '4000000000000002'
/** Security codes no payload, log line or amount could hold by chance. */
const CODE = '7391'
const card = (number = NUMBER) => ({ method: 'card', number, expiration_date: '12/35', security_code: CODE })
/** A gift card of the mock service, fresh per storage run (MongoDB keeps balances), ending in `last4`; its PIN one no payload could hold. */
const GIFT_PIN = '86420975'
const giftRun = String(Date.now()).slice(-7)
const giftNumber = (last4: string) => `7300${giftRun}00${last4}`
const gift = (last4: string, amount: number) => ({ number: giftNumber(last4), pin: GIFT_PIN, amount })

/**
 * Issue 23's webhook events, end to end: a subscription, then a payment authorized, captured and
 * refunded, one authorized and voided, one declined by amount and one by card number, one that
 * fails (a service error), one captured at once whose refunds are declined and fail, and one
 * made while the account's only active service is down. Every event reaches the receiver once,
 * signed with the subscription's secret, its payload valid against the OpenAPI document's
 * `webhooks` and its target exactly what `GET` answered for the resource right after the step
 * that raised it; no payload and no log line carries a card number or security code. Runs on
 * each storage.
 */
export const transactionEventsSuite = (storage: string, open: () => StorageUnderTest) =>
  describe(`transaction webhook events (${storage})`, function () {
    this.timeout(60000)
    let h: Harness
    let rx: Receiver
    let s: StorageUnderTest

    beforeEach(async () => {
      s = open()
      rx = await startReceiver()
      h = await startHarness({ env: { ...s.env, ...WEBHOOK_TEST_ENV } })
    })
    afterEach(async () => {
      const set: Partial<{ h: Harness; rx: Receiver; s: StorageUnderTest }> = { h, rx, s }
      await set.h?.close()
      await set.rx?.close()
      await set.s?.drop?.()
    })

    const call = async <T = Json>(method: string, path: string, body?: unknown, status?: number) => {
      const r = await h.request<T>(method, path, { merchantAccount: 'acme', ...(body === undefined ? {} : { body }) })
      if (status !== undefined) expect(r.status, `${method} ${path}: ${r.text}`).to.equal(status)
      return r.body
    }

    it('sends every transaction and refund event once, signed, its target the resource as the API returned it', async () => {
      const sub = await call<Resource & { secret: string }>('POST', '/webhook-subscriptions', { url: `${rx.url}/hook` }, 201)
      /** What each event must carry: its name, and the resource's `GET` right after the step. */
      const expected: { name: string; target: Json }[] = []
      const read = (path: string) => call('GET', path, undefined, 200)
      const tx = (path: string) => read(`/transactions/${path}`)
      const pay = async (body: Json) => (await call<Resource & { status: string }>('POST', '/transactions', body, 201)).id

      // Authorized, captured, refunded in part.
      const a = await pay({ amount: 1299, currency: 'USD', payment_method: card() })
      expected.push({ name: 'transaction.authorized', target: await tx(a) })
      await call('POST', `/transactions/${a}/capture`, { amount: 1000 }, 200)
      expected.push({ name: 'transaction.captured', target: await tx(a) })
      const refund = await call<Resource>('POST', `/transactions/${a}/refunds`, { amount: 300, reason: 'damaged' }, 201)
      expected.push({ name: 'refund.succeeded', target: await read(`/refunds/${refund.id}`) })

      // Authorized, then voided.
      const v = await pay({ amount: 2500, currency: 'EUR', payment_method: card(), external_identifier: 'order-void' })
      expected.push({ name: 'transaction.authorized', target: await tx(v) })
      await call('POST', `/transactions/${v}/void`, undefined, 200)
      expected.push({ name: 'transaction.voided', target: await tx(v) })

      // Declined by amount (insufficient funds) and by card number; failed (a service error).
      const byAmount = await pay({ amount: 200011, currency: 'USD', payment_method: card() })
      expected.push({ name: 'transaction.declined', target: await tx(byAmount) })
      const byCard = await pay({ amount: 1200, currency: 'USD', payment_method: card(DECLINED_NUMBER) })
      expected.push({ name: 'transaction.declined', target: await tx(byCard) })
      const failed = await pay({ amount: 300001, currency: 'USD', payment_method: card() })
      expected.push({ name: 'transaction.failed', target: await tx(failed) })

      // Captured at once; a refund the service declines, one it fails on.
      const c = await pay({ amount: 900000, currency: 'GBP', intent: 'capture', payment_method: card() })
      expected.push({ name: 'transaction.captured', target: await tx(c) })
      const declinedRefund = await call<Resource & { status: string }>('POST', `/transactions/${c}/refunds`, { amount: 200011 }, 201)
      expect(declinedRefund.status).to.equal('declined')
      expected.push({ name: 'refund.declined', target: await read(`/refunds/${declinedRefund.id}`) })
      const failedRefund = await call<Resource & { status: string }>('POST', `/transactions/${c}/refunds`, { amount: 300001 }, 201)
      expect(failedRefund.status).to.equal('failed')
      expected.push({ name: 'refund.failed', target: await read(`/refunds/${failedRefund.id}`) })

      // Split payments: the payloads carry the redemptions. Paid by a card and a gift card; gift
      // cards alone, then a refund to one of them; undone by a gift card short of funds.
      const split = await pay({ amount: 5000, currency: 'USD', payment_method: card(), gift_cards: [gift('1111', 2000)] })
      expected.push({ name: 'transaction.authorized', target: await tx(split) })
      const gifts = await pay({ amount: 3000, currency: 'USD', gift_cards: [gift('2222', 1000), gift('3333', 2000)] })
      const paidByGifts = await tx(gifts)
      expected.push({ name: 'transaction.captured', target: paidByGifts })
      const redemptionId = (paidByGifts.gift_card_redemptions as { id: string }[])[1]?.id
      const giftRefund = await call<Resource>(
        'POST',
        `/transactions/${gifts}/refunds`,
        { amount: 500, target_type: 'gift-card-redemption', target_id: redemptionId },
        201,
      )
      expected.push({ name: 'refund.succeeded', target: await read(`/refunds/${giftRefund.id}`) })
      const undone = await pay({
        amount: 4000,
        currency: 'USD',
        payment_method: card(),
        gift_cards: [gift('4444', 1000), gift('0004', 500)],
      })
      expected.push({ name: 'transaction.voided', target: await tx(undone) })
      expect((expected.at(-1)?.target.gift_card_redemptions as { status: string }[]).map((x) => x.status)).to.deep.equal([
        'succeeded',
        'failed',
      ])

      // Failed: the account's only active service is down (every call a service error).
      const services = get(h.container, PaymentServiceRepository)
      const stored = await services.findById('acme', defaultCardServiceId('acme'))()
      if (E.isLeft(stored) || O.isNone(stored.right)) return expect.fail('no default service')
      await services.write({ ...stored.right.value, active: false, revision: revisionOf(stored.right.value) + 1 })()
      await services.write(
        aPaymentServiceRecord({ merchant_account_id: 'acme', display_name: 'Down', fields: [{ key: 'mode', value: 'down' }] }),
      )()
      const down = await pay({ amount: 1500, currency: 'USD', payment_method: card() })
      expected.push({ name: 'transaction.failed', target: await tx(down) })
      expect(expected.at(-1)?.target.error_code).to.equal('service_error')

      expect(expected.map((e) => e.target.status)).to.deep.equal([
        'authorization_succeeded',
        'capture_succeeded',
        'succeeded',
        'authorization_succeeded',
        'authorization_voided',
        'authorization_declined',
        'authorization_declined',
        'authorization_failed',
        'capture_succeeded',
        'declined',
        'failed',
        'authorization_succeeded',
        'capture_succeeded',
        'succeeded',
        'authorization_voided',
        'authorization_failed',
      ])

      // Every event arrives once (the receiver answers 204: no retry), and nothing more.
      const got = await eventually(
        () => (rx.received.length >= expected.length ? rx.received : undefined),
        `${expected.length} deliveries`,
        20000,
      )
      await quietFor(500)
      expect(got).to.have.length(expected.length)
      const events = got.map((r) => ({ r, event: JSON.parse(r.body) as Json & { id: string; name: string; target: Json } }))
      expect(new Set(events.map((e) => e.event.id)).size, 'distinct events').to.equal(expected.length)

      const doc = (await (await fetch(`${h.url}/openapi.json`)).json()) as OpenApiDoc
      const ajv = new Ajv2020({ strict: false })
      addFormats(ajv)
      const abs = JSON.parse(JSON.stringify(doc).replace(/"#\/components\/schemas\//g, '"urn:orka:openapi#/$defs/')) as OpenApiDoc
      ajv.addSchema({ $id: 'urn:orka:openapi', $defs: abs.components.schemas })

      // Each expected event is one delivered event with exactly that target (matched by name and id).
      for (const e of expected) {
        const matching = events.filter((x) => x.event.name === e.name && x.event.target.id === e.target.id)
        expect(matching, `${e.name} of ${String(e.target.id)}`).to.have.length(1)
        const { r, event } = matching[0]!
        expect(event).to.deep.equal({
          type: 'event',
          id: event.id,
          name: e.name,
          created_at: h.clock.now().toISOString(),
          merchant_account_id: 'acme',
          environment: 'sandbox',
          target: e.target,
        })
        expect(r.headers['x-orka-webhook-id']).to.equal(event.id)
        expect(r.headers['x-orka-webhook-signatures'], 'signature').to.equal(expectedSignatures(r, [sub.secret]))
        const schema = abs.webhooks[e.name]!.post.requestBody.content['application/json']!.schema
        expect(ajv.validate(schema, event), `${e.name}: ${JSON.stringify(ajv.errors)}`).to.equal(true)
      }

      // No card number, no security code, in any payload, delivery or log line.
      for (const r of got) {
        for (const secret of [NUMBER, DECLINED_NUMBER, NUMBER.slice(6), `"${CODE}"`, 'security_code', giftNumber('1111'), GIFT_PIN])
          expect(r.body, `a payload carries ${secret}`).not.to.include(secret)
      }
      const deliveries = await eventually(async () => {
        const page = await call<Page<Json & { status: string; attempts: unknown[] }>>(
          'GET',
          `/webhook-subscriptions/${sub.id}/deliveries?limit=100`,
          undefined,
          200,
        )
        return page.items.length === expected.length && page.items.every((d) => d.status === 'delivered') ? page.items : undefined
      }, 'every delivery delivered')
      expect(deliveries.map((d) => d.attempts.length)).to.deep.equal(expected.map(() => 1))
      const logs = h.logs.join('')
      for (const secret of [NUMBER, DECLINED_NUMBER, `"${CODE}"`, 'security_code', giftNumber('1111'), GIFT_PIN])
        expect(logs, `a log line carries ${secret}`).not.to.include(secret)
      console.log(
        `      ${storage}: ${expected.length} transaction and refund events delivered once each (${[...new Set(expected.map((e) => e.name))].join(', ')})`,
      )
    })
  })
