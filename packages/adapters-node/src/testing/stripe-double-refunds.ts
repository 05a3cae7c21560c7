import { Answer, error, Maker, Obj, obj } from './stripe-double-support'

/** Refunds of this amount answer `pending`, as Stripe's do while the bank has not settled them, until `settleRefund`. */
export const PENDING_REFUND_AMOUNT = 777

/** The refunds of the double's intents: made, settled later when pending, listed by intent. */
export interface RefundBook {
  create(paid: Obj | undefined, p: Obj): Answer
  /** Newest first, as Stripe lists them. */
  list(paymentIntent: string): Obj[]
  settle(id: string, status: 'succeeded' | 'failed'): Obj
}

export const refundBook = (make: Maker): RefundBook => {
  const refunds = new Map<string, Obj>()
  const refunded = new Map<string, number>()
  const add = (intent: string, amount: number) => refunded.set(intent, (refunded.get(intent) ?? 0) + amount)
  return {
    create: (paid, p) => {
      if (paid === undefined) return error(400, { type: 'invalid_request_error', code: 'resource_missing', param: 'payment_intent' })
      const left = Number(paid.amount_received) - (refunded.get(String(paid.id)) ?? 0)
      const amount = p.amount === undefined ? left : Number(p.amount)
      if (paid.status !== 'succeeded' || amount > left || amount < 1)
        return error(400, { type: 'invalid_request_error', code: 'charge_already_refunded' })
      add(String(paid.id), amount)
      const refund = make.fixture('refund')
      Object.assign(refund, {
        id: make.id('re'),
        amount,
        currency: paid.currency,
        payment_intent: paid.id,
        charge: typeof paid.latest_charge === 'string' ? paid.latest_charge : String(obj(paid.latest_charge).id),
        status: amount === PENDING_REFUND_AMOUNT ? 'pending' : 'succeeded',
        metadata: obj(p.metadata),
        created: make.now(),
      })
      refunds.set(String(refund.id), refund)
      // A copy: a key replayed after the refund settles answers as the first time, as Stripe's do.
      return { status: 200, body: structuredClone(refund) }
    },
    list: (paymentIntent) => [...refunds.values()].filter((r) => r.payment_intent === paymentIntent).reverse(),
    settle: (id, status) => {
      const refund = refunds.get(id)
      if (refund?.status !== 'pending') throw new Error(`the Stripe double has no pending refund ${id}`)
      refund.status = status
      if (status === 'failed') {
        // What failed goes back to the payment, to be refunded again.
        refund.failure_reason = 'expired_or_canceled_card'
        add(String(refund.payment_intent), -Number(refund.amount))
      }
      return structuredClone(refund)
    },
  }
}
