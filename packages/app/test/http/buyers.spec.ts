import { expect } from 'chai'
import { ErrorBody, errorBody, Harness, IDS, Page, Resource, startHarness, UUID_RE, ValidationErrorBody } from '../support/harness'

describe('buyers', () => {
  let h: Harness
  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  it('creates a buyer with a reconciliation id', async () => {
    const body = {
      display_name: 'Grace Hopper',
      external_identifier: 'buyer-grace',
      billing_details: {
        first_name: 'Grace',
        email_address: 'grace@example.test',
        phone_number: '+15555550100',
        address: { country: 'US', city: 'Arlington' },
      },
    }
    const r = await h.request<Resource & { reconciliation_id: string }>('POST', '/buyers', { body })
    expect(r.status).to.equal(201)
    expect(r.body.id).to.match(UUID_RE)
    expect(r.body).to.deep.equal({
      type: 'buyer',
      id: r.body.id,
      reconciliation_id: r.body.reconciliation_id,
      merchant_account_id: 'default',
      display_name: 'Grace Hopper',
      external_identifier: 'buyer-grace',
      billing_details: body.billing_details,
      account_number: null,
      created_at: h.clock.now().toISOString(),
      updated_at: h.clock.now().toISOString(),
    })
    expect(r.body.reconciliation_id).to.match(/^[0-9A-Za-z]{1,22}$/)
  })

  it('answers 409 with the existing buyer id for a duplicate external identifier', async () => {
    const r = await h.request('POST', '/buyers', { body: { external_identifier: 'buyer-1' } })
    expect(r.status).to.equal(409)
    expect(r.body).to.deep.equal(errorBody(409, [], { resource_id: IDS.defaultBuyer }))
  })

  it('rejects an invalid phone number with 422 at its nested location', async () => {
    const r = await h.request<ValidationErrorBody>('POST', '/buyers', { body: { billing_details: { phone_number: '555-0100' } } })
    expect(r.status).to.equal(422)
    expect(r.body.detail).to.deep.equal([
      {
        loc: ['body', 'billing_details', 'phone_number'],
        msg: "String should match pattern '^\\+[1-9]\\d{1,14}$'",
        type: 'string_pattern_mismatch',
        input: '555-0100',
        ctx: { pattern: '^\\+[1-9]\\d{1,14}$' },
      },
    ])
  })

  it('counts a display name in code points: 200 emoji are 201, 201 emoji are 422', async () => {
    const ok = await h.request<Resource & { display_name: string }>('POST', '/buyers', { body: { display_name: '😀'.repeat(200) } })
    expect(ok.status).to.equal(201)
    expect(ok.body.display_name).to.equal('😀'.repeat(200))
    const r = await h.request('POST', '/buyers', { body: { display_name: '😀'.repeat(201) } })
    expect(r.status).to.equal(422)
    expect(r.body).to.deep.equal({
      detail: [
        {
          loc: ['body', 'display_name'],
          msg: 'String should have at most 200 characters',
          type: 'string_too_long',
          input: '😀'.repeat(201),
          ctx: { max_length: 200 },
        },
      ],
    })
  })

  it('lists 49 of 5,000 unknown billing properties, then how many there were, in under 64 KiB', async () => {
    const billing_details = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, 0]))
    expect(JSON.stringify({ billing_details }).length).to.be.below(64 * 1024)
    const r = await h.request<ValidationErrorBody>('POST', '/buyers', { body: { billing_details } })
    expect(r.status).to.equal(422)
    expect(Buffer.byteLength(r.text)).to.be.at.most(64 * 1024)
    expect(r.body.detail).to.have.length(50)
    expect(r.body.detail.slice(0, 49)).to.deep.equal(
      Array.from({ length: 49 }, (_, i) => ({
        loc: ['body', 'billing_details', `k${i}`],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
      })),
    )
    expect(r.body.detail[49]).to.deep.equal({
      loc: ['body'],
      msg: '... and 4951 more errors (5000 in all)',
      type: 'too_many_errors',
      ctx: { total: 5000 },
    })
  })

  it('filters the list by external identifier within the merchant account', async () => {
    const r = await h.request<Page>('GET', '/buyers?external_identifier=buyer-1')
    expect(r.status).to.equal(200)
    expect(r.body.items.map((b) => b.id)).to.deep.equal([IDS.defaultBuyer])
    expect(r.body).to.include({ limit: 20, next_cursor: null, previous_cursor: null })
    const acme = await h.request<Page>('GET', '/buyers?external_identifier=buyer-1', { merchantAccount: 'acme' })
    expect(acme.body.items.map((b) => b.id)).to.deep.equal([IDS.acmeBuyer])
  })

  it('refuses a cursor from another filter', async () => {
    for (let i = 0; i < 3; i++) await h.request('POST', '/buyers', { body: { display_name: `b${i}` } })
    const all = await h.request<Page>('GET', '/buyers?limit=1')
    expect(all.body.next_cursor).to.be.a('string')
    const r = await h.request<ErrorBody>(
      'GET',
      `/buyers?limit=1&external_identifier=buyer-1&cursor=${encodeURIComponent(all.body.next_cursor!)}`,
    )
    expect(r.status).to.equal(400)
    expect(r.body.details[0]).to.include({ location: 'query', pointer: '/cursor' })
  })
})

