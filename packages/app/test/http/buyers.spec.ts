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
