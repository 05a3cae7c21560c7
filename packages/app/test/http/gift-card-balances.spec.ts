import { expect } from 'chai'
import { aGiftCardSummary } from '@orka/domain/testing'
import { errorBody, Harness, IDS, Page, Resource, startHarness, ValidationErrorBody } from '../support/harness'

interface Summary {
  readonly id: string | null
  readonly last4: string
  readonly balance: number | null
  readonly balance_error_code: string | null
}
interface Summaries {
  readonly items: readonly Summary[]
}

const PIN = '8642'

describe('gift card balances and a buyer’s gift cards', () => {
  let h: Harness
  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  let n = 0
  /** A fresh number the mock accepts (ending in 2xxx), or one ending in `last4`. */
  const number = (last4?: string) => `710000000000000${last4 ?? String(2000 + n++)}`
  const threeYearsOn = () => {
    const d = h.clock.now()
    d.setUTCFullYear(d.getUTCFullYear() + 3)
    return d.toISOString()
  }
  /** A summary in the default account, of a number starting 710000000. */
  const summary = (o: Record<string, unknown>) => aGiftCardSummary({ merchant_account_id: 'default', bin: '710000', sub_bin: '000', ...o })
  const funded = (o: Record<string, unknown>) => summary({ balance: 10000, currency: 'USD', expiration_date: threeYearsOn(), ...o })
  const store = async (body: Record<string, unknown>, o: { auth?: string; merchantAccount?: string } = {}) => {
    const r = await h.request<Resource & { last4: string }>('POST', '/gift-cards', { body: { pin: PIN, ...body }, ...o })
    expect(r.status).to.equal(201)
    return r.body
  }
  const balances = (items: unknown, o: { auth?: string; merchantAccount?: string } = {}) =>
    h.request<Summaries>('POST', '/gift-cards/balances', { body: { items }, ...o })
  /** An embed token; its `embed` claim as given (malformed ones included). */
  const embedFor = (claim?: unknown) =>
    h.token('admin', { scopes: ['embed'], ...(claim === undefined ? {} : { embedClaim: claim as Record<string, string> }) })

  describe('POST /gift-cards/balances', () => {
    it('answers every item in request order: balances, refusals and service failures each as that item’s summary', async () => {
      const stored = await store({ number: number('7001') })
      const items = [
        { number: number('1234'), pin: PIN },
        { number: number('0002'), pin: PIN },
        { id: stored.id },
        { number: number('0003'), pin: PIN },
        { number: number('0004'), pin: PIN },
        { number: number('0502'), pin: PIN },
        { number: number('0504'), pin: PIN },
      ]
      const r = await balances(items)
      expect(r.status).to.equal(200)
      expect(r.body).to.deep.equal({
        items: [
          funded({ last4: '1234' }),
          summary({ last4: '0002', balance_error_code: 'invalid_gift_card' }),
          funded({ id: stored.id, last4: '7001' }),
          summary({ last4: '0003', balance_error_code: 'expired_card' }),
          summary({ last4: '0004', balance: 0, currency: 'USD', expiration_date: threeYearsOn() }),
          summary({ last4: '0502', balance_error_code: 'service_error' }),
          summary({ last4: '0504', balance_error_code: 'service_network_error' }),
        ],
      })
      expect(r.text).not.to.include(number('1234')).and.not.to.include(PIN)
    })

    it('stores nothing and logs no number or PIN of the cards it checks', async () => {
      const before = await h.request<Page>('GET', '/gift-cards?limit=100')
      const numbers = [number(), number('0002'), number('0502')]
      expect((await balances(numbers.map((x) => ({ number: x, pin: '97531' })))).status).to.equal(200)
      expect(await h.request<Page>('GET', '/gift-cards?limit=100'))
        .to.have.nested.property('body.items')
        .that.deep.equals(before.body.items)
      const all = h.logs.join('\n')
      for (const secret of [...numbers, '97531']) expect(all).not.to.include(secret)
    })

    it('answers an empty list with an empty list', async () => {
      const r = await balances([])
      expect(r.status).to.equal(200)
      expect(r.body).to.deep.equal({ items: [] })
    })

    it('answers 404 naming the index of an unknown, deleted or other account’s card id, checking nothing', async () => {
      const mine = await store({ number: number() })
      const gone = await store({ number: number() })
      expect((await h.request('DELETE', `/gift-cards/${gone.id}`)).status).to.equal(204)
      const theirs = await store({ number: number() }, { merchantAccount: 'acme' })
      for (const id of ['99999999-9999-4999-8999-999999999999', gone.id, theirs.id]) {
        const r = await balances([{ id: mine.id }, { number: number('0504'), pin: PIN }, { id }])
        expect(r.status).to.equal(404)
        expect(r.body).to.deep.equal(
          errorBody(404, [
            { location: 'body', pointer: '/items/2/id', message: 'No gift card with the id of item 2 exists', type: 'unknown_gift_card' },
          ]),
        )
      }
    })

    it('answers 422 for more than 10 items, without echoing them', async () => {
      const items = Array.from({ length: 11 }, () => ({ number: number(), pin: PIN }))
      const r = await balances(items)
      expect(r.status).to.equal(422)
      expect(r.body).to.deep.equal({
        detail: [
          {
            loc: ['body', 'items'],
            msg: 'List should have at most 10 items after validation, not 11',
            type: 'too_long',
            ctx: { field_type: 'List', max_length: 10, actual_length: 11 },
          },
        ],
      })
      expect(r.text).not.to.include(items[0]!.number)
    })

    it('lists 49 of the faults of 10 items with 500 unknown properties each, then how many there were, in under 64 KiB', async () => {
      const extra = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`x${i}`, 0]))
      const items = Array.from({ length: 10 }, () => ({ number: number(), pin: PIN, ...extra }))
      expect(JSON.stringify({ items }).length).to.be.below(64 * 1024)
      const r = await h.request<ValidationErrorBody>('POST', '/gift-cards/balances', { body: { items } })
      expect(r.status).to.equal(422)
      expect(Buffer.byteLength(r.text)).to.be.at.most(64 * 1024)
      expect(r.body.detail).to.have.length(50)
      expect(r.body.detail[0]).to.deep.equal({
        loc: ['body', 'items', 0, 'x0'],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
      })
      expect(r.body.detail[48]).to.deep.include({ loc: ['body', 'items', 0, 'x48'] })
      expect(r.body.detail[49]).to.deep.equal({
        loc: ['body'],
        msg: '... and 4951 more errors (5000 in all)',
        type: 'too_many_errors',
        ctx: { total: 5000 },
      })
      expect(r.text).not.to.include(items[0]!.number)
    })

    it('answers 422 for an item of neither shape, pointing into the item', async () => {
      const r = await h.request<ValidationErrorBody>('POST', '/gift-cards/balances', {
        body: { items: [{ id: 'not-a-uuid' }, { number: '123', pin: PIN }, { id: IDS.defaultBuyer, number: number() }, 'x', { pin: PIN }] },
      })
      expect(r.status).to.equal(422)
      expect(r.body).to.deep.equal({
        detail: [
          { loc: ['body', 'items', 0, 'id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: 'not-a-uuid' },
          {
            loc: ['body', 'items', 1, 'number'],
            msg: 'String should have at least 16 characters',
            type: 'string_too_short',
            ctx: { min_length: 16 },
          },
          { loc: ['body', 'items', 2, 'number'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
          { loc: ['body', 'items', 3], msg: 'Input should be a valid dictionary or object', type: 'model_type', input: 'x' },
          { loc: ['body', 'items', 4, 'number'], msg: 'Field required', type: 'missing' },
        ],
      })
      const missing = await h.request<ValidationErrorBody>('POST', '/gift-cards/balances', { body: {} })
      expect(missing.body).to.deep.equal({ detail: [{ loc: ['body', 'items'], msg: 'Field required', type: 'missing' }] })
    })

    it('lets an embed token check cards by number, and stored cards only of the buyer its embed claim names', async () => {
      const adas = await store({ number: number(), buyer_id: IDS.defaultBuyer })
      const other = await h.request<Resource>('POST', '/buyers', { body: { display_name: 'Grace', external_identifier: 'buyer-embed-1' } })
      const graces = await store({ number: number(), buyer_id: other.body.id })
      const byNumber = await balances([{ number: number('1234'), pin: PIN }], { auth: embedFor() })
      expect(byNumber.status).to.equal(200)
      expect(byNumber.body).to.deep.equal({ items: [funded({ last4: '1234' })] })
      const noBuyer = await balances([{ id: adas.id }], { auth: embedFor() })
      expect(noBuyer.status).to.equal(403)
      expect(noBuyer.body).to.deep.equal(errorBody(403))
      for (const claim of [{ buyer_id: IDS.defaultBuyer }, { buyer_external_identifier: 'buyer-1' }]) {
        const own = await balances([{ id: adas.id }], { auth: embedFor(claim) })
        expect(own.status).to.equal(200)
        expect(own.body).to.deep.equal({ items: [funded({ id: adas.id, last4: adas.last4 })] })
        const foreign = await balances([{ id: adas.id }, { id: graces.id }], { auth: embedFor(claim) })
        expect(foreign.status).to.equal(404)
        expect(foreign.body).to.deep.equal(
          errorBody(404, [
            { location: 'body', pointer: '/items/1/id', message: 'No gift card with the id of item 1 exists', type: 'unknown_gift_card' },
          ]),
        )
      }
      const unknownBuyer = await balances([{ id: adas.id }], { auth: embedFor({ buyer_external_identifier: 'nobody' }) })
      expect(unknownBuyer.status).to.equal(404)
    })

    it('refuses a token whose embed claim is not an object, or names a buyer with a non-string', async () => {
      for (const embed of ['buyer-1', { buyer_id: 7 }, { buyer_external_identifier: '' }]) {
        const r = await balances([], { auth: embedFor(embed) })
        expect(r.status).to.equal(401)
        expect(r.body).to.deep.equal(errorBody(401))
      }
    })

    it('answers 403 to a token without gift-cards.read', async () => {
      const r = await balances([], { auth: h.token('admin', { scopes: ['gift-cards.write'] }) })
      expect(r.status).to.equal(403)
      expect(r.body).to.deep.equal(errorBody(403))
    })
  })

  describe('GET /buyers/gift-cards', () => {
    const list = (query: string, auth?: string) =>
      h.request<Summaries>('GET', `/buyers/gift-cards?${query}`, auth === undefined ? {} : { auth })
    let buyer: string
    let cards: (Resource & { last4: string })[]
    before(async () => {
      const b = await h.request<Resource>('POST', '/buyers', { body: { display_name: 'Lin', external_identifier: 'buyer-wallet' } })
      buyer = b.body.id
      cards = []
      for (const last4 of ['3001', '0004', '3002']) {
        h.clock.advance(1000)
        cards.push(await store({ number: number(last4), buyer_id: buyer }))
      }
      await store({ number: number('3003') })
      await store({ number: number('3004'), buyer_id: IDS.defaultBuyer })
    })

    it('lists the buyer’s cards that can pay, with balances, newest first, leaving out the empty one', async () => {
      for (const query of [
        `buyer_id=${buyer}`,
        'buyer_external_identifier=buyer-wallet',
        `buyer_id=${buyer.toUpperCase()}&order_by=desc`,
      ]) {
        const r = await list(query)
        expect(r.status, query).to.equal(200)
        expect(r.body).to.deep.equal({
          items: [funded({ id: cards[2]!.id, last4: '3002' }), funded({ id: cards[0]!.id, last4: '3001' })],
        })
      }
      const asc = await list(`buyer_id=${buyer}&order_by=asc&sort_by=usage_count`)
      expect(asc.body.items.map((s) => s.last4)).to.deep.equal(['3001', '3002'])
      const byUse = await list(`buyer_id=${buyer}&sort_by=last_used_at`)
      expect(byUse.body.items.map((s) => s.last4)).to.deep.equal(['3002', '3001'])
    })

    it('has no cards for an unknown buyer', async () => {
      for (const query of ['buyer_external_identifier=nobody', 'buyer_id=99999999-9999-4999-8999-999999999999']) {
        const r = await list(query)
        expect(r.status).to.equal(200)
        expect(r.body).to.deep.equal({ items: [] })
      }
    })

    it('answers 422 on the query unless exactly one buyer filter is sent, and for an unknown sort', async () => {
      const neither = await list('')
      expect(neither.status).to.equal(422)
      expect(neither.body).to.deep.equal({
        detail: [
          {
            loc: ['query', 'buyer_id'],
            msg: 'Value error, one of `buyer_id` and `buyer_external_identifier` is required',
            type: 'value_error',
          },
        ],
      })
      const both = await list(`buyer_id=${buyer}&buyer_external_identifier=buyer-wallet`)
      expect(both.status).to.equal(422)
      expect(both.body).to.deep.equal({
        detail: [
          {
            loc: ['query', 'buyer_external_identifier'],
            msg: 'Value error, `buyer_id` and `buyer_external_identifier` must not both be set',
            type: 'value_error',
            input: 'buyer-wallet',
          },
        ],
      })
      const sort = await h.request<ValidationErrorBody>('GET', `/buyers/gift-cards?buyer_id=${buyer}&sort_by=created_at&order_by=up`)
      expect(sort.status).to.equal(422)
      expect(sort.body.detail.map((d) => [d.loc, d.type])).to.deep.equal([
        [['query', 'sort_by'], 'enum'],
        [['query', 'order_by'], 'enum'],
      ])
    })

    it('shows an embed token only the buyer its claim names, and refuses one naming none', async () => {
      const own = await list(`buyer_id=${buyer}`, embedFor({ buyer_external_identifier: 'buyer-wallet' }))
      expect(own.status).to.equal(200)
      expect(own.body.items.map((s) => s.last4)).to.deep.equal(['3002', '3001'])
      const other = await list(`buyer_id=${IDS.defaultBuyer}`, embedFor({ buyer_id: buyer }))
      expect(other.status).to.equal(200)
      expect(other.body).to.deep.equal({ items: [] })
      const none = await list(`buyer_id=${buyer}`, embedFor())
      expect(none.status).to.equal(403)
      expect(none.body).to.deep.equal(errorBody(403))
    })

    it('leaves out cards past their expiration date', async () => {
      h.clock.advance(3 * 366 * 86_400_000)
      const r = await list(`buyer_id=${buyer}`)
      expect(r.status).to.equal(200)
      expect(r.body).to.deep.equal({ items: [] })
    })
  })

  describe('what an embed token may do with stored cards', () => {
    it('stores and activates cards for no buyer or its claim’s buyer only: another, or an unknown one, is 403', async () => {
      const b = await h.request<Resource>('POST', '/buyers', { body: { display_name: 'Ray', external_identifier: 'buyer-embed-3' } })
      const token = embedFor({ buyer_id: b.body.id })
      expect((await h.request('POST', '/gift-cards', { auth: token, body: { number: number(), pin: PIN } })).status).to.equal(201)
      const own = await h.request<Resource & { buyer: Resource }>('POST', '/gift-cards', {
        auth: token,
        body: { number: number(), pin: PIN, buyer_external_identifier: 'buyer-embed-3' },
      })
      expect(own.status).to.equal(201)
      expect(own.body.buyer.id).to.equal(b.body.id)
      const activated = await h.request('POST', '/gift-cards/activations', {
        auth: token,
        body: { number: number(), pin: PIN, store: true, buyer_id: b.body.id },
      })
      expect(activated.status).to.equal(201)
      for (const [auth, buyer] of [
        [token, { buyer_id: IDS.defaultBuyer }],
        [token, { buyer_external_identifier: 'no-such-buyer' }],
        [embedFor(), { buyer_id: b.body.id }],
      ] as const) {
        const stored = await h.request('POST', '/gift-cards', { auth, body: { number: number(), pin: PIN, ...buyer } })
        expect(stored.status, JSON.stringify(buyer)).to.equal(403)
        expect(stored.body).to.deep.equal(errorBody(403))
        const act = await h.request('POST', '/gift-cards/activations', {
          auth,
          body: { number: number(), pin: PIN, store: true, ...buyer },
        })
        expect(act.status).to.equal(403)
      }
    })

    it('lists, reads and deletes only its buyer’s cards; naming no buyer it gets 403', async () => {
      const b = await h.request<Resource>('POST', '/buyers', { body: { display_name: 'Kay', external_identifier: 'buyer-embed-2' } })
      const mine = await store({ number: number(), buyer_id: b.body.id })
      const adas = await store({ number: number(), buyer_id: IDS.defaultBuyer })
      const nobodys = await store({ number: number() })
      const token = embedFor({ buyer_external_identifier: 'buyer-embed-2' })
      const listed = await h.request<Page>('GET', '/gift-cards', { auth: token })
      expect(listed.status).to.equal(200)
      expect(listed.body.items.map((c) => c.id)).to.deep.equal([mine.id])
      const filtered = await h.request<Page>('GET', `/gift-cards?buyer_id=${IDS.defaultBuyer}`, { auth: token })
      expect(filtered.body).to.deep.equal({ items: [], limit: 20, next_cursor: null, previous_cursor: null })
      expect((await h.request('GET', `/gift-cards/${mine.id}`, { auth: token })).status).to.equal(200)
      for (const other of [adas, nobodys]) {
        const read = await h.request('GET', `/gift-cards/${other.id}`, { auth: token })
        expect(read.status).to.equal(404)
        expect(read.body).to.deep.equal(errorBody(404))
        expect((await h.request('DELETE', `/gift-cards/${other.id}`, { auth: token })).status).to.equal(404)
      }
      expect((await h.request('DELETE', `/gift-cards/${mine.id}`, { auth: token })).status).to.equal(204)
      for (const [method, path] of [
        ['GET', '/gift-cards'],
        ['GET', `/gift-cards/${adas.id}`],
        ['DELETE', `/gift-cards/${adas.id}`],
      ] as const) {
        const r = await h.request(method, path, { auth: embedFor() })
        expect(r.status, `${method} ${path}`).to.equal(403)
        expect(r.body).to.deep.equal(errorBody(403))
      }
      expect((await h.request('GET', `/gift-cards/${adas.id}`)).status).to.equal(200)
    })
  })
})
