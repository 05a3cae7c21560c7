import { createHash } from 'node:crypto'
import { AuthorizeRequest, CaptureRequest, RefundRequest, VoidRequest } from '@orka/domain'
import { AdyenCall } from './client'

/**
 * Orka's requests as Adyen's Checkout API (v71) takes them: pure, one call each. Adyen keeps
 * Orka's reference as the payment's or modification's `reference`, and deduplicates on it as the
 * idempotency key.
 */

/**
 * Where Adyen would send a shopper back from a redirect: the API requires one on every payment,
 * but Orka takes no redirect (a result that asks for one is a failure), so it names a host that
 * cannot exist (RFC 2606's `.invalid`).
 */
export const RETURN_URL = 'https://orka.invalid/adyen/no-redirect'

/** Adyen takes keys of at most 64 characters: a longer reference is sent as its SHA-256, as stable. */
export const idempotencyKeyOf = (reference: string): string =>
  reference.length <= 64 ? reference : createHash('sha256').update(reference).digest('hex')

const amountOf = (req: { readonly amount: number; readonly currency: string }) => ({
  currency: req.currency.toUpperCase(),
  value: req.amount,
})

const modification = (path: string, reference: string, body: Readonly<Record<string, unknown>>): AdyenCall => ({
  path,
  idempotencyKey: idempotencyKeyOf(reference),
  body: { ...body, reference },
})

const onPayment = (pspReference: string, what: 'captures' | 'cancels' | 'refunds') =>
  `/payments/${encodeURIComponent(pspReference)}/${what}`

/**
 * An authorization: held (`manualCapture`) unless the intent captures, then captured at once
 * (`captureDelayHours: 0`). Orka has no cardholder name nor a whole billing address (Adyen's
 * takes every part or none), so neither is sent.
 */
export const paymentCall = (req: AuthorizeRequest, merchantAccount: string): AdyenCall => ({
  path: '/payments',
  idempotencyKey: idempotencyKeyOf(req.reference),
  body: {
    amount: amountOf(req),
    reference: req.reference,
    merchantAccount,
    paymentMethod: {
      type: 'scheme',
      number: req.card.number,
      expiryMonth: req.card.expirationDate.slice(0, 2),
      expiryYear: `20${req.card.expirationDate.slice(3, 5)}`,
      ...(req.card.securityCode === null ? {} : { cvc: req.card.securityCode }),
    },
    shopperInteraction: 'Ecommerce',
    returnUrl: RETURN_URL,
    ...(req.capture ? { captureDelayHours: 0 } : { additionalData: { manualCapture: 'true' } }),
  },
})

export const captureCall = (req: CaptureRequest, merchantAccount: string): AdyenCall =>
  modification(onPayment(req.serviceTransactionId, 'captures'), req.reference, { merchantAccount, amount: amountOf(req) })

export const refundCall = (req: RefundRequest, merchantAccount: string): AdyenCall =>
  modification(onPayment(req.serviceTransactionId, 'refunds'), req.reference, { merchantAccount, amount: amountOf(req) })

/**
 * Cancels the payment by its pspReference; without one (the authorization's answer was lost),
 * by Orka's reference for it: Adyen's technical cancel, which needs nothing but that reference.
 */
export const cancelCall = (req: VoidRequest, merchantAccount: string): AdyenCall =>
  req.serviceTransactionId === null
    ? modification('/cancels', req.reference, { merchantAccount, paymentReference: req.authorization })
    : modification(onPayment(req.serviceTransactionId, 'cancels'), req.reference, { merchantAccount })

/** The cheapest call Adyen authenticates (it lists the payment methods the account takes). */
export const paymentMethodsCall = (merchantAccount: string): AdyenCall => ({ path: '/paymentMethods', body: { merchantAccount } })
