import { createHash, createPublicKey, KeyObject, verify } from 'node:crypto'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  ApiKeyPair,
  ApiKeyPairRepository,
  Clock,
  EmbedBuyer,
  EmbedPins,
  Mac,
  Principal,
  Unauthenticated,
  unauthenticated,
  Unavailable,
} from '@orka/domain'
import { decodeBase64urlStrict, decodeUtf8Strict } from './base64url'
import { LruCache } from './lru-cache'

/**
 * Bearer JWT verification: ES512 only, `kid` = the RFC 7638 thumbprint of an API key pair's
 * P-521 public key.
 *
 * Why not `jsonwebtoken.verify`: it checks the signature synchronously on the event loop, and
 * ES512 costs about 2 ms of CPU, which would cap the whole server's throughput. Here every
 * cheap check (size, shape, header, claims, key lookup) runs first, then the signature is
 * checked by Node's async `crypto.verify` on the libuv thread pool, and verified tokens are
 * cached by hash until their `exp`. Parsing is a few lines of our own, so that a header or
 * payload that is JSON but not an object is rejected explicitly; jsonwebtoken stays the
 * tool for minting (CLI, tests).
 *
 * Identity (the rate limiter's `tokenId`): a token's `jti` namespaced by its key, else a MAC of
 * what was signed, the `header.payload` segments, never of the signature. An ECDSA signature
 * is malleable (for a valid (r, s), the high-S twin (r, n − s) verifies too, and the key holder
 * can sign the same input again with another nonce), so the signature must not make a new
 * identity. The segments themselves must be canonical base64url (no padding, no extra
 * character, no stray low bits, nothing outside the alphabet), so that one signed content has
 * exactly one spelling. High-S signatures are accepted: refusing them would break conforming
 * signers, and with the identity above they buy an attacker nothing.
 *
 * Headers `jku`, `x5u`, `jwk` and `x5c` are never honoured (the key comes from our store by
 * `kid` only) and so are simply ignored: a token carrying them verifies or fails exactly as it
 * would without them. `crit` is refused whatever it names (we implement no extension).
 */
export const MAX_TOKEN_BYTES = 8 * 1024
export const NBF_LEEWAY_S = 30
/** Longest lifetime a token may claim when the deps name none: `exp` − `iat` (or − now without `iat`). */
export const DEFAULT_MAX_TOKEN_LIFETIME_S = 86400
/**
 * A verified token not presented again for this long leaves the cache (at the next request): a
 * burst of one-off tokens (an SDK mints one per call) is not kept for their whole lifetime.
 */
export const TOKEN_CACHE_IDLE_MS = 60_000
/** IEEE P1363 (r || s) signature of ES512: two 66-byte integers. */
const ES512_SIGNATURE_BYTES = 132

export interface TokenVerifierDeps {
  readonly keys: ApiKeyPairRepository
  readonly clock: Clock
  readonly mac: Mac
  /** Verified tokens kept (LRU, each for `TOKEN_CACHE_IDLE_MS` after its last use); 0 disables the cache. */
  readonly cacheSize: number
  /** Longest lifetime a token may claim: `exp` − `iat`, or `exp` − now without `iat`. Default 86400. */
  readonly maxTokenLifetimeS?: number
  /** Told of each request a key authenticated: where `last_used_at` comes from, kept off the request path. */
  readonly onKeyUsed?: (keyId: string) => void
}

/** From the `Authorization` header value to a principal; key-store failures are `Unavailable` (500), not 401. */
export type TokenVerifier = (authorization: string | undefined) => TE.TaskEither<Unauthenticated | Unavailable, Principal>

interface Claims {
  readonly kid: string
  readonly exp: number
  readonly nbf: number | undefined
  readonly iat: number | undefined
  readonly scopes: readonly string[]
  readonly jti: string | undefined
  readonly embedBuyer: EmbedBuyer | undefined
  readonly embedPins: EmbedPins | undefined
}
interface Verified {
  readonly claims: Claims
  readonly tokenIdFor: (key: ApiKeyPair) => string
}

