import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { MAX_SHIPPING_DETAILS, ShippingDetailsRepository } from '@orka/domain'
import { errorBody, Harness, IDS, Resource, startHarness, UUID_RE } from '../support/harness'

type ShippingBody = Resource & { buyer_id: string; first_name: string | null; last_name: string | null; address: unknown }

const ADDRESS = { city: 'London', country: 'GB', postal_code: 'SW1A 1AA', line1: '10 Downing Street', line2: null, organization: null }
const DETAILS = {
  first_name: 'Ship',
  last_name: 'Here',
  email_address: 'ship@example.test',
  phone_number: '+442079460000',
  address: ADDRESS,
}

describe('buyer shipping details', () => {
  let h: Harness
  let buyer: string
  const base = () => `/buyers/${buyer}/shipping-details`
  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())
  beforeEach(async () => {
    buyer = (await h.request<Resource>('POST', '/buyers', { body: { display_name: 'Shipping buyer' } })).body.id
  })

  const create = async (body: unknown = DETAILS) => {
    const r = await h.request<ShippingBody>('POST', base(), { body })
    expect(r.status, r.text).to.equal(201)
    return r.body
  }

  it('creates: 201 with the whole shipping details; lists, reads, updates by merging, deletes', async () => {
    const created = await create()
    expect(created.id).to.match(UUID_RE)
    const whole = { type: 'shipping-details', id: created.id, buyer_id: buyer, ...DETAILS }
    expect(created).to.deep.equal(whole)

    const listed = await h.request('GET', base())
    expect([listed.status, listed.body]).to.deep.equal([200, { items: [whole] }])
    const read = await h.request('GET', `${base()}/${created.id.toUpperCase()}`)
    expect([read.status, read.body]).to.deep.equal([200, whole])

    // The SDK's partial update: what is absent stays, null clears, the address is replaced whole.
    const updated = await h.request('PUT', `${base()}/${created.id}`, {
      body: { first_name: 'Renamed', phone_number: null, address: { city: 'Leeds' } },
    })
    const after = { ...whole, first_name: 'Renamed', phone_number: null, address: { city: 'Leeds' } }
    expect([updated.status, updated.body]).to.deep.equal([200, after])
    expect((await h.request('GET', `${base()}/${created.id}`)).body).to.deep.equal(after)

    const deleted = await h.request('DELETE', `${base()}/${created.id}`)
    expect([deleted.status, deleted.text]).to.deep.equal([204, ''])
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const r = await h.request(method, `${base()}/${created.id}`, { body: method === 'PUT' ? {} : undefined })
      expect([r.status, r.body], method).to.deep.equal([404, errorBody(404)])
    }
    expect((await h.request('GET', base())).body).to.deep.equal({ items: [] })
  })

  it('creates with every field left out (all null), and lists newest first', async () => {
    const empty = await create({})
    expect(empty).to.deep.equal({
      type: 'shipping-details',
      id: empty.id,
      buyer_id: buyer,
      first_name: null,
      last_name: null,
      email_address: null,
      phone_number: null,
      address: null,
    })
    h.clock.advance(1000)
    const newer = await create()
    expect((await h.request<{ items: Resource[] }>('GET', base())).body.items.map((i) => i.id)).to.deep.equal([newer.id, empty.id])
  })

  it("answers 404 for an unknown buyer, another account's buyer, and another buyer's shipping details", async () => {
    const mine = await create()
    const other = (await h.request<Resource>('POST', '/buyers', { body: {} })).body.id
    for (const b of ['7a3f0c52-9d4e-4b1a-8c6d-ffffffffffff', IDS.acmeBuyer]) {
      for (const [method, path, body] of [
        ['POST', '', DETAILS],
        ['GET', ''],
        ['GET', `/${mine.id}`],
        ['PUT', `/${mine.id}`, {}],
        ['DELETE', `/${mine.id}`],
      ] as const) {
        const r = await h.request(method, `/buyers/${b}/shipping-details${path}`, { body })
        expect([r.status, r.body], `${method} ${b}${path}`).to.deep.equal([404, errorBody(404)])
      }
    }
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const r = await h.request(method, `/buyers/${other}/shipping-details/${mine.id}`, {
        body: method === 'PUT' ? { first_name: 'X' } : undefined,
      })
      expect([r.status, r.body], method).to.deep.equal([404, errorBody(404)])
    }
    expect((await h.request('GET', `${base()}/${mine.id}`)).body).to.deep.equal(mine)
  })

  it('answers 422 at the field for an address, phone or property breaking the rules, storing nothing', async () => {
    const cases: [unknown, (string | number)[], string][] = [
      [{ address: { country: 'gb' } }, ['body', 'address', 'country'], 'string_pattern_mismatch'],
      [{ address: { state_code: 'GB' } }, ['body', 'address', 'state_code'], 'string_pattern_mismatch'],
      [{ phone_number: '020 7946 0000' }, ['body', 'phone_number'], 'string_pattern_mismatch'],
      [{ first_name: 'x'.repeat(256) }, ['body', 'first_name'], 'string_too_long'],
      [{ first_name: '' }, ['body', 'first_name'], 'string_too_short'],
      [{ nickname: 'Shipper' }, ['body', 'nickname'], 'extra_forbidden'],
    ]
    const existing = await create()
    for (const [body, loc, type] of cases) {
      for (const [method, path] of [
        ['POST', base()],
        ['PUT', `${base()}/${existing.id}`],
      ] as const) {
        const r = await h.request<{ detail: { loc: unknown; type: string }[] }>(method, path, { body })
        expect(r.status, `${method} ${JSON.stringify(body)}`).to.equal(422)
        expect(r.body.detail.map((d) => [d.loc, d.type])).to.deep.equal([[loc, type]])
      }
    }
    expect((await h.request('GET', base())).body).to.deep.equal({ items: [existing] })
    const notUuid = await h.request('GET', `${base()}/not-a-uuid`)
    expect(notUuid.status).to.equal(422)
    expect(notUuid.body).to.deep.equal({
      detail: [{ loc: ['path', 'shipping_details_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: 'not-a-uuid' }],
    })
  })

  it(`keeps at most ${String(MAX_SHIPPING_DETAILS)} per buyer: one more is a 409 naming the buyer`, async () => {
    for (let i = 0; i < MAX_SHIPPING_DETAILS; i++) await create({ first_name: `N${String(i)}` })
    const r = await h.request('POST', base(), { body: DETAILS })
    expect(r.status).to.equal(409)
    expect(r.body).to.deep.equal(
      errorBody(
        409,
        [
          {
            location: 'body',
            pointer: '',
            message: `A buyer holds at most ${String(MAX_SHIPPING_DETAILS)} shipping details`,
            type: 'too_many_shipping_details',
          },
        ],
        { resource_id: buyer },
      ),
    )
    expect((await h.request<{ items: unknown[] }>('GET', base())).body.items).to.have.length(MAX_SHIPPING_DETAILS)
  })

  it('is read with buyers.read and changed with buyers.write (or the narrower buyers.shipping-details scopes); other scopes are 403', async () => {
    const existing = await create()
    const as = (scopes: string[]) => ({ auth: h.token('admin', { scopes }) })
    for (const scopes of [['buyers.read'], ['buyers.shipping-details.read'], ['*.read']])
      expect((await h.request('GET', base(), as(scopes))).status, scopes.join()).to.equal(200)
    for (const scopes of [['buyers.write'], ['buyers.shipping-details.write']])
      expect((await h.request('POST', base(), { ...as(scopes), body: {} })).status, scopes.join()).to.equal(201)
    for (const [method, path, scopes] of [
      ['GET', base(), ['buyers.write']],
      ['GET', `${base()}/${existing.id}`, ['gift-cards.read']],
      ['POST', base(), ['buyers.read']],
      ['PUT', `${base()}/${existing.id}`, ['buyers.shipping-details.read']],
      ['DELETE', `${base()}/${existing.id}`, ['buyers-shipping.write']],
    ] as const) {
      const r = await h.request(method, path, { ...as([...scopes]), body: method === 'PUT' ? {} : undefined })
      expect([r.status, r.body], `${method} ${scopes.join()}`).to.deep.equal([403, errorBody(403)])
    }
    const r = await h.request('GET', base(), { auth: null })
    expect([r.status, r.body]).to.deep.equal([401, errorBody(401)])
  })

  it("lets an embed token reach only its own buyer's: another buyer is a 404, no buyer named a 403", async () => {
    const other = (await h.request<Resource>('POST', '/buyers', { body: {} })).body.id
    const theirs = (await h.request<ShippingBody>('POST', `/buyers/${other}/shipping-details`, { body: DETAILS })).body
    const embed = (claim?: Record<string, string>) => ({
      auth: h.token('admin', { scopes: [], embed: true, ...(claim ? { embedClaim: claim } : {}) }),
    })
    const own = embed({ buyer_id: buyer })
    const made = await h.request<ShippingBody>('POST', base(), { ...own, body: DETAILS })
    expect(made.status).to.equal(201)
    expect((await h.request('GET', base(), own)).body).to.deep.equal({ items: [made.body] })
    expect((await h.request('PUT', `${base()}/${made.body.id}`, { ...own, body: { last_name: 'Own' } })).status).to.equal(200)
    for (const [method, path] of [
      ['GET', `/buyers/${other}/shipping-details`],
      ['POST', `/buyers/${other}/shipping-details`],
      ['GET', `/buyers/${other}/shipping-details/${theirs.id}`],
      ['DELETE', `/buyers/${other}/shipping-details/${theirs.id}`],
    ] as const) {
      const r = await h.request(method, path, { ...own, body: method === 'POST' ? DETAILS : undefined })
      expect([r.status, r.body], `${method} ${path}`).to.deep.equal([404, errorBody(404)])
    }
    const none = await h.request('GET', base(), embed())
    expect([none.status, none.body]).to.deep.equal([403, errorBody(403)])
    expect((await h.request('GET', `/buyers/${other}/shipping-details/${theirs.id}`)).body).to.deep.equal(theirs)
  })

  it("goes with its buyer: deleting the buyer deletes every one of the buyer's shipping details, and only those", async () => {
    const other = (await h.request<Resource>('POST', '/buyers', { body: {} })).body.id
    const kept = (await h.request<ShippingBody>('POST', `/buyers/${other}/shipping-details`, { body: {} })).body
    const gone = [await create(), await create({})]
    expect((await h.request('DELETE', `/buyers/${buyer}`)).status).to.equal(204)
    const repo = h.container.resolve<ShippingDetailsRepository>(ShippingDetailsRepository)
    for (const s of gone) expect(await repo.findById('default', s.id)()).to.deep.equal({ _tag: 'Right', right: O.none })
    expect((await h.request('GET', `/buyers/${other}/shipping-details/${kept.id}`)).body).to.deep.equal(kept)
  })

  it('audits each change by kind and id only: no name, address or contact in the log', async () => {
    const made = await create()
    h.clock.advance(1000)
    await h.request('PUT', `${base()}/${made.id}`, { body: { first_name: 'Audited' } })
    h.clock.advance(1000)
    await h.request('DELETE', `${base()}/${made.id}`)
    const r = await h.request<{ items: { resource: unknown; action: string }[] }>(
      'GET',
      '/audit-logs?resource_type=shipping-details&limit=100',
    )
    expect(r.status).to.equal(200)
    const mine = r.body.items.filter((e) => JSON.stringify(e.resource).includes(made.id))
    expect(mine.map((e) => [e.action, e.resource])).to.deep.equal(
      ['deleted', 'updated', 'created'].map((action) => [action, { type: 'shipping-details', id: made.id, name: 'Shipping details' }]),
    )
    for (const value of ['Downing', 'ship@example', '442079460000', 'Audited']) expect(r.text).to.not.include(value)
  })
})

describe('a payment naming shipping details', () => {
  let h: Harness
  let buyer: string
  let shipping: ShippingBody
  const card = { method: 'card', number: '4111111111111111', expiration_date: '12/35', security_code: '123' }
  const pay = (o: Record<string, unknown>) =>
    h.request<Resource & { status: string; shipping_details?: unknown }>('POST', '/transactions', {
      body: { amount: 1299, currency: 'USD', payment_method: card, ...o },
    })
  before(async () => {
    h = await startHarness()
    buyer = (await h.request<Resource>('POST', '/buyers', { body: { external_identifier: 'shipping-payer' } })).body.id
    shipping = (await h.request<ShippingBody>('POST', `/buyers/${buyer}/shipping-details`, { body: DETAILS })).body
  })
  after(() => h.close())

  it('keeps them with the transaction as they were when it was paid', async () => {
    const paid = await pay({ buyer_id: buyer, shipping_details_id: shipping.id.toUpperCase() })
    expect(paid.status, paid.text).to.equal(201)
    expect([paid.body.status, paid.body.shipping_details]).to.deep.equal(['authorization_succeeded', shipping])
    await h.request('PUT', `/buyers/${buyer}/shipping-details/${shipping.id}`, { body: { first_name: 'Changed' } })
    const read = await h.request<{ shipping_details: unknown }>('GET', `/transactions/${paid.body.id}`)
    expect(read.body.shipping_details).to.deep.equal(shipping)
    // Named by external identifier, the buyer is the same.
    const byExternal = await pay({ buyer_external_identifier: 'shipping-payer', shipping_details_id: shipping.id })
    expect(byExternal.status).to.equal(201)
    expect(byExternal.body.shipping_details).to.deep.equal({ ...shipping, first_name: 'Changed' })
  })

  it('answers without the key when none were named', async () => {
    const paid = await pay({ buyer_id: buyer })
    expect(paid.status).to.equal(201)
    expect(paid.body).to.not.have.property('shipping_details')
  })

  it("is a 400 at shipping_details_id for another buyer's, unknown ones, or a payment without a buyer, storing nothing", async () => {
    const other = (await h.request<Resource>('POST', '/buyers', { body: {} })).body.id
    const before = await h.request<{ items: unknown[] }>('GET', '/transactions?limit=100')
    for (const o of [
      { buyer_id: other, shipping_details_id: shipping.id },
      { buyer_id: buyer, shipping_details_id: '7a3f0c52-9d4e-4b1a-8c6d-ffffffffffff' },
      { shipping_details_id: shipping.id },
      { buyer: { display_name: 'Guest' }, shipping_details_id: shipping.id },
    ]) {
      const r = await pay(o)
      expect([r.status, r.body], JSON.stringify(o)).to.deep.equal([
        400,
        {
          ...errorBody(400, [
            {
              location: 'body',
              pointer: '/shipping_details_id',
              message: "The shipping details are not the transaction's buyer's",
              type: 'unknown_shipping_details',
            },
          ]),
          message: 'Request failed validation',
        },
      ])
    }
    expect((await h.request<{ items: unknown[] }>('GET', '/transactions?limit=100')).body.items).to.deep.equal(before.body.items)
    const notUuid = await pay({ buyer_id: buyer, shipping_details_id: 'ship-1' })
    expect(notUuid.status).to.equal(422)
  })

  it("refuses another buyer's before a checkout session's card is taken: the session then pays with its own buyer's", async () => {
    const other = (await h.request<Resource>('POST', '/buyers', { body: {} })).body.id
    const session = (await h.request<Resource>('POST', '/checkout/sessions', { body: { amount: 1299, currency: 'USD' } })).body.id
    const fields = await h.request('PUT', `/checkout/sessions/${session}/fields`, { auth: null, body: { payment_method: card } })
    expect(fields.status).to.equal(204)
    const viaSession = (o: Record<string, unknown>) =>
      h.request<Resource & { status: string; shipping_details?: unknown }>('POST', '/transactions', {
        body: { amount: 1299, currency: 'USD', payment_method: { method: 'checkout-session', id: session }, ...o },
      })
    const refused = await viaSession({ buyer_id: other, shipping_details_id: shipping.id })
    expect(refused.status).to.equal(400)
    const paid = await viaSession({ buyer_id: buyer, shipping_details_id: shipping.id })
    expect([paid.status, paid.body.status, (paid.body.shipping_details as { id?: string } | undefined)?.id]).to.deep.equal([
      201,
      'authorization_succeeded',
      shipping.id,
    ])
  })
})
