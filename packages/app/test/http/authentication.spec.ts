import { expect } from 'chai'
import jwt from 'jsonwebtoken'
import { jwkThumbprint } from '@orka/adapters-http'
import { generateKeyPair, publicKeyOf } from '../../src/dev-key'
import { errorBody, Harness, IDS, startHarness } from '../support/harness'

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url')

describe('authentication and authorization', () => {
  let h: Harness
  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  describe('401 for a token that cannot be used', () => {
    const cases: [string, () => string | null][] = [
      ['no Authorization header', () => null],
      ['a token that is not a JWT', () => 'garbage'],
      [
        'alg none',
        () =>
          `${b64({ alg: 'none', typ: 'JWT', kid: jwkThumbprint(publicKeyOf(h.pems.admin)) })}.${b64({ scopes: ['*.read'], exp: 9999999999 })}.`,
      ],
      [
        'HS512 signed with the public key as the secret',
        () => {
          const pub = publicKeyOf(h.pems.admin)
          return jwt.sign({ scopes: ['*.read'] }, pub, { algorithm: 'HS512', keyid: jwkThumbprint(pub), expiresIn: 60 })
        },
      ],
      ['an expired token', () => h.token('admin', { now: new Date(h.clock.now().getTime() - 3600_000), expiresInS: 30 })],
      [
        'a token signed by a key the instance does not know',
        () => jwt.sign({ scopes: ['*.read'] }, generateKeyPair().privateKeyPem, { algorithm: 'ES512', keyid: 'unknown', expiresIn: 60 }),
      ],
      [
        "a token whose signature is another key's",
        () => {
          const kid = jwkThumbprint(publicKeyOf(h.pems.admin))
          return jwt.sign({ scopes: ['*.read'], exp: Math.floor(h.clock.now().getTime() / 1000) + 60 }, h.pems.readOnly, {
            algorithm: 'ES512',
            keyid: kid,
          })
        },
      ],
      ['a token over 8 KiB', () => h.token('admin', { scopes: Array.from({ length: 700 }, (_, i) => `area${i}.read`) })],
    ]
    for (const [what, make] of cases)
      it(`rejects ${what}`, async () => {
        const r = await h.request('GET', '/roles', { auth: make() })
        expect(r.status).to.equal(401)
        expect(r.body).to.deep.equal(errorBody(401))
      })
  })

  it('accepts a fresh 30-second token as the SDKs mint it', async () => {
    const r = await h.request('GET', '/roles', { auth: h.token('admin', { scopes: ['roles.read'], expiresInS: 30 }) })
    expect(r.status).to.equal(200)
  })

  it('answers 403 when the token lacks the scope', async () => {
    const r = await h.request('POST', '/gift-cards/activations', {
      auth: h.token('admin', { scopes: ['roles.read'] }),
      body: { number: '6000000000000000001' },
    })
    expect(r.status).to.equal(403)
    expect(r.body).to.deep.equal(errorBody(403))
  })

  it("answers 403 when the token asks for a scope its key's roles do not grant (restricted key)", async () => {
    const r = await h.request('GET', '/roles', { auth: h.token('giftCardOperator', { scopes: ['roles.read'] }) })
    expect(r.status).to.equal(403)
    expect(r.body).to.deep.equal(errorBody(403))
    const allowed = await h.request('POST', '/gift-cards/activations', {
      auth: h.token('giftCardOperator', { scopes: ['gift-cards.write'] }),
      body: { number: '6000000000000000011' },
    })
    expect(allowed.status).to.equal(201)
  })

  it('answers the same 403 for another merchant account and for an unknown one, with a key bound to acme', async () => {
    const other = await h.request('GET', '/roles', { auth: 'acmeAdmin', merchantAccount: 'default' })
    const unknown = await h.request('GET', '/roles', { auth: 'acmeAdmin', merchantAccount: 'nope' })
    const own = await h.request('GET', '/roles', { auth: 'acmeAdmin', merchantAccount: 'acme' })
    expect([other.status, unknown.status, own.status]).to.deep.equal([403, 403, 200])
    expect(other.text).to.equal(unknown.text)
    expect(other.body).to.deep.equal(errorBody(403))
  })

  it('answers 403 for an unknown merchant account with an unbound key', async () => {
    const r = await h.request('GET', '/roles', { merchantAccount: 'nope' })
    expect(r.status).to.equal(403)
    expect(r.body).to.deep.equal(errorBody(403))
  })

  it('answers 403 for a locked merchant account', async () => {
    const r = await h.request('GET', '/roles', { merchantAccount: 'frozen' })
    expect(r.status).to.equal(403)
    expect(r.body).to.deep.equal(errorBody(403))
  })

  it("answers 404, not 403, for another merchant account's resource", async () => {
    const r = await h.request('GET', `/webhook-subscriptions/${IDS.acmeWebhook}`)
    expect(r.status).to.equal(404)
    expect(r.body).to.deep.equal(errorBody(404))
  })

  it('lets an embed token activate gift cards but not list roles', async () => {
    const embed = h.token('admin', { scopes: ['embed'] })
    const activation = await h.request('POST', '/gift-cards/activations', { auth: embed, body: { number: '6000000000000000012' } })
    expect(activation.status).to.equal(201)
    const roles = await h.request('GET', '/roles', { auth: embed })
    expect(roles.status).to.equal(403)
  })
})
