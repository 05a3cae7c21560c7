import { expect } from 'chai'
import {
  DEFAULT_GIFT_CARD_SERVICE,
  errorBody,
  Harness,
  IDS,
  Page,
  Resource,
  startHarness,
  UUID_RE,
  ValidationErrorBody,
} from '../support/harness'

interface GiftCard extends Resource {
  readonly expiration_date: string | null
  readonly merchant_account_id: string
  readonly buyer: Resource | null
}

const PIN = '8642'
const MISSING = '99999999-9999-4999-8999-999999999999'

describe('gift cards', () => {
  let h: Harness
  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())
  const store = <T = GiftCard>(body: unknown, o: { merchantAccount?: string; auth?: string; headers?: Record<string, string> } = {}) =>
    h.request<T>('POST', '/gift-cards', { body, ...o })
  let n = 0
  /** A fresh number the mock accepts (ending in 1xxx). */
  const fresh = () => `700000000000000${String(1000 + n++).padStart(4, '0')}`
  const stored = async (body: Record<string, unknown> = {}, merchantAccount?: string) => {
    const r = await store({ number: fresh(), pin: PIN, ...body }, merchantAccount === undefined ? {} : { merchantAccount })
    expect(r.status).to.equal(201)
    return r.body
  }

  describe('POST /gift-cards', () => {
    it('checks the card with the primary service, stores it and answers 201 with exactly the GiftCard properties', async () => {
      const number = '7000000000000001111'
      const r = await store({ number, pin: PIN })
      expect(r.status).to.equal(201)
      const now = h.clock.now()
      const expiry = new Date(now)
      expiry.setUTCFullYear(expiry.getUTCFullYear() + 3)
      expect(r.body.id).to.match(UUID_RE)
      expect(r.body).to.deep.equal({
        type: 'gift-card',
        id: r.body.id,
        merchant_account_id: 'default',
        gift_card_service: DEFAULT_GIFT_CARD_SERVICE,
        bin: '700000',
        sub_bin: '000',
        last4: '1111',
        expiration_date: expiry.toISOString(),
        buyer: null,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
        last_used_at: null,
        usage_count: 0,
        cit_last_used_at: null,
        cit_usage_count: 0,
      })
      expect(r.text).not.to.include(number).and.not.to.include(PIN)
      const read = await h.request<GiftCard>('GET', `/gift-cards/${r.body.id}`)
      expect(read.status).to.equal(200)
      expect(read.body).to.deep.equal(r.body)
    })

    it('stores an empty card (0004)', async () => {
      const r = await store({ number: '7000000000000000004', pin: PIN })
      expect(r.status).to.equal(201)
      expect(r.body.last4).to.equal('0004')
    })

    it('stores for a buyer named by id or by external identifier', async () => {
      const byId = await stored({ buyer_id: IDS.defaultBuyer })
      expect(byId.buyer).to.deep.include({ type: 'buyer', id: IDS.defaultBuyer, external_identifier: 'buyer-1' })
      const byExt = await stored({ buyer_external_identifier: 'buyer-1' })
      expect(byExt.buyer?.id).to.equal(IDS.defaultBuyer)
    })

    it('answers 404 with a detail on the field for an unknown buyer, or one of another account', async () => {
      for (const buyer_id of [MISSING, IDS.acmeBuyer]) {
        const r = await store({ number: fresh(), pin: PIN, buyer_id })
        expect(r.status).to.equal(404)
        expect(r.body).to.deep.equal(
          errorBody(404, [
            {
              location: 'body',
              pointer: '/buyer_id',
              message: 'No buyer with this id exists in this merchant account',
              type: 'unknown_buyer',
            },
          ]),
        )
      }
      const r = await store({ number: fresh(), pin: PIN, buyer_external_identifier: 'nobody' })
      expect(r.status).to.equal(404)
      expect(r.body).to.deep.equal(
        errorBody(404, [
          {
            location: 'body',
            pointer: '/buyer_external_identifier',
            message: 'No buyer with this external identifier exists in this merchant account',
            type: 'unknown_buyer',
          },
        ]),
      )
    })

    it('answers 422 at the body for both buyer fields at once', async () => {
      const r = await h.request<ValidationErrorBody>('POST', '/gift-cards', {
        body: { number: fresh(), pin: PIN, buyer_id: IDS.defaultBuyer, buyer_external_identifier: 'buyer-1' },
      })
      expect(r.status).to.equal(422)
      expect(r.body).to.deep.equal({
        detail: [
          {
            loc: ['body', 'buyer_external_identifier'],
            msg: 'Value error, `buyer_id` and `buyer_external_identifier` must not both be set',
            type: 'value_error',
            input: 'buyer-1',
          },
        ],
      })
    })

    it('answers 422 for a missing PIN, without echoing the number', async () => {
      const number = '7000000000000009991'
      const r = await h.request<ValidationErrorBody>('POST', '/gift-cards', { body: { number } })
      expect(r.status).to.equal(422)
      expect(r.body).to.deep.equal({ detail: [{ loc: ['body', 'pin'], msg: 'Field required', type: 'missing' }] })
      expect(r.text).not.to.include(number)
    })

    it('answers 422 for a PIN over 64 characters without echoing it, and stores one of 64', async () => {
      const r = await h.request<ValidationErrorBody>('POST', '/gift-cards', { body: { number: fresh(), pin: '7'.repeat(65) } })
      expect(r.status).to.equal(422)
      expect(r.body).to.deep.equal({
        detail: [
          { loc: ['body', 'pin'], msg: 'String should have at most 64 characters', type: 'string_too_long', ctx: { max_length: 64 } },
        ],
      })
      await stored({ pin: '7'.repeat(64) })
    })

    it('answers 400 with a detail on /number for a card the service refuses (0002, 0003)', async () => {
      const invalid = await store({ number: '7000000000000000002', pin: PIN })
      expect(invalid.status).to.equal(400)
      expect(invalid.body).to.deep.equal(
        errorBody(400, [
          {
            location: 'body',
            pointer: '/number',
            message: 'The gift card service does not know this gift card',
            type: 'invalid_gift_card',
          },
        ]),
      )
      const expired = await store({ number: '7000000000000000003', pin: PIN })
      expect(expired.status).to.equal(400)
      expect(expired.body).to.deep.equal(
        errorBody(400, [{ location: 'body', pointer: '/number', message: 'The gift card has expired', type: 'expired_card' }]),
      )
    })

    it('answers 502 when the service fails (0502) and 504 when it does not answer in time (0504)', async () => {
      const failed = await store({ number: '7000000000000000502', pin: PIN })
      expect(failed.status).to.equal(502)
      expect(failed.body).to.deep.equal(errorBody(502))
      const late = await store({ number: '7000000000000000504', pin: PIN })
      expect(late.status).to.equal(504)
      expect(late.body).to.deep.equal(errorBody(504))
    })

    it('answers 409 with the stored card id for a number already stored in the account', async () => {
      const number = fresh()
      const first = await store({ number, pin: PIN })
      const again = await store({ number, pin: '1111' })
      expect(again.status).to.equal(409)
      expect(again.body).to.deep.equal(errorBody(409, [], { resource_id: first.body.id }))
      expect((await store({ number, pin: PIN }, { merchantAccount: 'acme' })).status).to.equal(201)
    })

    it('replays the stored card for the same idempotency key and body', async () => {
      const body = { number: fresh(), pin: PIN }
      const headers = { 'idempotency-key': 'store-key-1' }
      const first = await store(body, { headers })
      expect(first.status).to.equal(201)
      const again = await store(body, { headers })
      expect(again.status).to.equal(201)
      expect(again.headers.get('idempotent-replayed')).to.equal('true')
      expect(again.body).to.deep.equal(first.body)
      const other = await store({ number: fresh(), pin: PIN }, { headers })
      expect(other.status).to.equal(400)
      expect(other.body).to.deep.equal(
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

    it('answers 403 to a token without gift-cards.write, and accepts an embed token', async () => {
      const r = await store({ number: fresh(), pin: PIN }, { auth: h.token('admin', { scopes: ['gift-cards.read'] }) })
      expect(r.status).to.equal(403)
      expect(r.body).to.deep.equal(errorBody(403))
      const embed = await store({ number: fresh(), pin: PIN }, { auth: h.token('admin', { scopes: ['embed'] }) })
      expect(embed.status).to.equal(201)
    })

    it('counts stores and activations together against one embed quota', async () => {
      const embed = h.token('admin', { scopes: ['embed'] })
      const a = await h.request('POST', '/gift-cards/activations', { auth: embed, body: { number: fresh() } })
      expect(a.headers.get('ratelimit')).to.match(/^"embed";r=49;/)
      const s = await store({ number: fresh(), pin: PIN }, { auth: embed })
      expect(s.headers.get('ratelimit')).to.match(/^"embed";r=48;/)
      const refused = await store({ number: '7000000000000000002', pin: PIN }, { auth: embed })
      expect(refused.headers.get('ratelimit')).to.match(/^"embed";r=47;/)
    })
  })

  describe('GET /gift-cards', () => {
    it('lists the account newest first, page by page, with cursors bound to the filter', async () => {
      const cards: GiftCard[] = []
      for (let i = 0; i < 3; i++) {
        h.clock.advance(1000)
        cards.push(await stored({}, 'acme'))
      }
      const first = await h.request<Page<GiftCard>>('GET', '/gift-cards?limit=2', { merchantAccount: 'acme' })
      expect(first.status).to.equal(200)
      expect(first.body.items.slice(0, 2)).to.deep.equal([cards[2], cards[1]])
      expect(first.body.limit).to.equal(2)
      expect(first.body.previous_cursor).to.equal(null)
      const next = await h.request<Page<GiftCard>>('GET', `/gift-cards?limit=2&cursor=${first.body.next_cursor}`, {
        merchantAccount: 'acme',
      })
      expect(next.status).to.equal(200)
      expect(next.body.items[0]).to.deep.equal(cards[0])
      const otherFilter = await h.request('GET', `/gift-cards?limit=2&buyer_id=${IDS.acmeBuyer}&cursor=${first.body.next_cursor}`, {
        merchantAccount: 'acme',
      })
      expect(otherFilter.status).to.equal(400)
      expect(otherFilter.body).to.deep.equal(
        errorBody(400, [
          {
            location: 'query',
            pointer: '/cursor',
            message: 'The cursor is not valid for this list; use a cursor from the previous response',
            type: 'invalid_cursor',
          },
        ]),
      )
      const otherAccount = await h.request('GET', `/gift-cards?limit=2&cursor=${first.body.next_cursor}`)
      expect(otherAccount.status).to.equal(400)
    })

    it('filters by buyer id and by buyer external identifier', async () => {
      const mine = await stored({ buyer_id: IDS.defaultBuyer })
      await stored()
      const byId = await h.request<Page<GiftCard>>('GET', `/gift-cards?buyer_id=${IDS.defaultBuyer}`)
      expect(byId.status).to.equal(200)
      expect(byId.body.items.every((c) => c.buyer?.id === IDS.defaultBuyer)).to.equal(true)
      expect(byId.body.items.map((c) => c.id)).to.include(mine.id)
      const byExt = await h.request<Page<GiftCard>>('GET', '/gift-cards?buyer_external_identifier=buyer-1')
      expect(byExt.body).to.deep.equal(byId.body)
      const nobody = await h.request<Page<GiftCard>>('GET', '/gift-cards?buyer_external_identifier=nobody')
      expect(nobody.status).to.equal(200)
      expect(nobody.body).to.deep.equal({ items: [], limit: 20, next_cursor: null, previous_cursor: null })
    })

    it('answers 422 for a malformed filter, and 403 to an embed token or one without gift-cards.read', async () => {
      const bad = await h.request<ValidationErrorBody>('GET', '/gift-cards?buyer_id=not-a-uuid')
      expect(bad.status).to.equal(422)
      expect(bad.body.detail.map((d) => d.loc)).to.deep.equal([['query', 'buyer_id']])
      const r = await h.request('GET', '/gift-cards', { auth: h.token('admin', { scopes: ['roles.read'] }) })
      expect(r.status).to.equal(403)
      expect(r.body).to.deep.equal(errorBody(403))
    })
  })

  describe('GET /gift-cards/{gift_card_id}', () => {
    it("answers 404 for an unknown card and for another account's", async () => {
      const theirs = await stored({}, 'acme')
      for (const id of [MISSING, theirs.id]) {
        const r = await h.request('GET', `/gift-cards/${id}`)
        expect(r.status).to.equal(404)
        expect(r.body).to.deep.equal(errorBody(404))
      }
      const ok = await h.request<GiftCard>('GET', `/gift-cards/${theirs.id.toUpperCase()}`, { merchantAccount: 'acme' })
      expect(ok.status).to.equal(200)
      expect(ok.body).to.deep.equal(theirs)
    })

    it('answers 422 for an id that is not a UUID', async () => {
      const r = await h.request<ValidationErrorBody>('GET', '/gift-cards/not-a-uuid')
      expect(r.status).to.equal(422)
      expect(r.body.detail.map((d) => d.loc)).to.deep.equal([['path', 'gift_card_id']])
    })
  })

  describe('DELETE /gift-cards/{gift_card_id}', () => {
    it('answers 204, destroys the card (the number can be stored again), and 404 the second time', async () => {
      const number = fresh()
      const card = (await store({ number, pin: PIN })).body
      const r = await h.request('DELETE', `/gift-cards/${card.id}`)
      expect(r.status).to.equal(204)
      expect(r.text).to.equal('')
      expect((await h.request('GET', `/gift-cards/${card.id}`)).status).to.equal(404)
      const again = await h.request('DELETE', `/gift-cards/${card.id}`)
      expect(again.status).to.equal(404)
      expect(again.body).to.deep.equal(errorBody(404))
      const list = await h.request<Page<GiftCard>>('GET', '/gift-cards?limit=100')
      expect(list.body.items.map((c) => c.id)).not.to.include(card.id)
      expect((await store({ number, pin: PIN })).status).to.equal(201)
    })

    it("answers 404 for another account's card, and leaves it", async () => {
      const theirs = await stored({}, 'acme')
      const r = await h.request('DELETE', `/gift-cards/${theirs.id}`)
      expect(r.status).to.equal(404)
      expect(r.body).to.deep.equal(errorBody(404))
      expect((await h.request('GET', `/gift-cards/${theirs.id}`, { merchantAccount: 'acme' })).status).to.equal(200)
    })

    it('answers 403 to a token with gift-cards.read only', async () => {
      const card = await stored()
      const r = await h.request('DELETE', `/gift-cards/${card.id}`, { auth: h.token('admin', { scopes: ['gift-cards.read'] }) })
      expect(r.status).to.equal(403)
      expect(r.body).to.deep.equal(errorBody(403))
    })
  })

  it('keeps fixed sibling paths apart from the card id: other methods there are 405', async () => {
    const get = await h.request('GET', '/gift-cards/activations')
    expect(get.status).to.equal(405)
    expect(get.headers.get('allow')).to.equal('POST, OPTIONS')
    expect(get.body).to.deep.equal(errorBody(405))
    const del = await h.request('DELETE', '/gift-cards/activations/')
    expect(del.status).to.equal(405)
    const balances = await h.request('GET', '/gift-cards/balances')
    expect(balances.status).to.equal(405)
    expect(balances.headers.get('allow')).to.equal('POST, OPTIONS')
    expect(balances.body).to.deep.equal(errorBody(405))
  })

  it('never writes a card number, PIN or token to the log', async () => {
    const token = h.token()
    const numbers = ['7000000000000007771', '7000000000000000002', '7000000000000000502']
    for (const number of numbers) await h.request('POST', '/gift-cards', { auth: token, body: { number, pin: '97531' } })
    await h.request('GET', `/gift-cards/${numbers[0]!}`, { auth: token })
    const all = h.logs.join('\n')
    expect(h.logs.length).to.be.greaterThan(0)
    for (const secret of [...numbers, '97531', token, token.split('.')[2]!]) expect(all).not.to.include(secret)
  })
})
