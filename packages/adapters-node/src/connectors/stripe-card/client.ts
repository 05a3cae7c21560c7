import { boundedJson, fetchProvider } from '../provider-http'
import { formEncode, FormValue } from './form'

/** The API version Orka's requests and parsing are written against (`Stripe-Version` on every call): stripe-mock's document's. */
export const STRIPE_API_VERSION = '2026-08-26.dahlia'

export interface StripeCall {
  readonly method: 'GET' | 'POST'
  readonly path: string
  readonly params?: Readonly<Record<string, FormValue>>
  /** Stripe runs a request with a key it has seen once, and answers every repeat as the first (for 24 hours). */
  readonly idempotencyKey?: string
}

export interface StripeAnswer {
  readonly status: number
  readonly body: unknown
}

export { MAX_ANSWER_BYTES, NotSent } from '../provider-http'

/**
 * One call to Stripe's API at `base`, within `signal`. Rejects with `NotSent` when no connection
 * was made, and with the fetch error otherwise (the call may have been received). The secret key
 * goes in the header only; nothing here is logged.
 */
export const callStripe = async (base: string, secretKey: string, call: StripeCall, signal: AbortSignal): Promise<StripeAnswer> => {
  const form = call.params === undefined ? '' : formEncode(call.params)
  const url = call.method === 'GET' && form !== '' ? `${base}${call.path}?${form}` : `${base}${call.path}`
  const res = await fetchProvider('Stripe', url, {
    method: call.method,
    headers: {
      Authorization: `Bearer ${secretKey}`,
      'Stripe-Version': STRIPE_API_VERSION,
      ...(call.method === 'POST' ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
      ...(call.idempotencyKey === undefined ? {} : { 'Idempotency-Key': call.idempotencyKey }),
    },
    ...(call.method === 'POST' ? { body: form } : {}),
    redirect: 'error',
    signal,
  })
  return { status: res.status, body: await boundedJson(res) }
}