type Check<A> = E.Either<Unauthenticated, A>
const fail = <A = never>(reason: string): Check<A> => E.left(unauthenticated(reason))

const BEARER = /^bearer +(\S+) *$/i

const bearerToken = (authorization: string | undefined): Check<string> => {
  if (authorization === undefined || authorization === '') return fail('no Authorization header')
  // Cheap bound before any regex: a header this long cannot hold an acceptable token.
  if (authorization.length > MAX_TOKEN_BYTES + 64) return fail('token over 8 KiB')
  const token = BEARER.exec(authorization)?.[1]
  if (token === undefined) return fail('Authorization scheme is not Bearer')
  return Buffer.byteLength(token, 'utf8') > MAX_TOKEN_BYTES ? fail('token over 8 KiB') : E.right(token)
}

const jsonObject = (bytes: Buffer): Record<string, unknown> | undefined => {
  const text = decodeUtf8Strict(bytes)
  if (text === undefined) return undefined
  try {
    const v: unknown = JSON.parse(text)
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

const isNumericDate = (u: unknown): u is number => typeof u === 'number' && Number.isFinite(u)

interface Parsed {
  readonly claims: Claims
  /** `header.payload` exactly as received: what was signed, and (canonical) the token's content. */
  readonly signingInput: string
  readonly signature: Buffer
}

/** Everything that can be decided from the token alone, without I/O or signature work. */
const parse = (token: string, nowS: number, maxLifetimeS: number): Check<Parsed> => {
  const parts = token.split('.')
  if (parts.length !== 3 || parts.some((p) => p.length === 0)) return fail('not three base64url segments')
  const decoded = parts.map(decodeBase64urlStrict)
  if (decoded.some((b) => b === undefined)) return fail('a segment is not canonical base64url')
  const [h, p] = parts as [string, string, string]
  const [headerBytes, payloadBytes, signature] = decoded as [Buffer, Buffer, Buffer]
  const header = jsonObject(headerBytes)
  if (!header) return fail('header is not a JSON object')
  // Exactly ES512: `none`, HS* (the public key used as an HMAC secret) and RS* never get near a key.
  // JSON.stringify gives undefined for an absent `alg`, whatever its declared type says.
  if (header.alg !== 'ES512')
    return fail(`alg ${((JSON.stringify(header.alg) as string | undefined) ?? 'undefined').slice(0, 32)} is not ES512`)
  // We understand no extension, so any `crit` is one we must refuse (RFC 7515 §4.1.11).
  if ('crit' in header) return fail('crit header present')
  // `jku`, `x5u`, `jwk`, `x5c` are ignored on purpose: the key comes only from our own store.
  const kid = header.kid
  if (typeof kid !== 'string' || kid.length === 0 || kid.length > 256) return fail('kid missing or not a string of 1 to 256 characters')
  const payload = jsonObject(payloadBytes)
  if (!payload) return fail('payload is not a JSON object')
  const claims = checkClaims(kid, payload, nowS, maxLifetimeS)
  if (E.isLeft(claims)) return claims
  if (signature.length !== ES512_SIGNATURE_BYTES) return fail('signature has the wrong length for ES512')
  return E.right({ claims: claims.right, signingInput: `${h}.${p}`, signature })
}

const isName = (u: unknown): u is string => typeof u === 'string' && u.length > 0 && u.length <= 200

/**
 * The buyer the original API's `embed` claim names (`buyer_id`, `buyer_external_identifier`):
 * the only buyer whose stored cards the token may read, and the one a transaction it creates
 * must name (see `embedPinsOf` for the rest of the claim). A claim that is not an object, or
 * names a buyer with something other than a string of 1 to 200 characters, is refused.
 */
const embedBuyerOf = (embed: unknown): Check<EmbedBuyer | undefined> => {
  if (embed === undefined) return E.right(undefined)
  if (typeof embed !== 'object' || embed === null || Array.isArray(embed)) return fail('embed is not an object')
  const { buyer_id: id = null, buyer_external_identifier: externalIdentifier = null } = embed as Record<string, unknown>
  if ((id !== null && !isName(id)) || (externalIdentifier !== null && !isName(externalIdentifier)))
    return fail('embed names a buyer with something other than a string of 1 to 200 characters')
  return E.right(id === null && externalIdentifier === null ? undefined : { id, externalIdentifier })
}

/**
 * What else the `embed` claim pins a checkout to: `amount` (an integer of minor units),
 * `currency` and `checkout_session_id` (strings of 1 to 200 characters). A transaction the
 * token creates must match them. A pinned value of another type is refused, as a malformed
 * buyer is; the claim's other keys (metadata, cart items, ...) are ignored.
 */
const embedPinsOf = (embed: unknown): Check<EmbedPins | undefined> => {
  if (typeof embed !== 'object' || embed === null || Array.isArray(embed)) return E.right(undefined)
  const { amount, currency, checkout_session_id: session } = embed as Record<string, unknown>
  if (amount !== undefined && amount !== null && !(typeof amount === 'number' && Number.isSafeInteger(amount) && amount >= 0))
    return fail('embed pins an amount that is not a non-negative integer')
  for (const v of [currency, session])
    if (v !== undefined && v !== null && !isName(v)) return fail('embed pins a value that is not a string of 1 to 200 characters')
  const pins: EmbedPins = {
    ...(typeof amount === 'number' ? { amount } : {}),
    ...(typeof currency === 'string' ? { currency } : {}),
    ...(typeof session === 'string' ? { checkoutSessionId: session } : {}),
  }
  return E.right(Object.keys(pins).length === 0 ? undefined : pins)
}

const checkClaims = (kid: string, payload: Record<string, unknown>, nowS: number, maxLifetimeS: number): Check<Claims> => {
  const { exp, nbf, iat, scopes, jti } = payload
  if (!isNumericDate(exp)) return fail('exp missing or not a number')
  if (nbf !== undefined && !isNumericDate(nbf)) return fail('nbf not a number')
  if (iat !== undefined && !isNumericDate(iat)) return fail('iat not a number')
  if (!Array.isArray(scopes) || !scopes.every((x) => typeof x === 'string')) return fail('scopes is not an array of strings')
  const embedBuyer = embedBuyerOf(payload.embed)
  if (E.isLeft(embedBuyer)) return embedBuyer
  const embedPins = embedPinsOf(payload.embed)
  if (E.isLeft(embedPins)) return embedPins
  const claims: Claims = {
    kid,
    exp,
    nbf,
    iat,
    scopes: scopes,
    jti: typeof jti === 'string' && jti !== '' ? jti : undefined,
    embedBuyer: embedBuyer.right,
    embedPins: embedPins.right,
  }
  const times = checkTimes(claims, nowS, maxLifetimeS)
  return times === undefined ? E.right(claims) : fail(times)
}

/** Rechecked on every use, cached or not: a cached token still expires, also on a clock that went back. */
const checkTimes = (c: Claims, nowS: number, maxLifetimeS: number): string | undefined => {
  if (nowS >= c.exp) return 'expired'
  if (c.nbf !== undefined && c.nbf > nowS + NBF_LEEWAY_S) return 'not valid yet (nbf)'
  if (c.iat !== undefined && c.iat > nowS + NBF_LEEWAY_S) return 'issued in the future (iat)'
  // Without `iat` the lifetime left is what counts: a token may not be good for longer than the cap from now.
  if (c.exp - (c.iat ?? nowS) > maxLifetimeS) return 'lifetime over the maximum'
  return undefined
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('base64url')
/** An SDK's token is some 500 bytes: kept as its own key (no hash per request); a long one by its hash, so the cache stays small. */
const INLINE_KEY_MAX = 1024
const cacheKeyOf = (token: string) => (token.length <= INLINE_KEY_MAX ? token : `#${sha256(token)}`)

/** Resolves on the thread pool; a throw or an error from OpenSSL counts as a bad signature. */
const verifyEs512 = (key: KeyObject, data: string, signature: Buffer): Promise<boolean> =>
  new Promise((resolve) => {
    try {
      verify('sha512', Buffer.from(data, 'ascii'), { key, dsaEncoding: 'ieee-p1363' }, signature, (err, ok) => {
        resolve(err === null && ok)
      })
    } catch {
      resolve(false)
    }
  })

export const makeTokenVerifier = (deps: TokenVerifierDeps): TokenVerifier => {
  const maxLifetimeS = deps.maxTokenLifetimeS ?? DEFAULT_MAX_TOKEN_LIFETIME_S
  /**
   * Keyed by a hash of the whole token string, signature included: a hit means this exact string
   * was verified before. Any other spelling, a tampered signature or a malleated twin, misses
   * and is parsed and verified from scratch. (Keying it by the identity would let a forged
   * signature ride on a verified one.)
   */
  const verified = new LruCache<string, Verified>(deps.cacheSize, { ms: TOKEN_CACHE_IDLE_MS, now: () => deps.clock.now().getTime() })
  const publicKeys = new LruCache<string, KeyObject>(256)

  const publicKeyOf = (pem: string): KeyObject | undefined => {
    const cached = publicKeys.get(pem)
    if (cached) return cached
    try {
      const k = createPublicKey(pem)
      if (k.asymmetricKeyType !== 'ec' || k.asymmetricKeyDetails?.namedCurve !== 'secp521r1') return undefined
      publicKeys.set(pem, k)
      return k
    } catch {
      return undefined
    }
  }

  /** The key must still be known, not revoked and not suspended, also for a cached token. */
  const liveKey = async (kid: string): Promise<E.Either<Unauthenticated | Unavailable, ApiKeyPair>> => {
    const found = await deps.keys.findByThumbprint(kid)()
    if (E.isLeft(found)) return found
    if (O.isNone(found.right)) return E.left(unauthenticated('unknown kid'))
    const key = found.right.value
    if (key.revoked) return E.left(unauthenticated('API key revoked'))
    return key.active === false ? E.left(unauthenticated('API key suspended')) : E.right(key)
  }

  const principal = (v: Verified, key: ApiKeyPair): Principal => {
    deps.onKeyUsed?.(key.id)
    return {
      key,
      scopes: v.claims.scopes,
      tokenId: v.tokenIdFor(key),
      ...(v.claims.embedBuyer === undefined ? {} : { embedBuyer: v.claims.embedBuyer }),
      ...(v.claims.embedPins === undefined ? {} : { embedPins: v.claims.embedPins }),
    }
  }

  return (authorization) => {
    const token = bearerToken(authorization)
    if (E.isLeft(token)) return TE.left(token.left)
    const nowS = deps.clock.now().getTime() / 1000
    const cacheKey = cacheKeyOf(token.right)
    const hit = verified.get(cacheKey)
    if (hit) {
      const times = checkTimes(hit.claims, nowS, maxLifetimeS)
      if (times !== undefined) {
        verified.delete(cacheKey)
        return TE.left(unauthenticated(times))
      }
      return async () => {
        const key = await liveKey(hit.claims.kid)
        return E.isLeft(key) ? key : E.right(principal(hit, key.right))
      }
    }
    const parsed = parse(token.right, nowS, maxLifetimeS)
    if (E.isLeft(parsed)) return TE.left(parsed.left)
    const { claims, signingInput, signature } = parsed.right
    return async () => {
      const live = await liveKey(claims.kid)
      if (E.isLeft(live)) return live
      const key = live.right
      const publicKey = publicKeyOf(key.public_key_pem)
      if (!publicKey) return E.left(unauthenticated('API key is not a P-521 public key'))
      if (!(await verifyEs512(publicKey, signingInput, signature))) return E.left(unauthenticated('bad signature'))
      const jti = claims.jti
      // What was signed, not how the signature is spelt: see the identity note at the top.
      const tokenId = jti === undefined ? { hash: deps.mac.mac('token-hash', signingInput) } : { jti }
      const v: Verified = {
        claims,
        // A client-chosen `jti` is namespaced by its key, so one key's tokens cannot draw on another's quota.
        tokenIdFor: (k) => ('jti' in tokenId ? `jti:${k.id}:${tokenId.jti}` : `hash:${tokenId.hash}`),
      }
      verified.set(cacheKey, v)
      return E.right(principal(v, key))
    }
  }
}
