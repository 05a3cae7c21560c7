import { createHash, createPublicKey, KeyObject, verify } from 'node:crypto'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { ApiKeyPair, ApiKeyPairRepository, Clock, Mac, Principal, Unauthenticated, unauthenticated, Unavailable } from '@orka/domain'
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
 */
export const MAX_TOKEN_BYTES = 8 * 1024
export const NBF_LEEWAY_S = 30
/** IEEE P1363 (r || s) signature of ES512: two 66-byte integers. */
const ES512_SIGNATURE_BYTES = 132

export interface TokenVerifierDeps {
  readonly keys: ApiKeyPairRepository
  readonly clock: Clock
  readonly mac: Mac
  /** Verified tokens kept (LRU); 0 disables the cache. */
  readonly cacheSize: number
}

/** From the `Authorization` header value to a principal; key-store failures are `Unavailable` (500), not 401. */
export type TokenVerifier = (authorization: string | undefined) => TE.TaskEither<Unauthenticated | Unavailable, Principal>

interface Claims {
  readonly kid: string
  readonly exp: number
  readonly nbf: number | undefined
  readonly scopes: ReadonlyArray<string>
  readonly jti: string | undefined
}
interface Verified {
  readonly claims: Claims
  readonly tokenIdFor: (key: ApiKeyPair) => string
}

type Check<A> = E.Either<Unauthenticated, A>
const fail = <A = never>(reason: string): Check<A> => E.left(unauthenticated(reason))

const BEARER = /^bearer +(\S+) *$/i
const SEGMENT = /^[A-Za-z0-9_-]+$/

const bearerToken = (authorization: string | undefined): Check<string> => {
  if (authorization === undefined || authorization === '') return fail('no Authorization header')
  // Cheap bound before any regex: a header this long cannot hold an acceptable token.
  if (authorization.length > MAX_TOKEN_BYTES + 64) return fail('token over 8 KiB')
  const m = BEARER.exec(authorization)
  if (!m) return fail('Authorization scheme is not Bearer')
  const token = m[1]!
  return Buffer.byteLength(token, 'utf8') > MAX_TOKEN_BYTES ? fail('token over 8 KiB') : E.right(token)
}

