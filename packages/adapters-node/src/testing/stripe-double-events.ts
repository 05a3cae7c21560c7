import { createHmac } from 'node:crypto'
import { STRIPE_API_VERSION } from '../connectors/stripe-card/client'
import { Maker, Obj } from './stripe-double-support'

/** An event object as Stripe sends one about `object`, made at `atS`. */
export const stripeEvent = (make: Maker, type: string, object: unknown, atS: number): Obj =>
  Object.assign(make.fixture('event'), {
    id: make.id('evt'),
    type,
    created: atS,
    api_version: STRIPE_API_VERSION,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: { object },
  })

/** `Stripe-Signature` as Stripe signs a webhook: HMAC-SHA256 of `<t>.<body>` with the endpoint's secret. */
export const stripeSignature = (body: string, secret: string, atS: number): string =>
  `t=${String(atS)},v1=${createHmac('sha256', secret)
    .update(`${String(atS)}.${body}`)
    .digest('hex')}`
