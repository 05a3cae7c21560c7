import { createPublicKey, generateKeyPairSync, KeyObject, sign as cryptoSign } from 'node:crypto'
import { expect } from 'chai'
import * as TE from 'fp-ts/TaskEither'
import { sign } from 'jsonwebtoken'
import { notFound } from '@orka/domain'
import { createHttpApp, HttpDeps, isServed, MAX_TOKEN_BYTES, OPERATIONS } from '../src'
import { recordingDeps, UNAUTHORIZED_BODY } from './auth/app-fixture'
import {
  highSTwin,
  hmacToken,
  isHighS,
  mintShaped,
  P521_N,
  p1363,
  resign,
  rs,
  sameBytesSpellings,
  segments,
  signatureOf,
  withSignature,
} from './auth/jws'
import { b64, CaptureLog, FakeKeys, keyPair, listen, mint, newP521Key, T0, TestKey } from './support'

/**
 * Hostile tokens, through the real HTTP app: every case is a 401 with the spec's exact body and
 * `WWW-Authenticate: Bearer`, and none gets as far as the domain (every use case, the limiter
 * and authorization included, records its calls; there must be none).
 *
 * Decisions recorded here:
 * - `jku`, `x5u`, `jwk`, `x5c` are never honoured and otherwise ignored: a token signed by the
 *   stored key for its `kid` passes with them, a token signed by any key they name fails (its
 *   signature is checked against the stored key, or its `kid` is unknown).
 * - `crit` is refused whatever it lists: we implement no extension (RFC 7515 §4.1.11).
 * - High-S signatures are valid; the rate-limit identity of a token is what was signed
 *   (`header.payload`), so a twin is the same caller.
 */

const SCOPES = ['roles.read', 'gift-cards.write', 'checkout-sessions.write']
const ACTIVATION = JSON.stringify({ number: '4123456789010001' })

interface Keys {
  /** In the store, live. */
  readonly ours: TestKey
  /** Not in the store. */
  readonly attacker: TestKey
  /** In the store, revoked. */
  readonly revoked: TestKey
  readonly rsaPem: string
  readonly p256Pem: string
  readonly p384Pem: string
  readonly ed25519: KeyObject
}

/** What one case sends: a token (sent as `Bearer <token>`), or a whole Authorization value. */
type Credential = { token: string } | { authorization: string }
interface Case {
  readonly name: string
  /** What the log must give as the reason: the case is refused for its flaw, not by accident. */
  readonly why: RegExp
  readonly build: (k: Keys) => Credential
}

const claims = (over: Record<string, unknown> = {}) => ({ scopes: SCOPES, exp: T0 + 60, ...over })
const header = (k: TestKey, over: Record<string, unknown> = {}) => ({ alg: 'ES512', kid: k.thumbprint, ...over })

/** A genuine ES512 signature over a hand-made header and payload (a raw string is taken as is). */
const signed = (h: unknown, p: unknown, signer: TestKey | string | KeyObject): string => {
  const input = `${b64(h)}.${b64(p)}`
  const key = typeof signer === 'string' || signer instanceof KeyObject ? signer : signer.privateKeyPem
  return `${input}.${cryptoSign('sha512', Buffer.from(input), { key: key as KeyObject, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`
}
const ours =
  (h: Record<string, unknown>, p: unknown = claims()) =>
  (k: Keys) => ({ token: signed(header(k.ours, h), p, k.ours) })
const tok = (f: (k: Keys) => string) => (k: Keys) => ({ token: f(k) })
const valid = (k: Keys) => mint(k.ours, claims())
const publicJwk = (t: TestKey) => {
  const { kty, crv, x, y } = createPublicKey(t.publicKeyPem).export({ format: 'jwk' })
  return { kty, crv, x, y }
}
/** Not a certificate, but what a careless `x5c` reader would take the key from. */
const spki = (t: TestKey) => createPublicKey(t.publicKeyPem).export({ type: 'spki', format: 'der' }).toString('base64')

/** The signature segment of a valid token swapped for `sig`. */
const sig = (f: (k: Keys, r: bigint, s: bigint) => Buffer) => (k: Keys) => {
  const t = valid(k)
  const { r, s } = rs(t)
  return { token: withSignature(t, f(k, r, s)) }
}
/** One non-canonical spelling of segment `which` of a well-shaped valid token. */
const spelling = (which: 0 | 1 | 2, label: string, shape: Parameters<typeof mintShaped>[2]) => (k: Keys) => {
  const t = mintShaped(k.ours, claims(), shape)
  const v = sameBytesSpellings(segments(t)[which]).find((x) => x.label === label)
  if (!v) throw new Error(`no spelling "${label}" for this shape`)
  const parts = segments(t)
  parts[which] = v.spelling
  return { token: parts.join('.') }
}

