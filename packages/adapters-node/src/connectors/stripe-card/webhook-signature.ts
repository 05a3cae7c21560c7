import { createHmac, timingSafeEqual } from 'node:crypto'

/** How old a signed event may be, in seconds (Stripe's libraries' default). */
export const STRIPE_SIGNATURE_TOLERANCE_S = 300

export type SignatureCheck = { readonly _tag: 'Valid' } | { readonly _tag: 'Invalid'; readonly reason: string }

const invalid = (reason: string): SignatureCheck => ({ _tag: 'Invalid', reason })

/**
 * Whether `payload` (the raw body, as received) is signed by `secret` as Stripe signs its
 * webhooks: `Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.payload">` (several
 * `v1` while a secret rolls), within `toleranceS` of `nowS` either way. Compared in constant
 * time; the reason never quotes the header or the secret.
 */
export const checkStripeSignature = (
  payload: Buffer,
  header: string | undefined,
  secret: string,
  nowS: number,
  toleranceS = STRIPE_SIGNATURE_TOLERANCE_S,
): SignatureCheck => {
  if (header === undefined || header.length > 4096) return invalid('no usable Stripe-Signature header')
  const parts = header.split(',').map((p) => p.trim().split('='))
  const t = parts.find(([k]) => k === 't')?.[1]
  const signatures = parts.filter(([k, v]) => k === 'v1' && v !== undefined && /^[0-9a-f]{64}$/.test(v)).map(([, v]) => v ?? '')
  if (t === undefined || !/^\d{1,12}$/.test(t)) return invalid('the signature has no timestamp')
  if (signatures.length === 0) return invalid('the signature has no v1 scheme')
  if (Math.abs(nowS - Number(t)) > toleranceS) return invalid('the signature is outside the tolerance')
  const expected = createHmac('sha256', secret).update(`${t}.`).update(payload).digest()
  const matches = signatures.some((s) => timingSafeEqual(Buffer.from(s, 'hex'), expected))
  return matches ? { _tag: 'Valid' } : invalid('no signature matches')
}
