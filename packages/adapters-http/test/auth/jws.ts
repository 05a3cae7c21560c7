import { createHmac, KeyObject, sign as cryptoSign } from 'node:crypto'
import { b64, mint, TestKey } from '../support'

/** Order n of the P-521 group (521 bits, SEC 2): (r, s) and (r, n − s) are both valid ECDSA signatures. */
export const P521_N = BigInt(
  '0x01FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFA51868783BF2F966B7FCC0148F709A5D03BB5C9B8899C47AEBB6FB71E91386409',
)
const INT_BYTES = 66

export const segments = (token: string): [string, string, string] => {
  const parts = token.split('.')
  if (parts.length !== 3) throw new Error(`not a three-segment token: ${token.slice(0, 40)}`)
  return parts as [string, string, string]
}

export const signatureOf = (token: string): Buffer => Buffer.from(segments(token)[2], 'base64url')

export const withSignature = (token: string, signature: Buffer | string): string => {
  const [h, p] = segments(token)
  return `${h}.${p}.${typeof signature === 'string' ? signature : signature.toString('base64url')}`
}

const toBigInt = (b: Buffer): bigint => BigInt(`0x${b.toString('hex') || '0'}`)
const toBytes = (n: bigint, len = INT_BYTES): Buffer => {
  const hex = n.toString(16).padStart(len * 2, '0')
  if (hex.length !== len * 2) throw new Error('integer too large')
  return Buffer.from(hex, 'hex')
}

/** r and s of an IEEE P1363 ES512 signature. */
export const rs = (token: string): { r: bigint; s: bigint } => {
  const sig = signatureOf(token)
  return { r: toBigInt(sig.subarray(0, INT_BYTES)), s: toBigInt(sig.subarray(INT_BYTES)) }
}

export const p1363 = (r: bigint, s: bigint): Buffer => Buffer.concat([toBytes(r), toBytes(s)])

/** The other valid signature of the same input: (r, n − s). Exactly one of the pair is "high S" (s > n/2). */
export const highSTwin = (token: string): string => {
  const { r, s } = rs(token)
  return withSignature(token, p1363(r, P521_N - s))
}

export const isHighS = (token: string): boolean => rs(token).s > P521_N / 2n

/** The same `header.payload` signed again: ECDSA picks a fresh nonce, so another valid signature. */
export const resign = (token: string, key: TestKey | KeyObject | string): string => {
  const [h, p] = segments(token)
  const pem: string | KeyObject = typeof key === 'string' || key instanceof KeyObject ? key : key.privateKeyPem
  const signature = cryptoSign('sha512', Buffer.from(`${h}.${p}`), { key: pem as KeyObject, dsaEncoding: 'ieee-p1363' })
  return `${h}.${p}.${signature.toString('base64url')}`
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/**
 * Spellings of a segment that Node's lenient base64url decoder turns into the very same bytes,
 * each labelled. Every one must be refused: accepting it would give one signed content two names.
 */
export const sameBytesSpellings = (seg: string): { label: string; spelling: string }[] => {
  const out: { label: string; spelling: string }[] = []
  const rest = seg.length % 4
  if (rest === 0) out.push({ label: 'one extra trailing character', spelling: `${seg}A` })
  if (rest !== 0) {
    // The last character carries 2 (rest 2) or 4 (rest 3) bits nobody reads.
    const unused = rest === 2 ? 4 : 2
    const last = ALPHABET.indexOf(seg[seg.length - 1]!)
    out.push({ label: 'non-zero unused trailing bits', spelling: `${seg.slice(0, -1)}${ALPHABET[last | ((1 << unused) - 1)]!}` })
  }
  out.push({ label: '= padding', spelling: `${seg}${'='.repeat((4 - rest) % 4 || 1)}` })
  out.push({ label: 'a character outside the alphabet (~)', spelling: `${seg.slice(0, 4)}~${seg.slice(4)}` })
  if (/[-_]/.test(seg)) out.push({ label: 'the standard alphabet (+ and /)', spelling: seg.replace(/-/g, '+').replace(/_/g, '/') })
  for (const o of out) {
    if (!Buffer.from(o.spelling, 'base64url').equals(Buffer.from(seg, 'base64url'))) throw new Error(`${o.label}: not a same-bytes twin`)
    if (o.spelling === seg) throw new Error(`${o.label}: not a different spelling`)
  }
  return out
}

/** Mints until header and payload segments have the asked `length % 4`, and the signature (optionally) a `-` or `_`. */
export const mintShaped = (
  k: TestKey,
  claims: Record<string, unknown>,
  shape: { payloadRest?: 0 | 2 | 3; headerRest?: 0 | 2 | 3; urlCharsInSignature?: boolean } = {},
): string => {
  for (let i = 0; i < 8; i++) {
    for (let j = 0; j < 8; j++) {
      for (let tries = 0; tries < 64; tries++) {
        const header = { alg: 'ES512', kid: k.thumbprint, ...(j === 0 ? {} : { hpad: 'x'.repeat(j) }) }
        const token = mint(k, { ...claims, ...(i === 0 ? {} : { pad: 'x'.repeat(i) }) }, { header: header })
        const [h, p, s] = segments(token)
        if (shape.payloadRest !== undefined && p.length % 4 !== shape.payloadRest) break
        if (shape.headerRest !== undefined && h.length % 4 !== shape.headerRest) break
        if (shape.urlCharsInSignature && !/[-_]/.test(s)) continue
        return token
      }
    }
  }
  throw new Error('could not mint a token of that shape')
}

/** HS* over a hand-made header, e.g. with the public key PEM as the secret (algorithm confusion). */
export const hmacToken = (alg: 'HS256' | 'HS384' | 'HS512', header: Record<string, unknown>, payload: unknown, secret: string): string => {
  const input = `${b64({ ...header, alg })}.${b64(payload)}`
  return `${input}.${createHmac(`sha${alg.slice(2)}`, secret)
    .update(input)
    .digest('base64url')}`
}