const CASES: readonly Case[] = [
  // alg
  {
    name: 'alg none, empty signature',
    why: /segments/,
    build: (k) => ({ token: `${b64(header(k.ours, { alg: 'none' }))}.${b64(claims())}.` }),
  },
  {
    name: 'alg none (jsonwebtoken)',
    why: /segments/,
    build: (k) => ({ token: sign(claims(), '', { algorithm: 'none', keyid: k.ours.thumbprint, noTimestamp: true }) }),
  },
  { name: 'alg none with a genuine ES512 signature', why: /alg/, build: ours({ alg: 'none' }) },
  { name: 'alg None', why: /alg/, build: ours({ alg: 'None' }) },
  { name: 'alg NONE', why: /alg/, build: ours({ alg: 'NONE' }) },
  { name: 'alg es512 (lower case)', why: /alg/, build: ours({ alg: 'es512' }) },
  { name: 'alg missing', why: /alg/, build: (k) => ({ token: signed({ kid: k.ours.thumbprint }, claims(), k.ours) }) },
  { name: 'alg as an array', why: /alg/, build: ours({ alg: ['ES512'] }) },
  { name: 'HS256 with a random secret', why: /alg/, build: tok((k) => hmacToken('HS256', header(k.ours), claims(), 'secret')) },
  { name: 'HS384 with a random secret', why: /alg/, build: tok((k) => hmacToken('HS384', header(k.ours), claims(), 'secret')) },
  { name: 'HS512 with a random secret', why: /alg/, build: tok((k) => hmacToken('HS512', header(k.ours), claims(), 'secret')) },
  {
    name: 'HS256 with the public key PEM as secret',
    why: /alg/,
    build: tok((k) => hmacToken('HS256', header(k.ours), claims(), k.ours.publicKeyPem)),
  },
  {
    name: 'HS384 with the public key PEM as secret',
    why: /alg/,
    build: tok((k) => hmacToken('HS384', header(k.ours), claims(), k.ours.publicKeyPem)),
  },
  {
    name: 'HS512 with the public key PEM as secret',
    why: /alg/,
    build: tok((k) => hmacToken('HS512', header(k.ours), claims(), k.ours.publicKeyPem)),
  },
  { name: 'HS512 with the kid as secret', why: /alg/, build: tok((k) => hmacToken('HS512', header(k.ours), claims(), k.ours.thumbprint)) },
  {
    name: 'RS256',
    why: /alg/,
    build: tok((k) => sign(claims(), k.rsaPem, { algorithm: 'RS256', keyid: k.ours.thumbprint, noTimestamp: true })),
  },
  {
    name: 'PS512',
    why: /alg/,
    build: tok((k) => sign(claims(), k.rsaPem, { algorithm: 'PS512', keyid: k.ours.thumbprint, noTimestamp: true })),
  },
  {
    name: 'ES256 on a P-256 key',
    why: /alg/,
    build: tok((k) => sign(claims(), k.p256Pem, { algorithm: 'ES256', keyid: k.ours.thumbprint, noTimestamp: true })),
  },
  {
    name: 'ES384 on a P-384 key (wrong curve for the key)',
    why: /alg/,
    build: tok((k) => sign(claims(), k.p384Pem, { algorithm: 'ES384', keyid: k.ours.thumbprint, noTimestamp: true })),
  },
  { name: 'alg ES512 with a P-256 signature', why: /wrong length/, build: tok((k) => signed(header(k.ours), claims(), k.p256Pem)) },
  { name: 'alg ES512 with a P-384 signature', why: /wrong length/, build: tok((k) => signed(header(k.ours), claims(), k.p384Pem)) },
  {
    name: 'EdDSA',
    why: /alg/,
    build: (k) => {
      const input = `${b64(header(k.ours, { alg: 'EdDSA' }))}.${b64(claims())}`
      return { token: `${input}.${cryptoSign(null, Buffer.from(input), k.ed25519).toString('base64url')}` }
    },
  },
  // signature
  { name: 'zero-length signature', why: /segments/, build: tok((k) => withSignature(valid(k), '')) },
  { name: 'all-zero signature (r = s = 0, CVE-2022-21449, 132 zero bytes)', why: /bad signature/, build: sig(() => Buffer.alloc(132)) },
  { name: 'all-0xFF signature (r, s > n)', why: /bad signature/, build: sig(() => Buffer.alloc(132, 0xff)) },
  { name: 'r = 0 with the genuine s', why: /bad signature/, build: sig((_k, _r, s) => p1363(0n, s)) },
  { name: 'genuine r with s = 0', why: /bad signature/, build: sig((_k, r) => p1363(r, 0n)) },
  { name: 'r = s = n', why: /bad signature/, build: sig(() => p1363(P521_N, P521_N)) },
  { name: 'genuine r with s + n (same s mod n)', why: /bad signature/, build: sig((_k, r, s) => p1363(r, s + P521_N)) },
  { name: 'r = s = 1', why: /bad signature/, build: sig(() => p1363(1n, 1n)) },
  {
    name: 'psychic signature in DER (30 06 02 01 00 02 01 00)',
    why: /wrong length/,
    build: tok((k) => withSignature(valid(k), Buffer.from('3006020100020100', 'hex'))),
  },
  {
    name: 'a genuine signature in DER instead of IEEE P1363',
    why: /wrong length/,
    build: tok((k) => {
      const [h, p] = segments(valid(k))
      return `${h}.${p}.${cryptoSign('sha512', Buffer.from(`${h}.${p}`), k.ours.privateKeyPem).toString('base64url')}`
    }),
  },
  {
    name: 'signature cut to 131 bytes',
    why: /wrong length/,
    build: tok((k) => withSignature(valid(k), signatureOf(valid(k)).subarray(0, 131))),
  },
  {
    name: 'signature with a 133rd byte',
    why: /wrong length/,
    build: tok((k) => withSignature(valid(k), Buffer.concat([signatureOf(valid(k)), Buffer.alloc(1)]))),
  },
  { name: 'signature with one bit flipped', why: /bad signature/, build: sig((_k, r, s) => p1363(r, s ^ 1n)) },
  {
    name: 'payload changed (scopes widened), original signature',
    why: /bad signature/,
    build: tok((k) => {
      const [h, , s] = segments(valid(k))
      return `${h}.${b64(claims({ scopes: ['*.read', '*.write'] }))}.${s}`
    }),
  },
  {
    name: 'header changed (typ added), original signature',
    why: /bad signature/,
    build: tok((k) => {
      const [, p, s] = segments(valid(k))
      return `${b64(header(k.ours, { typ: 'JWT' }))}.${p}.${s}`
    }),
  },
  {
    name: 'signature of another genuine token',
    why: /bad signature/,
    build: tok((k) => withSignature(mint(k.ours, claims()), signatureOf(mint(k.ours, claims({ scopes: ['roles.read'] }))))),
  },
  {
    name: 'signed by another key under our kid',
    why: /bad signature/,
    build: tok((k) => mint(k.attacker, claims(), { keyid: k.ours.thumbprint })),
  },
  // kid
  { name: 'kid unknown (an unregistered key, signed by it)', why: /unknown kid/, build: tok((k) => mint(k.attacker, claims())) },
  { name: 'kid empty', why: /kid missing/, build: ours({ kid: '' }) },
  { name: 'kid very long (4000 chars)', why: /kid missing/, build: ours({ kid: 'A'.repeat(4000) }) },
  { name: 'kid path-like (../../etc/passwd)', why: /unknown kid/, build: ours({ kid: '../../etc/passwd' }) },
  { name: 'kid as an array', why: /kid missing/, build: (k) => ours({ kid: [k.ours.thumbprint] })(k) },
  { name: 'kid as a number', why: /kid missing/, build: ours({ kid: 1 }) },
  { name: 'kid null', why: /kid missing/, build: ours({ kid: null }) },
  { name: 'kid as an object', why: /kid missing/, build: (k) => ours({ kid: { $ne: null, id: k.ours.thumbprint } })(k) },
  { name: 'kid missing', why: /kid missing/, build: tok((k) => signed({ alg: 'ES512' }, claims(), k.ours)) },
  { name: 'kid with a trailing space', why: /unknown kid/, build: (k) => ours({ kid: `${k.ours.thumbprint} ` })(k) },
  { name: 'kid in upper case', why: /unknown kid/, build: (k) => ours({ kid: k.ours.thumbprint.toUpperCase() })(k) },
  // keys named by the token itself
  {
    name: 'jwk with an attacker key, kid ours, signed by the attacker',
    why: /bad signature/,
    build: tok((k) => signed(header(k.ours, { jwk: publicJwk(k.attacker) }), claims(), k.attacker)),
  },
  {
    name: 'jwk with an attacker key, kid the attacker thumbprint, signed by the attacker',
    why: /unknown kid/,
    build: tok((k) => signed(header(k.attacker, { jwk: publicJwk(k.attacker) }), claims(), k.attacker)),
  },
  {
    name: 'jwk with an attacker key, no kid, signed by the attacker',
    why: /kid missing/,
    build: tok((k) => signed({ alg: 'ES512', jwk: publicJwk(k.attacker) }, claims(), k.attacker)),
  },
  {
    name: 'jku to an attacker key set, signed by the attacker',
    why: /bad signature/,
    build: tok((k) => signed(header(k.ours, { jku: '/attacker/jwks.json' }), claims(), k.attacker)),
  },
  {
    name: 'x5u to an attacker certificate, signed by the attacker',
    why: /bad signature/,
    build: tok((k) => signed(header(k.ours, { x5u: '/attacker/cert.pem' }), claims(), k.attacker)),
  },
  {
    name: 'x5c with an attacker key, signed by the attacker',
    why: /bad signature/,
    build: tok((k) => signed(header(k.ours, { x5c: [spki(k.attacker)] }), claims(), k.attacker)),
  },
  // crit, each signed by our own key: the refusal is for crit alone
  { name: 'crit with an unknown extension', why: /crit/, build: ours({ crit: ['x-orka-ext'], 'x-orka-ext': true }) },
  { name: 'crit naming a registered claim', why: /crit/, build: ours({ crit: ['exp'] }) },
  { name: 'crit b64 false (RFC 7797)', why: /crit/, build: ours({ crit: ['b64'], b64: false }) },
  { name: 'crit empty', why: /crit/, build: ours({ crit: [] }) },
  { name: 'crit not an array', why: /crit/, build: ours({ crit: 'x-orka-ext' }) },
  // claims and times, each signed by our own key
  { name: 'exp in the past', why: /expired/, build: ours({}, claims({ exp: T0 - 1 })) },
  { name: 'exp now', why: /expired/, build: ours({}, claims({ exp: T0 })) },
  { name: 'exp missing', why: /exp missing/, build: ours({}, { scopes: SCOPES }) },
  { name: 'exp a string', why: /exp missing/, build: ours({}, claims({ exp: String(T0 + 60) })) },
  { name: 'exp null', why: /exp missing/, build: ours({}, claims({ exp: null })) },
  { name: 'exp infinite (1e400)', why: /exp missing/, build: ours({}, `{"scopes":["roles.read"],"exp":1e400}`) },
  { name: 'nbf in the future beyond the leeway', why: /nbf/, build: ours({}, claims({ nbf: T0 + 31 })) },
  { name: 'nbf a string', why: /nbf/, build: ours({}, claims({ nbf: String(T0) })) },
  { name: 'iat in the future beyond the leeway', why: /iat/, build: ours({}, claims({ iat: T0 + 31 })) },
  { name: 'iat a string', why: /iat/, build: ours({}, claims({ iat: String(T0) })) },
  { name: 'lifetime too long (exp - iat over a day)', why: /lifetime/, build: ours({}, claims({ iat: T0 - 60, exp: T0 - 60 + 86401 })) },
  { name: 'lifetime too long (no iat, exp over a day from now)', why: /lifetime/, build: ours({}, claims({ exp: T0 + 86401 })) },
  { name: 'scopes a string', why: /scopes/, build: ours({}, claims({ scopes: 'roles.read' })) },
  { name: 'payload not JSON', why: /payload/, build: ours({}, 'not json') },
  { name: 'payload a JSON array', why: /payload/, build: ours({}, '[1]') },
  // shape
  {
    name: `oversize token (> ${MAX_TOKEN_BYTES} bytes)`,
    why: /8 KiB/,
    build: tok((k) => mint(k.ours, claims({ padding: 'x'.repeat(MAX_TOKEN_BYTES) }))),
  },
  { name: 'two segments', why: /segments/, build: tok((k) => segments(valid(k)).slice(0, 2).join('.')) },
  { name: 'four segments', why: /segments/, build: tok((k) => `${valid(k)}.${segments(valid(k))[2]}`) },
  { name: 'four segments, last empty', why: /segments/, build: tok((k) => `${valid(k)}.`) },
  { name: 'all segments empty', why: /segments/, build: tok(() => '..') },
  { name: 'empty payload segment', why: /segments/, build: tok((k) => `${segments(valid(k))[0]}..${segments(valid(k))[2]}`) },
  { name: 'empty header segment', why: /segments/, build: tok((k) => `.${segments(valid(k))[1]}.${segments(valid(k))[2]}`) },
  {
    name: 'header not JSON',
    why: /header is not/,
    build: tok((k) => `${b64('not json')}.${segments(valid(k))[1]}.${segments(valid(k))[2]}`),
  },
  { name: 'header a JSON array', why: /header is not/, build: tok((k) => signed('[{"alg":"ES512"}]', claims(), k.ours)) },
  { name: 'header a JSON string', why: /header is not/, build: tok((k) => signed('"ES512"', claims(), k.ours)) },
  { name: 'header JSON null', why: /header is not/, build: tok((k) => signed('null', claims(), k.ours)) },
  { name: 'header JSON number', why: /header is not/, build: tok((k) => signed('512', claims(), k.ours)) },
  {
    name: 'header not UTF-8',
    why: /header is not/,
    build: (k) => {
      const h = Buffer.from(`{"alg":"ES512","kid":"${k.ours.thumbprint}","x":"\xe9"}`, 'latin1').toString('base64url')
      const input = `${h}.${b64(claims())}`
      const signature = cryptoSign('sha512', Buffer.from(input), { key: k.ours.privateKeyPem, dsaEncoding: 'ieee-p1363' })
      return {
        token: `${input}.${signature.toString('base64url')}`,
      }
    },
  },
  { name: 'a key revoked in the store', why: /revoked/, build: tok((k) => mint(k.revoked, claims())) },
  // other spellings of a valid token
  { name: 'signature with one extra trailing base64url character', why: /canonical/, build: tok((k) => `${valid(k)}A`) },
  { name: 'signature with = padding', why: /canonical/, build: tok((k) => `${valid(k)}=`) },
  {
    name: 'signature in the standard alphabet (+ /)',
    why: /canonical/,
    build: spelling(2, 'the standard alphabet (+ and /)', { urlCharsInSignature: true }),
  },
  { name: 'signature with a ~ inside', why: /canonical/, build: spelling(2, 'a character outside the alphabet (~)', {}) },
  { name: 'payload with = padding', why: /canonical/, build: spelling(1, '= padding', { payloadRest: 2 }) },
  {
    name: 'payload with non-zero unused trailing bits',
    why: /canonical/,
    build: spelling(1, 'non-zero unused trailing bits', { payloadRest: 3 }),
  },
  {
    name: 'payload with one extra trailing character',
    why: /canonical/,
    build: spelling(1, 'one extra trailing character', { payloadRest: 0 }),
  },
  { name: 'header with = padding', why: /canonical/, build: spelling(0, '= padding', { headerRest: 3 }) },
  {
    name: 'header with non-zero unused trailing bits',
    why: /canonical/,
    build: spelling(0, 'non-zero unused trailing bits', { headerRest: 2 }),
  },
  // the Authorization value around the token
  { name: 'no Authorization header', why: /no Authorization/, build: () => ({ authorization: '' }) },
  { name: 'Basic scheme', why: /not Bearer/, build: () => ({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }) },
  { name: 'token without a scheme', why: /not Bearer/, build: (k) => ({ authorization: valid(k) }) },
  { name: 'Bearer with two tokens', why: /not Bearer/, build: (k) => ({ authorization: `Bearer ${valid(k)} ${valid(k)}` }) },
  { name: 'Bearer without a token', why: /not Bearer/, build: () => ({ authorization: 'Bearer' }) },
]

