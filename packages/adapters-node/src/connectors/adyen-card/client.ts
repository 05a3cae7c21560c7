import { boundedJson, fetchProvider } from '../provider-http'

export interface AdyenCall {
  /** Under the Checkout API's base URL: `/payments`, `/payments/{pspReference}/captures`... */
  readonly path: string
  readonly body: Readonly<Record<string, unknown>>
  /**
   * Adyen runs a request under a key once and answers every repeat as the first (keys live at
   * least 31 days); a repeat while the first is still running is refused as transient (704).
   * At most 64 characters.
   */
  readonly idempotencyKey?: string
}

export interface AdyenAnswer {
  readonly status: number
  readonly body: unknown
  /** Adyen's `Transient-Error: true`: the request may succeed if repeated with the same key (its outcome is unknown). */
  readonly transient: boolean
}

/**
 * One POST to Adyen's Checkout API at `base`, within `signal`. Rejects with `NotSent` when no
 * connection was made, and with the fetch error otherwise (the call may have been received).
 * The API key goes in its header only; nothing here is logged.
 */
export const callAdyen = async (base: string, apiKey: string, call: AdyenCall, signal: AbortSignal): Promise<AdyenAnswer> => {
  const res = await fetchProvider('Adyen', `${base}${call.path}`, {
    method: 'POST',
    headers: {
      'X-API-Key': apiKey,
      'Content-Type': 'application/json',
      Accept: 'application/json',
      ...(call.idempotencyKey === undefined ? {} : { 'Idempotency-Key': call.idempotencyKey }),
    },
    body: JSON.stringify(call.body),
    redirect: 'error',
    signal,
  })
  return { status: res.status, body: await boundedJson(res), transient: res.headers.get('transient-error') === 'true' }
}
