import { expect } from 'chai'
import { errorBody, Harness, Resource, startHarness, ValidationErrorBody } from '../support/harness'

/** The properties of a GiftCard these tests read. */
interface GiftCard extends Resource {
  readonly merchant_account_id: string
  readonly buyer: Resource | null
}

describe('idempotency-key on POST /gift-cards/activations', () => {
  let h: Harness
  before(async () => {
    // the 0009 test number answers after 2 s: the connector must wait longer than that
    h = await startHarness({ env: { CONNECTOR_TIMEOUT_MS: '5000' } })
  })
  after(() => h.close())
  const activate = <T = GiftCard>(key: string, body: unknown, o: { merchantAccount?: string; auth?: string | null } = {}) =>
    h.request<T>('POST', '/gift-cards/activations', { body, headers: { 'idempotency-key': key }, ...o })

  it('replays the first response byte for byte, with Idempotent-Replayed, without a second activation', async () => {
    const body = { number: '7000000000000000001', pin: '1234', store: true }
    const first = await activate('key-replay', body)
    expect(first.status).to.equal(201)
    expect(first.headers.get('idempotent-replayed')).to.equal(null)
    const second = await activate('key-replay', { store: true, pin: '1234', number: '7000000000000000001' })
    expect(second.status).to.equal(201)
    expect(second.headers.get('idempotent-replayed')).to.equal('true')
    expect(second.text).to.equal(first.text)
    // a second activation would have hit the vault's duplicate check and answered 409
  })

  it('answers 400 with a header detail when the key is reused with another body', async () => {
    expect((await activate('key-mismatch', { number: '7000000000000000012' })).status).to.equal(201)
    const r = await activate('key-mismatch', { number: '7000000000000000013' })
    expect(r.status).to.equal(400)
    expect(r.body).to.deep.equal(
      errorBody(400, [
        {
          location: 'header',
          pointer: '/idempotency-key',
          message: 'This idempotency key was already used with a different request body',
          type: 'idempotency_key_reused',
        },
      ]),
    )
  })

  it('answers 425 with Retry-After while the first request with the key is still running', async () => {
    const slow = activate('key-in-flight', { number: '7000000000000000009' })
    await new Promise((r) => setTimeout(r, 200))
    const early = await activate('key-in-flight', { number: '7000000000000000009' })
    expect(early.status).to.equal(425)
    expect(early.body).to.deep.equal(errorBody(425))
    expect(early.headers.get('retry-after')).to.equal('1')
    const first = await slow
    expect(first.status).to.equal(201)
    const after = await activate('key-in-flight', { number: '7000000000000000009' })
    expect(after.status).to.equal(201)
    expect(after.text).to.equal(first.text)
  })

  it('replays a declined activation as the same 400', async () => {
    const first = await activate('key-declined', { number: '7000000000000000002' })
    expect(first.status).to.equal(400)
    const second = await activate('key-declined', { number: '7000000000000000002' })
    expect(second.status).to.equal(400)
    expect(second.headers.get('idempotent-replayed')).to.equal('true')
    expect(second.text).to.equal(first.text)
  })

  it('does not record a request rejected before the gift card service, so it can be retried with the same key', async () => {
    const body = { number: '7000000000000000004', pin: '1', store: true, buyer_external_identifier: 'late-buyer' }
    const first = await activate('key-early', body)
    expect(first.status).to.equal(400)
    const created = await h.request<Resource>('POST', '/buyers', { body: { external_identifier: 'late-buyer' } })
    expect(created.status).to.equal(201)
    const retry = await activate('key-early', body)
    expect(retry.status).to.equal(201)
    expect(retry.body.buyer!.id).to.equal(created.body.id)
  })

  it('does not record a 422 either', async () => {
    expect((await activate('key-422', { number: 'short' })).status).to.equal(422)
    expect((await activate('key-422', { number: '7000000000000000005' })).status).to.equal(201)
  })

  it('does not record a 502, so the retry reaches the service again', async () => {
    const a = await activate('key-502', { number: '7000000000000000502' })
    const b = await activate('key-502', { number: '7000000000000000502' })
    expect([a.status, b.status]).to.deep.equal([502, 502])
    expect(b.headers.get('idempotent-replayed')).to.equal(null)
  })

  it('scopes keys per merchant account', async () => {
    const body = { number: '7000000000000000006' }
    const a = await activate('key-shared', body)
    const b = await activate('key-shared', body, { merchantAccount: 'acme' })
    expect([a.status, b.status]).to.deep.equal([201, 201])
    expect(b.body.merchant_account_id).to.equal('acme')
    expect(b.headers.get('idempotent-replayed')).to.equal(null)
  })

  it('checks authentication and scopes before any replay', async () => {
    const body = { number: '7000000000000000007' }
    expect((await activate('key-auth', body)).status).to.equal(201)
    const anonymous = await activate('key-auth', body, { auth: null })
    expect(anonymous.status).to.equal(401)
    expect(anonymous.body).to.deep.equal(errorBody(401))
    const readOnly = await activate('key-auth', body, { auth: h.token('readOnly', { scopes: ['*.read'] }) })
    expect(readOnly.status).to.equal(403)
    expect(readOnly.body).to.deep.equal(errorBody(403))
  })

  it('replays for 24 hours, then treats the key as new', async () => {
    const body = { number: '7000000000000000008' }
    const first = await activate('key-expiry', body)
    h.clock.advance(24 * 3600 * 1000 - 1000)
    const replay = await activate('key-expiry', body)
    expect(replay.headers.get('idempotent-replayed')).to.equal('true')
    expect(replay.text).to.equal(first.text)
    h.clock.advance(2000)
    const fresh = await activate('key-expiry', body)
    expect(fresh.status).to.equal(201)
    expect(fresh.headers.get('idempotent-replayed')).to.equal(null)
    expect(fresh.body.id).not.to.equal(first.body.id)
  })

  it('rejects an empty idempotency key with 422', async () => {
    const r = await activate<ValidationErrorBody>('', { number: '7000000000000000010' })
    expect(r.status).to.equal(422)
    expect(r.body.detail[0]!.loc).to.deep.equal(['header', 'idempotency-key'])
  })
})