/**
 * A read and a write with a body, then every other operation the app serves (its path ids
 * filled in, `{}` where it takes a body): none may get past authentication. Secure Fields need
 * no token, but one sent is checked like any other: only sending none gets past.
 */
const ID = '0d4bd3b8-1b73-4f1c-8f35-6d3c1f8b9a10'
interface Route {
  readonly method: string
  readonly path: string
  readonly body: string | undefined
  readonly tokenOptional: boolean
}
const FIRST = [
  { method: 'GET', path: '/roles', body: undefined, tokenOptional: false },
  { method: 'POST', path: '/gift-cards/activations', body: ACTIVATION, tokenOptional: false },
  {
    method: 'PUT',
    path: `/checkout/sessions/${ID}/fields`,
    body: JSON.stringify({ payment_method: { method: 'card', number: '4111111111111111', expiration_date: '12/35' } }),
    tokenOptional: true,
  },
] as const satisfies readonly Route[]
const CARD = { method: 'card', number: '4111111111111111', expiration_date: '12/35', security_code: '123' }
/** Bodies that decode, so that a valid token reaches the use case; `{}` for the other operations that take one. */
const BODIES: Readonly<Record<string, unknown>> = {
  'POST /gift-cards/activations': { number: '4123456789010001' },
  'POST /gift-cards/balances': { items: [{ number: '4123456789010001', pin: '1234' }] },
  'POST /gift-cards': { number: '4123456789010001', pin: '1234' },
  'POST /webhook-subscriptions': { url: 'https://hooks.example.test/h' },
  'POST /transactions': { amount: 1299, currency: 'USD', payment_method: CARD },
  'POST /payment-methods': CARD,
  'PUT /payment-methods/{payment_method_id}': { expiration_date: '12/35' },
  'PUT /checkout/sessions/{session_id}/fields': { payment_method: CARD },
  'POST /checkout/sessions/{session_id}/fields': { payment_method: CARD },
  'POST /payment-services': {
    display_name: 'Mock',
    payment_service_definition_id: 'mock-card',
    fields: [],
    accepted_currencies: [],
    accepted_countries: [],
  },
  'POST /payment-services/verify': { payment_service_definition_id: 'mock-card', fields: [] },
  'POST /merchant-accounts': { id: 'shop-1', display_name: 'Shop' },
  'POST /api-key-pairs': { display_name: 'Key', role_ids: ['0b4f2a4e-5a0e-4a43-9a3e-2f3c1d9e7a01'] },
}
const OPERATION_ROUTES: readonly (Route & { readonly operationId: string; readonly scope: string })[] = OPERATIONS.filter(isServed).map(
  (op) => ({
    operationId: op.operationId,
    scope: op.scope,
    method: op.method,
    path: op.path.replace(/\{\w+\}/g, ID) + (['/buyers/gift-cards', '/buyers/payment-methods'].includes(op.path) ? `?buyer_id=${ID}` : ''),
    body: op.body === undefined ? undefined : JSON.stringify(BODIES[`${op.method} ${op.path}`] ?? {}),
    tokenOptional: op.tokenOptional === true,
  }),
)
const ROUTES: readonly Route[] = [
  ...FIRST,
  ...OPERATION_ROUTES.filter((r) => !FIRST.some((f) => f.method === r.method && f.path === r.path)),
]
/** The card numbers and security code the routes' bodies carry, found in any captured log line. */
const cardDataIn = (log: CaptureLog): string[] => {
  const text = JSON.stringify(log.lines)
  return ['4111111111111111', '4123456789010001', 'security_code', '"123"'].filter((x) => text.includes(x))
}
/** The use cases the recording deps answer for real; the others are answered `404` here (recorded), so a control sees them reached. */
const ANSWERED = new Set(['authorize', 'checkRateLimit', 'activateGiftCard', 'putCheckoutSessionFields', 'listRoles'])
const GATE = new Set(['authorize', 'checkRateLimit'])

