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

/** The most of an answer read: Stripe's are a few KB; past this it is not an answer of Stripe's (parsed as none). */
export const MAX_ANSWER_BYTES = 1 << 20

/** The answer's text, up to `MAX_ANSWER_BYTES`: a longer one is cut off (and then fails to parse). */
const boundedText = async (res: Response): Promise<string> => {
  if (res.body === null) return ''
  const reader = (res.body as ReadableStream<Uint8Array>).getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value)
    size += value.byteLength
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel()
      break
    }
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** The call did not reach Stripe (refused, no such host): nothing happened there. */
export class NotSent extends Error {}

const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])
const causeCode = (e: unknown): string | undefined => {
  const cause = (e as { cause?: { code?: unknown } } | null)?.cause
  return typeof cause?.code === 'string' ? cause.code : undefined
}

/**
 * One call to Stripe's API at `base`, within `signal`. Rejects with `NotSent` when no connection
 * was made, and with the fetch error otherwise (the call may have been received). The secret key
 * goes in the header only; nothing here is logged.
 */
export const callStripe = async (base: string, secretKey: string, call: StripeCall, signal: AbortSignal): Promise<StripeAnswer> => {
  const form = call.params === undefined ? '' : formEncode(call.params)
  const url = call.method === 'GET' && form !== '' ? `${base}${call.path}?${form}` : `${base}${call.path}`
  let res: Response
  try {
    res = await fetch(url, {
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
  } catch (e) {
    if (NOT_SENT.has(causeCode(e) ?? '')) throw new NotSent('Stripe could not be reached', { cause: e })
    throw e
  }
  const text = await boundedText(res)
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    body = null
  }
  return { status: res.status, body }
}