const jsonObject = (segment: string): Record<string, unknown> | undefined => {
  try {
    const v: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'))
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

const isNumericDate = (u: unknown): u is number => typeof u === 'number' && Number.isFinite(u)

interface Parsed {
  readonly claims: Claims
  readonly signingInput: Buffer
  readonly signature: Buffer
}

/** Everything that can be decided from the token alone, without I/O or signature work. */
const parse = (token: string, nowS: number): Check<Parsed> => {
  const parts = token.split('.')
  if (parts.length !== 3 || !parts.every((p) => SEGMENT.test(p))) return fail('not three base64url segments')
  const [h, p, s] = parts as [string, string, string]
  const header = jsonObject(h)
  if (!header) return fail('header is not a JSON object')
  // Exactly ES512: `none`, HS* (the public key used as an HMAC secret) and RS* never get near a key.
  if (header['alg'] !== 'ES512') return fail(`alg ${String(JSON.stringify(header['alg'])).slice(0, 32)} is not ES512`)
  // We understand no extension, so any `crit` is one we must refuse (RFC 7515 §4.1.11).
  if ('crit' in header) return fail('crit header present')
  // `jku`, `x5u`, `jwk`, `x5c` are ignored on purpose: the key comes only from our own store.
  const kid = header['kid']
  if (typeof kid !== 'string' || kid.length === 0 || kid.length > 256) return fail('kid missing')
  const payload = jsonObject(p)
  if (!payload) return fail('payload is not a JSON object')
  const claims = checkClaims(kid, payload, nowS)
  if (E.isLeft(claims)) return claims
  const signature = Buffer.from(s, 'base64url')
  if (signature.length !== ES512_SIGNATURE_BYTES) return fail('signature has the wrong length for ES512')
  return E.right({ claims: claims.right, signingInput: Buffer.from(`${h}.${p}`, 'ascii'), signature })
}

const checkClaims = (kid: string, payload: Record<string, unknown>, nowS: number): Check<Claims> => {
  const { exp, nbf, scopes, jti } = payload
  if (!isNumericDate(exp)) return fail('exp missing or not a number')
  if (nbf !== undefined && !isNumericDate(nbf)) return fail('nbf not a number')
  if (!Array.isArray(scopes) || !scopes.every((x) => typeof x === 'string')) return fail('scopes is not an array of strings')
  const claims: Claims = { kid, exp, nbf, scopes: scopes as string[], jti: typeof jti === 'string' && jti !== '' ? jti : undefined }
  const times = checkTimes(claims, nowS)
  return times === undefined ? E.right(claims) : fail(times)
}

/** Rechecked on every use, cached or not: a cached token still expires. */
const checkTimes = (c: Claims, nowS: number): string | undefined => {
  if (nowS >= c.exp) return 'expired'
  if (c.nbf !== undefined && c.nbf > nowS + NBF_LEEWAY_S) return 'not valid yet (nbf)'
  return undefined
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('base64url')

/** Resolves on the thread pool; a throw or an error from OpenSSL counts as a bad signature. */
const verifyEs512 = (key: KeyObject, data: Buffer, signature: Buffer): Promise<boolean> =>
  new Promise((resolve) => {
    try {
      verify('sha512', data, { key, dsaEncoding: 'ieee-p1363' }, signature, (err, ok) => resolve(err === null && ok))
    } catch {
      resolve(false)
    }
  })

export const makeTokenVerifier = (deps: TokenVerifierDeps): TokenVerifier => {
  const verified = new LruCache<string, Verified>(deps.cacheSize)
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

  /** The key must still be known and not revoked, also for a cached token. */
  const liveKey = (kid: string): TE.TaskEither<Unauthenticated | Unavailable, ApiKeyPair> =>
    pipe(
      deps.keys.findByThumbprint(kid),
      TE.flatMap(
        O.match(
          () => TE.left<Unauthenticated | Unavailable>(unauthenticated('unknown kid')),
          (key) => (key.revoked ? TE.left(unauthenticated('API key revoked')) : TE.right(key)),
        ),
      ),
    )

  const principal = (v: Verified, key: ApiKeyPair): Principal => ({ key, scopes: v.claims.scopes, tokenId: v.tokenIdFor(key) })

  return (authorization) => {
    const token = bearerToken(authorization)
    if (E.isLeft(token)) return TE.left(token.left)
    const nowS = deps.clock.now().getTime() / 1000
    const cacheKey = sha256(token.right)
    const hit = verified.get(cacheKey)
    if (hit) {
      const times = checkTimes(hit.claims, nowS)
      if (times !== undefined) {
        verified.delete(cacheKey)
        return TE.left(unauthenticated(times))
      }
      return pipe(
        liveKey(hit.claims.kid),
        TE.map((key) => principal(hit, key)),
      )
    }
    const parsed = parse(token.right, nowS)
    if (E.isLeft(parsed)) return TE.left(parsed.left)
    const { claims, signingInput, signature } = parsed.right
    return pipe(
      liveKey(claims.kid),
      TE.flatMap((key) => async () => {
        const publicKey = publicKeyOf(key.public_key_pem)
        if (!publicKey) return E.left(unauthenticated('API key is not a P-521 public key'))
        if (!(await verifyEs512(publicKey, signingInput, signature))) return E.left(unauthenticated('bad signature'))
        const jti = claims.jti
        const tokenHash = jti === undefined ? deps.mac.mac('token-hash', token.right) : undefined
        const v: Verified = {
          claims,
          // A client-chosen `jti` is namespaced by its key, so one key's tokens cannot draw on another's quota.
          tokenIdFor: (k) => (jti !== undefined ? `jti:${k.id}:${jti}` : `hash:${tokenHash!}`),
        }
        verified.set(cacheKey, v)
        return E.right(principal(v, key))
      }),
    )
  }
}