describe('hostile tokens (through the HTTP app)', () => {
  let k: Keys
  before(() => {
    const ec = (namedCurve: string) =>
      generateKeyPairSync('ec', { namedCurve }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
    k = {
      ours: newP521Key(),
      attacker: newP521Key(),
      revoked: newP521Key(),
      rsaPem: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      p256Pem: ec('P-256'),
      p384Pem: ec('P-384'),
      ed25519: generateKeyPairSync('ed25519').privateKey,
    }
  })

  let calls: string[]
  let log: CaptureLog
  let server: { url: string; close(): Promise<void> }
  const start = async (rateLimit = 1000) => {
    const keys = new FakeKeys(keyPair(k.ours), keyPair(k.revoked, { id: '00000000-0000-4000-8000-00000000000f', revoked: true }))
    const r = recordingDeps(keys, { rateLimit })
    calls = r.calls
    log = r.log
    const notFoundAnswers = Object.fromEntries(
      Object.entries(r.deps.useCases).map(([name, f]) => [
        name,
        ANSWERED.has(name)
          ? f
          : () => {
              r.calls.push(name)
              return TE.left(notFound('Resource', ID))
            },
      ]),
    ) as unknown as HttpDeps['useCases']
    server = await listen(createHttpApp({ ...r.deps, useCases: notFoundAnswers }))
  }
  afterEach(() => server.close())

  const call = async (route: Route, credential: Credential) => {
    const authorization = 'token' in credential ? `Bearer ${credential.token}` : credential.authorization
    const res = await fetch(`${server.url}${route.path}`, {
      method: route.method,
      headers: {
        ...(authorization === '' ? {} : { authorization }),
        ...(route.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(route.body === undefined ? {} : { body: route.body }),
    })
    return { status: res.status, headers: res.headers, text: await res.text() }
  }

  describe('controls', () => {
    beforeEach(() => start())

    it('a valid token of the same make passes on every route, and none on Secure Fields (so the refusals below are for the flaw alone)', async () => {
      expect((await call(FIRST[0], { token: valid(k) })).status).to.equal(200)
      expect((await call(FIRST[1], { token: valid(k) })).status).to.equal(201)
      expect((await call(FIRST[2], { token: valid(k) })).status).to.equal(204)
      expect((await call(FIRST[2], { authorization: '' })).status).to.equal(204)
      expect(calls).to.include.members(['authorize', 'listRoles', 'activateGiftCard', 'putCheckoutSessionFields'])
    })

    it('a valid token with every scope gets past authentication on every operation the app serves', async () => {
      expect(ROUTES.map((r) => `${r.method} ${r.path}`)).to.have.members(OPERATION_ROUTES.map((r) => `${r.method} ${r.path}`))
      const token = mint(k.ours, claims({ scopes: ['*.read', '*.write'] }))
      for (const route of OPERATION_ROUTES) {
        calls.length = 0
        const r = await call(route, { token })
        const what = `${route.method} ${route.path}: ${r.status} ${r.text}`
        expect(r.status, what).not.to.be.oneOf([401, 403])
        expect(calls, what).to.include('authorize')
        // The use case answers 404 (or the operation is one that answers only errors, or its body is refused).
        expect(r.status === 404 || r.status === 400 || calls.some((c) => !GATE.has(c)), what).to.equal(true)
      }
    })

    it('a hand-signed token like the cases below passes', async () => {
      expect((await call(FIRST[0], ours({})(k))).status).to.equal(200)
    })

    it('jku, x5u, jwk and x5c are ignored, not honoured: a token signed by our key with them passes', async () => {
      const r = await call(
        FIRST[0],
        ours({ jku: '/attacker/jwks.json', x5u: '/attacker/cert.pem', jwk: publicJwk(k.attacker), x5c: [spki(k.attacker)] })(k),
      )
      expect(r.status).to.equal(200)
    })

    it('the high-S twin of a valid token passes (high S is not refused)', async () => {
      const t = valid(k)
      const twin = highSTwin(t)
      expect(isHighS(twin)).to.equal(!isHighS(t))
      expect((await call(FIRST[0], { token: twin })).status).to.equal(200)
    })
  })

  describe('every case is a 401 with the exact body that never reaches the domain', () => {
    let ran = 0
    beforeEach(() => start())
    after(() => {
      console.log(
        `      hostile tokens: ${ran} requests refused with 401 (${CASES.length} cases x ${ROUTES.length} routes), none reached the domain`,
      )
    })

    for (const c of CASES) {
      it(c.name, async () => {
        const credential = c.build(k)
        for (const route of ROUTES) {
          if (route.tokenOptional && 'authorization' in credential && credential.authorization === '') continue
          const r = await call(route, credential)
          expect(r.status, `${route.method} ${route.path}`).to.equal(401)
          expect(r.text, `${route.method} ${route.path}`).to.equal(UNAUTHORIZED_BODY)
          expect(r.headers.get('www-authenticate')).to.equal('Bearer')
          expect(r.headers.get('content-type')).to.match(/^application\/json/)
          expect(calls, `${route.method} ${route.path}: the domain was reached`).to.deep.equal([])
          ran++
          const reasons = log.lines.filter((l) => l.msg === 'authentication failed').map((l) => String(l.o.reason))
          expect(reasons, 'one logged reason').to.have.length(1)
          expect(reasons[0]).to.match(c.why)
          expect(cardDataIn(log), 'card data in a log line').to.deep.equal([])
          log.lines.length = 0
        }
      })
    }
  })

  describe('embed tokens on the transaction and checkout session routes', () => {
    beforeEach(() => start())
    const embed = () => mint(k.ours, { scopes: ['embed'], exp: T0 + 60 })
    const payments = OPERATION_ROUTES.filter((r) => /^\/(transactions|refunds)(\/|$)/.test(r.path))
    const sessions = OPERATION_ROUTES.filter((r) => r.path.startsWith('/checkout/sessions'))

    it('create a transaction, and read, update, capture, void, refund or otherwise operate on none: 403 before any use case', async () => {
      expect(payments.length, 'transaction operations').to.be.above(20)
      for (const route of payments) {
        calls.length = 0
        const r = await call(route, { token: embed() })
        const what = `${route.method} ${route.path}: ${r.status} ${r.text}`
        if (route.method === 'POST' && route.path === '/transactions') {
          expect(r.status, what).to.equal(404)
          expect(calls, what).to.include('createTransaction')
        } else {
          expect(r.status, what).to.equal(403)
          expect((JSON.parse(r.text) as { code: string }).code, what).to.equal('forbidden')
          expect(
            calls.filter((c) => !GATE.has(c)),
            `${what}: a use case was reached`,
          ).to.deep.equal([])
        }
      }
    })

    it('create, update and delete checkout sessions and send Secure Fields, but read none: 403 before any use case', async () => {
      expect(sessions.map((r) => `${r.method} ${r.path.replace(ID, '{id}')}`)).to.have.members([
        'POST /checkout/sessions',
        'GET /checkout/sessions/{id}',
        'PUT /checkout/sessions/{id}',
        'DELETE /checkout/sessions/{id}',
        'PUT /checkout/sessions/{id}/fields',
        'POST /checkout/sessions/{id}/fields',
      ])
      for (const route of sessions) {
        calls.length = 0
        const r = await call(route, { token: embed() })
        const what = `${route.method} ${route.path}: ${r.status} ${r.text}`
        const reached = calls.filter((c) => !GATE.has(c))
        if (route.method === 'GET') {
          expect(r.status, what).to.equal(403)
          expect(reached, `${what}: a use case was reached`).to.deep.equal([])
        } else {
          expect(r.status, what).to.be.oneOf([201, 204, 404, 422])
          expect(reached, what).to.have.length(1)
        }
      }
      expect(cardDataIn(log), 'card data in a log line').to.deep.equal([])
    })
  })

  describe('malleated twins share one rate-limit identity', () => {
    beforeEach(() => start(2))

    it('five variants of one embed token without jti draw on one quota of 2', async () => {
      const embed = mint(k.ours, { scopes: ['embed'], exp: T0 + 60 })
      const again = resign(embed, k.ours)
      const variants = [embed, highSTwin(embed), again, highSTwin(again), resign(embed, k.ours)]
      expect(new Set(variants).size).to.equal(5)
      const statuses: number[] = []
      for (const v of variants) {
        const r = await call(FIRST[1], { token: v })
        statuses.push(r.status)
        if (r.status === 429) expect(r.headers.get('retry-after')).to.equal('60')
      }
      expect(statuses).to.deep.equal([201, 201, 429, 429, 429])
      expect(calls.filter((c) => c === 'activateGiftCard')).to.have.length(2)
    })

    it('non-canonical spellings are refused before the limiter and do not count', async () => {
      const embed = mint(k.ours, { scopes: ['embed'], exp: T0 + 60 })
      for (const v of [`${embed}A`, `${embed}=`, `${embed}~`]) expect((await call(FIRST[1], { token: v })).status).to.equal(401)
      expect(calls).to.deep.equal([])
      expect((await call(FIRST[1], { token: embed })).status).to.equal(201)
      expect((await call(FIRST[1], { token: highSTwin(embed) })).status).to.equal(201)
      expect((await call(FIRST[1], { token: embed })).status).to.equal(429)
    })

    it('a different token of the same key is another identity', async () => {
      const a = mint(k.ours, { scopes: ['embed'], exp: T0 + 60 })
      const b = mint(k.ours, { scopes: ['embed'], exp: T0 + 61 })
      for (const t of [a, a, b, b]) expect((await call(FIRST[1], { token: t })).status).to.equal(201)
      expect((await call(FIRST[1], { token: highSTwin(b) })).status).to.equal(429)
    })
  })
})
