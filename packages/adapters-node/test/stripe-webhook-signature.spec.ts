import { expect } from 'chai'
import Stripe from 'stripe'
import { checkStripeSignature } from '../src/connectors/stripe-card/webhook-signature'

/** Headers as Stripe signs them, made by Stripe's own Node library (`generateTestHeaderString`). */
const stripe = new Stripe('sk_test_signatures_only')
const SECRET = 'whsec_orka_test_secret'
const NOW = 1_800_000_000
const payload = Buffer.from(JSON.stringify({ id: 'evt_1', type: 'payment_intent.succeeded', data: { object: { id: 'pi_1' } } }))
const signed = (o: { payload?: string; secret?: string; timestamp?: number } = {}) =>
  stripe.webhooks.generateTestHeaderString({
    payload: o.payload ?? payload.toString(),
    secret: o.secret ?? SECRET,
    timestamp: o.timestamp ?? NOW,
  })

describe('stripe-card: the signature of Stripe’s webhooks', () => {
  it('accepts what Stripe’s own library signs, within the tolerance either way', () => {
    for (const at of [NOW, NOW - 300, NOW + 300])
      expect(checkStripeSignature(payload, signed({ timestamp: at }), SECRET, NOW), String(at)).to.deep.equal({ _tag: 'Valid' })
    // The check agrees with Stripe's library on the same header.
    expect(stripe.webhooks.constructEvent(payload, signed({ timestamp: Math.floor(Date.now() / 1000) }), SECRET).id).to.equal('evt_1')
  })

  it('accepts a header with several v1 signatures while a secret rolls', () => {
    const old = signed({ secret: 'whsec_previous' }).split(',')[1]
    expect(checkStripeSignature(payload, `${signed()},${String(old)}`, SECRET, NOW)).to.deep.equal({ _tag: 'Valid' })
  })

  it('refuses a changed body, another secret, a stale or future timestamp, and a missing or malformed header, saying why without quoting it', () => {
    const cases: [Buffer, string | undefined, string][] = [
      [Buffer.from(payload.toString().replace('pi_1', 'pi_2')), signed(), 'no signature matches'],
      [payload, signed({ secret: 'whsec_other' }), 'no signature matches'],
      [payload, signed({ timestamp: NOW - 301 }), 'the signature is outside the tolerance'],
      [payload, signed({ timestamp: NOW + 301 }), 'the signature is outside the tolerance'],
      [payload, undefined, 'no usable Stripe-Signature header'],
      [payload, 'v1=' + 'a'.repeat(64), 'the signature has no timestamp'],
      [payload, `t=${String(NOW)},v0=${'a'.repeat(64)}`, 'the signature has no v1 scheme'],
      [payload, `t=${String(NOW)},v1=not-hex`, 'the signature has no v1 scheme'],
      [payload, `t=${'9'.repeat(5000)}`, 'no usable Stripe-Signature header'],
    ]
    for (const [body, header, reason] of cases)
      expect(checkStripeSignature(body, header, SECRET, NOW), String(header).slice(0, 40)).to.deep.equal({ _tag: 'Invalid', reason })
  })
})
