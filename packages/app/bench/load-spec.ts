/** What a load generator is asked to send, and what it reports back (JSON between processes). */
export interface LoadSpec {
  readonly url: string
  readonly method: 'GET' | 'POST'
  readonly headers: Readonly<Record<string, string>>
  /**
   * Sent as is, or with `{{card}}` replaced per request by a distinct 19-digit card number, and
   * each `{{gift:K}}` (K a digit, 1 to 9) by a distinct 19-digit gift card number.
   */
  readonly body?: string
  /**
   * Card numbers of this run are `41234555` + (cardBase + n, 10 digits) + `1`, gift card K's
   * `720000` + K + (cardBase + n, 11 digits) + `1`: never a mock's special ending.
   */
  readonly cardBase?: number
  /** A fresh `idempotency-key` per request. */
  readonly idempotencyKeys?: boolean
  /** Tokens, one per line: request n carries token `from + n`, each used once; the run is `count` requests. */
  readonly tokens?: { readonly file: string; readonly from: number; readonly count: number }
  /**
   * Ids, one per line: request n has `{{id}}` in its body replaced by id `from + n`, each used
   * once, and the run is `count` requests. With `reuse` (a reference that stores nothing), a
   * `seconds` run that cycles through them instead.
   */
  readonly ids?: { readonly file: string; readonly from: number; readonly count: number; readonly reuse?: boolean }
  /** Every response's body must contain this (a 201 may still be the wrong answer). */
  readonly bodyIncludes?: string
  /** Exactly this many requests (instead of `seconds`). */
  readonly amount?: number
  readonly connections: number
  /** Duration of a run without `tokens` or `amount`. */
  readonly seconds: number
}

export interface LoadResult {
  /** Responses received. */
  readonly requests: number
  readonly seconds: number
  readonly rps: number
  /** Latency of every response, ms. */
  readonly p50: number
  readonly p99: number
  /** Responses per HTTP status. */
  readonly statuses: Readonly<Record<string, number>>
  /** Connection errors and timeouts. */
  readonly errors: number
  /** Errors by code or message (the first few kinds). */
  readonly errorKinds?: Readonly<Record<string, number>>
  /** Responses whose body lacks `bodyIncludes`, and the first of them. */
  readonly unexpectedBodies?: number
  readonly unexpectedBody?: string
}

/** How many requests a spec sends when that is set (each token or id once), else undefined (a timed run). */
export const requestCount = (spec: LoadSpec): number | undefined =>
  spec.tokens?.count ?? (spec.ids !== undefined && spec.ids.reuse !== true ? spec.ids.count : spec.amount)

export const cardNumber = (base: number, n: number): string => `41234555${String(base + n).padStart(10, '0')}1`

/** `{{gift:K}}` of a body: gift card K of the request. */
export const GIFT_CARD_SLOT = /\{\{gift:([1-9])\}\}/g

export const giftCardNumber = (base: number, n: number, k: number): string => `720000${k}${String(base + n).padStart(11, '0')}1`

/** The body of request n: its card number and gift card numbers in place. */
export const numbersIn = (body: string, base: number, n: number): string =>
  body.replace('{{card}}', cardNumber(base, n)).replace(GIFT_CARD_SLOT, (_, k: string) => giftCardNumber(base, n, Number(k)))

/** Nearest-rank percentile of ascending samples. */
export const percentile = (sorted: ArrayLike<number>, p: number): number => {
  if (sorted.length === 0) return Number.NaN
  const v = sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
  return v ?? Number.NaN
}