describe('one buyer: read, update, delete, search', () => {
  let h: Harness
  beforeEach(async () => {
    h = await startHarness()
  })
  afterEach(() => h.close())

  type BuyerBody = Resource & { reconciliation_id: string; created_at: string; updated_at: string }
  const seeded = (at: string) => ({
    type: 'buyer',
    id: IDS.defaultBuyer,
    reconciliation_id: '',
    merchant_account_id: 'default',
    display_name: 'Ada Lovelace',
    external_identifier: 'buyer-1',
    billing_details: null,
    account_number: null,
    created_at: at,
    updated_at: at,
  })
  const add = async (body: object) => {
    const r = await h.request<BuyerBody>('POST', '/buyers', { body })
    expect(r.status, r.text).to.equal(201)
    return r.body
  }

  it('reads a buyer: 200 with the whole buyer; path ids are case-insensitive', async () => {
    const r = await h.request<BuyerBody>('GET', `/buyers/${IDS.defaultBuyer}`)
    expect(r.status).to.equal(200)
    expect(r.body).to.deep.equal({ ...seeded(r.body.created_at), reconciliation_id: r.body.reconciliation_id })
    const upper = await h.request<BuyerBody>('GET', `/buyers/${IDS.defaultBuyer.toUpperCase()}`)
    expect(upper.status).to.equal(200)
    expect(upper.body).to.deep.equal(r.body)
  })

  it("answers 404 for an unknown buyer and for another merchant account's, on read, update and delete", async () => {
    for (const id of ['7a3f0c52-9d4e-4b1a-8c6d-ffffffffffff', IDS.acmeBuyer]) {
      for (const [method, body] of [['GET'], ['PUT', { display_name: 'x' }], ['DELETE']] as const) {
        const r = await h.request(method, `/buyers/${id}`, { body })
        expect(r.status, `${method} ${id}`).to.equal(404)
        expect(r.body).to.deep.equal(errorBody(404))
      }
    }
    const acme = await h.request<BuyerBody>('GET', `/buyers/${IDS.acmeBuyer}`, { merchantAccount: 'acme' })
    expect(acme.status).to.equal(200)
    expect(acme.body.display_name).to.equal('Acme Buyer')
  })

  it('answers 422 for a path id that is not a UUID', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const r = await h.request(method, '/buyers/not-a-uuid', { body: method === 'PUT' ? {} : undefined })
      expect(r.status).to.equal(422)
      expect(r.body).to.deep.equal({
        detail: [{ loc: ['path', 'buyer_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: 'not-a-uuid' }],
      })
    }
  })

  it('needs buyers.read to read and buyers.write to update and delete: 403', async () => {
    const read = await h.request('GET', `/buyers/${IDS.defaultBuyer}`, { auth: h.token('admin', { scopes: ['buyers.write'] }) })
    expect(read.status).to.equal(403)
    expect(read.body).to.deep.equal(errorBody(403))
    for (const method of ['PUT', 'DELETE']) {
      const r = await h.request(method, `/buyers/${IDS.defaultBuyer}`, { auth: h.token('admin', { scopes: ['buyers.read'] }), body: {} })
      expect(r.status).to.equal(403)
      expect(r.body).to.deep.equal(errorBody(403))
    }
    expect((await h.request('GET', `/buyers/${IDS.defaultBuyer}`)).status).to.equal(200)
  })

  it('answers 401 without a token', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const r = await h.request(method, `/buyers/${IDS.defaultBuyer}`, { auth: null, body: method === 'PUT' ? {} : undefined })
      expect(r.status).to.equal(401)
      expect(r.body).to.deep.equal(errorBody(401))
    }
  })

  it('updates: absent properties stay, null clears, updated_at moves; 200 with the whole buyer', async () => {
    const before = await add({
      display_name: 'Grace Hopper',
      external_identifier: 'buyer-grace',
      account_number: 'ACC-1',
      billing_details: { first_name: 'Grace', address: { city: 'Arlington' } },
    })
    h.clock.advance(5000)
    const billing = { last_name: 'Hopper', email_address: 'grace@example.test' }
    const r = await h.request<BuyerBody>('PUT', `/buyers/${before.id}`, {
      body: { display_name: 'Amazing Grace', account_number: null, billing_details: billing },
    })
    expect(r.status, r.text).to.equal(200)
    const expected = {
      ...before,
      display_name: 'Amazing Grace',
      account_number: null,
      billing_details: billing,
      updated_at: h.clock.now().toISOString(),
    }
    expect(r.body).to.deep.equal(expected)
    expect((await h.request('GET', `/buyers/${before.id}`)).body).to.deep.equal(expected)
    const empty = await h.request<BuyerBody>('PUT', `/buyers/${before.id}`, { body: {} })
    expect(empty.status).to.equal(200)
    expect(empty.body).to.deep.equal(expected)
    const cleared = await h.request<BuyerBody>('PUT', `/buyers/${before.id}`, {
      body: { display_name: null, external_identifier: null, billing_details: null },
    })
    expect(cleared.body).to.deep.equal({ ...expected, display_name: null, external_identifier: null, billing_details: null })
  })

  it('answers 409 with the holder for a duplicate external identifier; the old one is free after a change', async () => {
    const grace = await add({ external_identifier: 'buyer-grace' })
    const dup = await h.request('PUT', `/buyers/${grace.id}`, { body: { external_identifier: 'buyer-1', display_name: 'x' } })
    expect(dup.status).to.equal(409)
    expect(dup.body).to.deep.equal(errorBody(409, [], { resource_id: IDS.defaultBuyer }))
    expect((await h.request<BuyerBody>('GET', `/buyers/${grace.id}`)).body).to.deep.equal(grace)
    const same = await h.request('PUT', `/buyers/${IDS.defaultBuyer}`, { body: { external_identifier: 'buyer-1' } })
    expect(same.status).to.equal(200)
    const moved = await h.request('PUT', `/buyers/${IDS.defaultBuyer}`, { body: { external_identifier: 'buyer-1-new' } })
    expect(moved.status).to.equal(200)
    expect((await h.request('PUT', `/buyers/${grace.id}`, { body: { external_identifier: 'buyer-1' } })).status).to.equal(200)
  })

  it('answers 422 for another property, a wrong type or a value out of bounds, changing nothing', async () => {
    const cases: [object, unknown[]][] = [
      [{ email: 'x' }, [{ loc: ['body', 'email'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }]],
      [
        { display_name: '' },
        [
          {
            loc: ['body', 'display_name'],
            msg: 'String should have at least 1 character',
            type: 'string_too_short',
            input: '',
            ctx: { min_length: 1 },
          },
        ],
      ],
      [{ account_number: 5 }, [{ loc: ['body', 'account_number'], msg: 'Input should be a valid string', type: 'string_type', input: 5 }]],
    ]
    for (const [body, detail] of cases) {
      const r = await h.request('PUT', `/buyers/${IDS.defaultBuyer}`, { body })
      expect(r.status, JSON.stringify(body)).to.equal(422)
      expect(r.body, JSON.stringify(body)).to.deep.equal({ detail })
    }
    const stored = await h.request<BuyerBody>('GET', `/buyers/${IDS.defaultBuyer}`)
    expect(stored.body.updated_at).to.equal(stored.body.created_at)
  })

  it('deletes: 204 with no body, then 404 on read and on a second delete; the external identifier is free', async () => {
    const r = await h.request('DELETE', `/buyers/${IDS.defaultBuyer}`)
    expect(r.status).to.equal(204)
    expect(r.text).to.equal('')
    const read = await h.request('GET', `/buyers/${IDS.defaultBuyer}`)
    expect(read.status).to.equal(404)
    expect(read.body).to.deep.equal(errorBody(404))
    const again = await h.request('DELETE', `/buyers/${IDS.defaultBuyer}`)
    expect(again.status).to.equal(404)
    expect(again.body).to.deep.equal(errorBody(404))
    expect((await h.request<Page>('GET', '/buyers?external_identifier=buyer-1')).body.items).to.deep.equal([])
    const reused = await add({ external_identifier: 'buyer-1' })
    expect(reused.external_identifier).to.equal('buyer-1')
  })

  it('searches display names and external identifiers, ignoring case, with the filter and the cursor', async () => {
    const a = await add({ display_name: 'Zoë Search', external_identifier: 'crm-1' })
    h.clock.advance(1)
    const b = await add({ display_name: 'Other', external_identifier: 'SEARCH-2' })
    h.clock.advance(1)
    await add({ display_name: 'Nobody', external_identifier: 'crm-3' })
    const r = await h.request<Page>('GET', '/buyers?search=search')
    expect(r.status).to.equal(200)
    expect(r.body).to.deep.equal({ items: [b, a], limit: 20, next_cursor: null, previous_cursor: null })
    const both = await h.request<Page>('GET', '/buyers?search=ZO%C3%8B&external_identifier=crm-1')
    expect(both.body.items).to.deep.equal([a])
    expect((await h.request<Page>('GET', '/buyers?search=.*')).body.items).to.deep.equal([])
    const p1 = await h.request<Page>('GET', '/buyers?search=SeArCh&limit=1')
    expect(p1.body.items).to.deep.equal([b])
    const p2 = await h.request<Page>('GET', `/buyers?search=SeArCh&limit=1&cursor=${encodeURIComponent(p1.body.next_cursor!)}`)
    expect(p2.body).to.deep.equal({ items: [a], limit: 1, next_cursor: null, previous_cursor: p2.body.previous_cursor })
    const other = await h.request<ErrorBody>('GET', `/buyers?search=other&limit=1&cursor=${encodeURIComponent(p1.body.next_cursor!)}`)
    expect(other.status).to.equal(400)
    expect(other.body.details[0]).to.include({ location: 'query', pointer: '/cursor' })
    const unfiltered = await h.request<ErrorBody>('GET', `/buyers?limit=1&cursor=${encodeURIComponent(p1.body.next_cursor!)}`)
    expect(unfiltered.status).to.equal(400)
  })

  it('answers 422 for an empty or over-long search', async () => {
    const empty = await h.request<ValidationErrorBody>('GET', '/buyers?search=')
    expect(empty.status).to.equal(422)
    expect(empty.body.detail.map((d) => [d.loc, d.type])).to.deep.equal([[['query', 'search'], 'string_too_short']])
    const long = await h.request<ValidationErrorBody>('GET', `/buyers?search=${'x'.repeat(201)}`)
    expect(long.status).to.equal(422)
    expect(long.body.detail.map((d) => [d.loc, d.type])).to.deep.equal([[['query', 'search'], 'string_too_long']])
  })
})
