import { ManualClock } from '@orka/domain/testing'
import { generateKeyPairSync } from 'node:crypto'
import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { sign } from 'jsonwebtoken'
import { Principal, Unauthenticated, Unavailable } from '@orka/domain'
import { makeTokenVerifier, TOKEN_CACHE_IDLE_MS, TokenVerifier } from '../src'
import { clockAtT0, FakeKeys, fakeMac, handmade, hs512WithKey, keyPair, mint, newP521Key, T0, TestKey } from './support'
import { highSTwin, isHighS, P521_N, mintShaped, resign, sameBytesSpellings, segments, signatureOf, withSignature } from './auth/jws'

describe('makeTokenVerifier', () => {
  let key: TestKey
  let other: TestKey
  before(() => {
    key = newP521Key()
    other = newP521Key()
  })

  let clock: ManualClock
  let keys: FakeKeys
  let verify: TokenVerifier
  const setup = (cacheSize = 100, maxTokenLifetimeS?: number) => {
    clock = clockAtT0()
    keys = new FakeKeys(keyPair(key))
    verify = makeTokenVerifier({ keys, clock, mac: fakeMac, cacheSize, ...(maxTokenLifetimeS === undefined ? {} : { maxTokenLifetimeS }) })
  }
  beforeEach(() => {
    setup()
  })

  const claims = (over: Record<string, unknown> = {}) => ({ scopes: ['roles.read'], exp: T0 + 30, ...over })
  const bearer = (token: string) => `Bearer ${token}`
  const ok = async (authorization: string | undefined): Promise<Principal> => {
    const r = await verify(authorization)()
    if (E.isLeft(r)) throw new Error(`expected a principal, got ${JSON.stringify(r.left)}`)
    return r.right
  }
  const refused = async (authorization: string | undefined, reason: RegExp): Promise<void> => {
    const r = await verify(authorization)()
    expect(E.isLeft(r), 'expected a refusal').to.equal(true)
    const e = (r as E.Left<Unauthenticated | Unavailable>).left
    expect(e._tag).to.equal('Unauthenticated')
    expect((e as Unauthenticated).reason).to.match(reason)
  }

  describe('accepts', () => {
    it('a valid ES512 token, giving its key, its scopes and a hash of the token as id', async () => {
      const p = await ok(bearer(mint(key, claims({ scopes: ['roles.read', 'embed'] }))))
      expect(p.key).to.deep.equal(keyPair(key))
      expect(p.scopes).to.deep.equal(['roles.read', 'embed'])
      expect(p.tokenId).to.match(/^hash:[A-Za-z0-9_-]{43}$/)
    })

    it('uses the jti, namespaced by the key, as token id when there is one', async () => {
      const p = await ok(bearer(mint(key, claims({ jti: 'abc-123' }))))
      expect(p.tokenId).to.equal(`jti:${keyPair(key).id}:abc-123`)
    })

    it('gives two different tokens without jti different ids', async () => {
      const a = await ok(bearer(mint(key, claims())))
      const b = await ok(bearer(mint(key, claims({ exp: T0 + 31 }))))
      expect(a.tokenId).not.to.equal(b.tokenId)
    })

    it('reads the buyer an embed claim names, ignoring its other keys', async () => {
      const p = await ok(bearer(mint(key, claims({ scopes: ['embed'], embed: { buyer_external_identifier: 'crm-1', amount: 100 } }))))
      expect(p.embedBuyer).to.deep.equal({ id: null, externalIdentifier: 'crm-1' })
      const both = await ok(bearer(mint(key, claims({ embed: { buyer_id: 'b-1', buyer_external_identifier: 'crm-1' } }))))
      expect(both.embedBuyer).to.deep.equal({ id: 'b-1', externalIdentifier: 'crm-1' })
      expect(await ok(bearer(mint(key, claims({ embed: { amount: 100, buyer_id: null } }))))).not.to.have.property('embedBuyer')
      expect(await ok(bearer(mint(key, claims())))).not.to.have.property('embedBuyer')
    })

    it('accepts the scheme in any case', async () => {
      await ok(`bearer ${mint(key, claims())}`)
    })

    it('accepts nbf within the 30 s leeway', async () => {
      await ok(bearer(mint(key, claims({ nbf: T0 + 30 }))))
    })

    it('accepts an empty scopes array (it simply grants nothing)', async () => {
      expect((await ok(bearer(mint(key, claims({ scopes: [] }))))).scopes).to.deep.equal([])
    })

    it('ignores jku, x5u and jwk headers: the key comes from the store', async () => {
      const token = mint(key, claims(), {
        header: { alg: 'ES512', kid: key.thumbprint, jku: '/attacker/jwks.json', x5u: '/attacker/cert.pem', jwk: { kty: 'EC' } } as never,
      })
      await ok(bearer(token))
    })
  })

  describe('refuses', () => {
    it('a missing Authorization header', () => refused(undefined, /no Authorization/))
    it('another scheme', () => refused(`Basic ${Buffer.from('a:b').toString('base64')}`, /not Bearer/))
    it('a bearer without token', () => refused('Bearer ', /not Bearer/))

    it('an expired token', async () => {
      clock.set(new Date((T0 + 30) * 1000))
      await refused(bearer(mint(key, claims())), /expired/)
    })

    it('an embed claim that is not an object', () => refused(bearer(mint(key, claims({ embed: 'crm-1' }))), /embed is not an object/))
    it('an embed claim naming a buyer with a non-string or an empty string', async () => {
      await refused(bearer(mint(key, claims({ embed: { buyer_id: 7 } }))), /embed names a buyer/)
      await refused(bearer(mint(key, claims({ embed: { buyer_external_identifier: '' } }))), /embed names a buyer/)
      await refused(bearer(mint(key, claims({ embed: { buyer_id: 'x'.repeat(201) } }))), /embed names a buyer/)
    })
    it('a token without exp', () => refused(bearer(mint(key, { scopes: ['roles.read'] })), /exp missing/))
    it('a non-numeric exp', () =>
      refused(bearer(handmade({ alg: 'ES512', kid: key.thumbprint }, claims({ exp: String(T0 + 30) }))), /exp missing/))

    it('nbf in the future beyond the leeway', () => refused(bearer(mint(key, claims({ nbf: T0 + 31 }))), /nbf/))

    it('alg none', async () => {
      await refused(bearer(sign(claims(), '', { algorithm: 'none', keyid: key.thumbprint, noTimestamp: true })), /segments/)
      await refused(bearer(handmade({ alg: 'none', kid: key.thumbprint }, claims())), /alg "none"/)
    })

    it('HS512 signed with the public key PEM as the HMAC secret (algorithm confusion)', () =>
      refused(bearer(hs512WithKey({ alg: 'HS512', typ: 'JWT', kid: key.thumbprint }, claims(), key.publicKeyPem)), /alg "HS512"/))

    it('RS256', async () => {
      const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
      const pem = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
      await refused(bearer(sign(claims(), pem, { algorithm: 'RS256', keyid: key.thumbprint, noTimestamp: true })), /alg "RS256"/)
    })

    it('ES256 on a P-256 key', async () => {
      const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      const pem = ec.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
      await refused(bearer(sign(claims(), pem, { algorithm: 'ES256', keyid: key.thumbprint, noTimestamp: true })), /alg "ES256"/)
    })

    it('an unknown kid', () => refused(bearer(mint(other, claims())), /unknown kid/))
    it('a missing kid', () => refused(bearer(sign(claims(), key.privateKeyPem, { algorithm: 'ES512', noTimestamp: true })), /kid missing/))

    it('a token of a revoked key', async () => {
      await keys.revoke(keyPair(key).id)()
      await refused(bearer(mint(key, claims())), /revoked/)
    })

    it('a bad signature (signed by another key under the known kid)', () =>
      refused(bearer(mint(other, claims(), { keyid: key.thumbprint })), /bad signature/))

    it('a signature with one byte changed', async () => {
      const [h, p, s] = mint(key, claims()).split('.') as [string, string, string]
      const sig = Buffer.from(s, 'base64url')
      sig[10] = sig[10]! ^ 1
      await refused(bearer(`${h}.${p}.${sig.toString('base64url')}`), /bad signature/)
    })

    it('a payload changed after signing', async () => {
      const [h, , s] = mint(key, claims()).split('.') as [string, string, string]
      await refused(
        bearer(`${h}.${Buffer.from(JSON.stringify(claims({ scopes: ['*.write'] }))).toString('base64url')}.${s}`),
        /bad signature/,
      )
    })

    it('a token over 8 KiB, before looking up its key', async () => {
      await refused(bearer(mint(key, claims({ padding: 'x'.repeat(8 * 1024) }))), /8 KiB/)
      expect(keys.lookups).to.equal(0)
    })

    it('malformed segments, before looking up any key', async () => {
      await refused(bearer('abc.def'), /segments/)
      await refused(bearer('a.b.c.d'), /segments/)
      await refused(bearer('a.b!.c'), /canonical/)
      await refused(bearer('..'), /segments/)
      await refused(bearer(`${mint(key, claims())}.`), /segments/)
      expect(keys.lookups).to.equal(0)
    })

    it('a header that is not a JSON object', async () => {
      await refused(bearer(`${Buffer.from('not json').toString('base64url')}.e30.AAAA`), /header is not a JSON object/)
      await refused(bearer(`${Buffer.from('[1]').toString('base64url')}.e30.AAAA`), /header is not a JSON object/)
    })

    it('a payload that is not a JSON object', () => refused(bearer(handmade({ alg: 'ES512', kid: key.thumbprint }, 'nope')), /payload/))

    it('a crit header (we understand no extension)', async () => {
      const token = mint(key, claims(), { header: { alg: 'ES512', kid: key.thumbprint, crit: ['exp'] } })
      await refused(bearer(token), /crit/)
      expect(keys.lookups).to.equal(0)
    })

    it('scopes that are not an array of strings', async () => {
      await refused(bearer(mint(key, claims({ scopes: 'roles.read' }))), /scopes/)
      await refused(bearer(mint(key, claims({ scopes: ['roles.read', 1] }))), /scopes/)
      await refused(bearer(mint(key, { exp: T0 + 30 })), /scopes/)
    })

    it('a signature of the wrong length, before any crypto', () =>
      refused(bearer(handmade({ alg: 'ES512', kid: key.thumbprint }, claims(), 'AAAA')), /wrong length/))
  })

  it('reports a failing key store as Unavailable, not as a bad token', async () => {
    keys.failing = true
    const r = await verify(bearer(mint(key, claims())))()
    expect(E.isLeft(r) && r.left._tag).to.equal('Unavailable')
  })

  describe('cache', () => {
    it('still expires a cached token', async () => {
      const token = bearer(mint(key, claims()))
      await ok(token)
      clock.set(new Date((T0 + 29) * 1000))
      await ok(token)
      clock.set(new Date((T0 + 30) * 1000))
      await refused(token, /expired/)
    })

    it('still refuses a cached token whose nbf is beyond the leeway on a clock that went back', async () => {
      const token = bearer(mint(key, claims({ nbf: T0 })))
      await ok(token)
      clock.set(new Date((T0 - 31) * 1000))
      await refused(token, /nbf/)
    })

    it('still refuses a cached token once its key is revoked or removed', async () => {
      const token = bearer(mint(key, claims()))
      await ok(token)
      await keys.revoke(keyPair(key).id)()
      await refused(token, /revoked/)
      keys.byThumbprint.clear()
      await refused(token, /unknown kid/)
    })

    it('refuses a cached token while its key is suspended, and accepts it again once resumed', async () => {
      const token = bearer(mint(key, claims()))
      await ok(token)
      await keys.update(keyPair(key).id, { active: false, updated_at: new Date().toISOString() })()
      await refused(token, /suspended/)
      await keys.update(keyPair(key).id, { active: true, updated_at: new Date().toISOString() })()
      await ok(token)
    })

    it('tells onKeyUsed of every request a key authenticated, cached or not, and of no refused one', async () => {
      const used: string[] = []
      verify = makeTokenVerifier({ keys, clock, mac: fakeMac, cacheSize: 100, onKeyUsed: (id) => used.push(id) })
      const token = bearer(mint(key, claims()))
      await ok(token)
      await ok(token)
      await refused(bearer(mint(other, claims())), /unknown kid/)
      await refused(bearer(mint(other, claims(), { keyid: key.thumbprint })), /bad signature/)
      expect(used).to.deep.equal([keyPair(key).id, keyPair(key).id])
    })

    it('serves a verified token without checking its signature again, with the key as it is now', async () => {
      const token = bearer(mint(key, claims()))
      await ok(token)
      // Same kid, another public key: only a signature check could notice.
      keys.byThumbprint.set(key.thumbprint, keyPair(key, { public_key_pem: other.publicKeyPem, roles: ['read-only'] }))
      const p = await ok(token)
      expect(p.key.roles).to.deep.equal(['read-only'])
    })

    it('is bounded: the least recently used token is verified again', async () => {
      setup(1)
      const a = bearer(mint(key, claims({ jti: 'a' })))
      const b = bearer(mint(key, claims({ jti: 'b' })))
      await ok(a)
      await ok(b)
      keys.byThumbprint.set(key.thumbprint, keyPair(key, { public_key_pem: other.publicKeyPem }))
      await ok(b)
      await refused(a, /bad signature/)
    })

    it('forgets a token not presented for TOKEN_CACHE_IDLE_MS; each use restarts the count', async () => {
      const token = bearer(mint(key, claims({ exp: T0 + 3600 })))
      const at = (ms: number) => {
        clock.set(new Date(T0 * 1000 + ms))
      }
      await ok(token)
      keys.byThumbprint.set(key.thumbprint, keyPair(key, { public_key_pem: other.publicKeyPem }))
      at(TOKEN_CACHE_IDLE_MS - 1)
      await ok(token)
      at(2 * TOKEN_CACHE_IDLE_MS - 2)
      await ok(token)
      at(3 * TOKEN_CACHE_IDLE_MS - 2)
      await refused(token, /bad signature/)
    })

    it('caches nothing with size 0', async () => {
      setup(0)
      const token = bearer(mint(key, claims()))
      await ok(token)
      keys.byThumbprint.set(key.thumbprint, keyPair(key, { public_key_pem: other.publicKeyPem }))
      await refused(token, /bad signature/)
    })
  })
  describe('malleability: one signed content, one identity, one spelling', () => {
    it('(test helper) uses the 521-bit P-521 order for the twin', () => {
      expect(P521_N.toString(2)).to.have.length(521)
    })

    it('accepts the high-S twin (r, n - s) of a valid signature, with the same token id', async () => {
      const token = mint(key, claims())
      const twin = highSTwin(token)
      expect(twin).not.to.equal(token)
      expect(isHighS(twin)).to.equal(!isHighS(token))
      const a = await ok(bearer(token))
      const b = await ok(bearer(twin))
      expect(b.tokenId).to.equal(a.tokenId)
    })

    it('gives a re-signature of the same header and payload (and its twin) the same token id', async () => {
      const token = mint(key, claims())
      const again = resign(token, key)
      expect(signatureOf(again).equals(signatureOf(token))).to.equal(false)
      const ids = new Set([
        (await ok(bearer(token))).tokenId,
        (await ok(bearer(again))).tokenId,
        (await ok(bearer(highSTwin(again)))).tokenId,
      ])
      expect(ids.size).to.equal(1)
    })

    it('keys the id on what was signed, not on the token string', async () => {
      const token = mint(key, claims())
      const [h, p] = segments(token)
      expect((await ok(bearer(token))).tokenId).to.equal(`hash:${fakeMac.mac('token-hash', `${h}.${p}`)}`)
    })

    const spellingsOf = (which: 0 | 1 | 2, token: string) =>
      sameBytesSpellings(segments(token)[which]).map(({ label, spelling }) => {
        const parts = segments(token)
        parts[which] = spelling
        return { label, token: parts.join('.') }
      })

    for (const [which, name] of [
      [0, 'header'],
      [1, 'payload'],
      [2, 'signature'],
    ] as const) {
      for (const rest of which === 2 ? [0 as const] : ([0, 2, 3] as const)) {
        it(`refuses every other spelling of the same ${name} bytes (length % 4 = ${rest}), before any key lookup`, async () => {
          const shape = which === 0 ? { headerRest: rest } : which === 1 ? { payloadRest: rest } : { urlCharsInSignature: true }
          const token = mintShaped(key, claims(), shape)
          await ok(bearer(token))
          const lookups = keys.lookups
          const variants = spellingsOf(which, token)
          expect(variants.length).to.be.at.least(3)
          for (const v of variants) await refused(bearer(v.token), /canonical/)
          expect(keys.lookups, 'no key lookup for a malformed token').to.equal(lookups)
        })
      }
    }

    it('refuses a segment with a character outside the alphabet even where Node would skip it', async () => {
      const [h, p, s] = segments(mint(key, claims()))
      for (const bad of ['*', '%', '!', '\u00e9', '=']) await refused(bearer(`${h}.${p.slice(0, 4)}${bad}${p.slice(4)}.${s}`), /canonical/)
    })

    it('refuses a header or payload that is not UTF-8, or starts with a byte order mark', async () => {
      const sig = 'A'.repeat(176)
      const p = Buffer.from(JSON.stringify(claims())).toString('base64url')
      const latin1 = Buffer.from(`{"alg":"ES512","kid":"${key.thumbprint}","x":"\xe9"}`, 'latin1').toString('base64url')
      await refused(bearer(`${latin1}.${p}.${sig}`), /header is not a JSON object/)
      const bom = Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from(JSON.stringify({ alg: 'ES512', kid: key.thumbprint })),
      ]).toString('base64url')
      await refused(bearer(`${bom}.${p}.${sig}`), /header is not a JSON object/)
    })
  })

  describe('lifetime and iat', () => {
    const DAY = 86400
    /** jsonwebtoken drops a given `iat` under `noTimestamp`. */
    const withIat = (c: Record<string, unknown>) => mint(key, c, { noTimestamp: false })

    it('accepts exp - iat of exactly the maximum (default one day), refuses one second more', async () => {
      clock.set(new Date(T0 * 1000))
      await ok(bearer(withIat(claims({ iat: T0 - 10, exp: T0 - 10 + DAY }))))
      await refused(bearer(withIat(claims({ iat: T0 - 10, exp: T0 - 10 + DAY + 1 }))), /lifetime/)
    })

    it('without iat, measures the lifetime from now', async () => {
      await ok(bearer(mint(key, claims({ exp: T0 + DAY }))))
      await refused(bearer(mint(key, claims({ exp: T0 + DAY + 1 }))), /lifetime/)
    })

    it('refuses a very long lived token however long ago it was issued', () =>
      refused(bearer(withIat(claims({ iat: T0 - 365 * DAY, exp: T0 + 60 }))), /lifetime/))

    it('takes the maximum from the deps', async () => {
      setup(100, 60)
      await ok(bearer(withIat(claims({ iat: T0, exp: T0 + 60 }))))
      await refused(bearer(withIat(claims({ iat: T0, exp: T0 + 61 }))), /lifetime/)
      await refused(bearer(mint(key, claims({ exp: T0 + 61 }))), /lifetime/)
    })

    it('accepts iat within the 30 s leeway, refuses it beyond', async () => {
      await ok(bearer(withIat(claims({ iat: T0 + 30 }))))
      await refused(bearer(withIat(claims({ iat: T0 + 31 }))), /iat/)
    })

    it('refuses an iat that is not a number', async () => {
      await refused(bearer(handmade({ alg: 'ES512', kid: key.thumbprint }, claims({ iat: String(T0) }))), /iat/)
      await refused(bearer(handmade({ alg: 'ES512', kid: key.thumbprint }, claims({ iat: null }))), /iat/)
    })

    it('still refuses a cached token whose iat is beyond the leeway on a clock that went back', async () => {
      const token = bearer(withIat(claims({ iat: T0 })))
      await ok(token)
      clock.set(new Date((T0 - 31) * 1000))
      await refused(token, /iat/)
    })
  })

  describe('cache and altered signatures', () => {
    it('verifies a cached token with its signature altered, and refuses it', async () => {
      const token = mint(key, claims())
      await ok(bearer(token))
      const sig = signatureOf(token)
      for (const i of [0, 65, 66, 131]) {
        const bad = Buffer.from(sig)
        bad[i] = bad[i]! ^ 0x01
        await refused(bearer(withSignature(token, bad)), /bad signature/)
      }
      // The original is still served from the cache.
      await ok(bearer(token))
    })

    it('does not let a cached token vouch for another spelling of it', async () => {
      const token = mint(key, claims())
      await ok(bearer(token))
      await refused(bearer(`${token}A`), /canonical/)
    })

    it('verifies the high-S twin of a cached token on its own (a key swap makes it fail)', async () => {
      const token = mint(key, claims())
      await ok(bearer(token))
      keys.byThumbprint.set(key.thumbprint, keyPair(key, { public_key_pem: other.publicKeyPem }))
      await ok(bearer(token))
      await refused(bearer(highSTwin(token)), /bad signature/)
    })

    it('verifies the signature of the same header and payload signed by another key', async () => {
      const token = mint(key, claims())
      await ok(bearer(token))
      await refused(bearer(resign(token, other)), /bad signature/)
    })
  })
})