describe('idempotency-key and the buyer an embed token names', () => {
  let h: Harness
  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())
  /** An embed token; with a claim, it writes cards only for that buyer (or none). */
  const embedFor = (claim?: Record<string, string>) =>
    h.token('admin', { scopes: ['embed'], ...(claim === undefined ? {} : { embedClaim: claim }) })
  let n = 0
  /** A fresh number the mock accepts. */
  const fresh = () => `700000000000${String(3000 + n++).padStart(7, '0')}`

  for (const [path, extra] of [
    ['/gift-cards/activations', { store: true }],
    ['/gift-cards', {}],
  ] as const)
    describe(`POST ${path}`, () => {
      /** Buyer A (with everything a card's buyer shows), buyer B, and the body A's token sends: A's card. */
      const buyersAndBody = async () => {
        const a = await h.request<Resource>('POST', '/buyers', {
          body: {
            display_name: `Alice Able ${n}`,
            external_identifier: `buyer-a-${n}`,
            billing_details: { first_name: 'Alice', email_address: `alice-${n}@example.test`, address: { country: 'NL', city: 'Delft' } },
          },
        })
        const b = await h.request<Resource>('POST', '/buyers', { body: { display_name: 'Bob', external_identifier: `buyer-b-${n}` } })
        expect([a.status, b.status]).to.deep.equal([201, 201])
        return { a: a.body, b: b.body, body: { number: fresh(), pin: '1234', ...extra, buyer_id: a.body.id } }
      }

      it("answers a token of another buyer, or one naming none, with the 403 a fresh key gets, and A's replay still works", async () => {
        const { a, b, body } = await buyersAndBody()
        const post = (auth: string, key: string) => h.request<GiftCard>('POST', path, { auth, body, headers: { 'idempotency-key': key } })
        const key = `key-embed-buyer ${path}`
        const first = await post(embedFor({ buyer_id: a.id }), key)
        expect(first.status).to.equal(201)
        expect(first.body.buyer).to.deep.equal(a)
        for (const [i, auth] of [embedFor({ buyer_id: b.id }), embedFor()].entries()) {
          const refused = await post(auth, `${key} fresh ${i}`)
          expect(refused.status).to.equal(403)
          expect(refused.body).to.deep.equal(errorBody(403))
          const r = await post(auth, key)
          expect(r.status).to.equal(403)
          expect(r.body).to.deep.equal(errorBody(403))
          expect(r.text).to.equal(refused.text)
          expect(r.headers.get('idempotent-replayed')).to.equal(null)
          for (const shown of [first.body.id, a.id, a.display_name, a.external_identifier, 'Alice']) expect(r.text).not.to.include(shown)
        }
        const again = await post(embedFor({ buyer_id: a.id }), key)
        expect(again.status).to.equal(201)
        expect(again.headers.get('idempotent-replayed')).to.equal('true')
        expect(again.text).to.equal(first.text)
      })

      it('replays to another token of the same buyer and to a server token', async () => {
        const { a, body } = await buyersAndBody()
        const post = (auth: string) =>
          h.request<GiftCard>('POST', path, { auth, body, headers: { 'idempotency-key': `key-same-buyer ${path}` } })
        const first = await post(embedFor({ buyer_id: a.id }))
        expect(first.status).to.equal(201)
        for (const auth of [
          embedFor({ buyer_external_identifier: String(a.external_identifier) }),
          h.token('admin', { scopes: ['gift-cards.write'] }),
        ]) {
          const r = await post(auth)
          expect(r.status).to.equal(201)
          expect(r.headers.get('idempotent-replayed')).to.equal('true')
          expect(r.text).to.equal(first.text)
        }
      })
    })
})
