import { readFileSync } from 'node:fs'
import { expect } from 'chai'
import createClient, { Client } from 'openapi-fetch'
import { ROLE_CATALOGUE } from '@orka/domain'
import { aGiftCardSummary } from '@orka/domain/testing'
import { DEFAULT_GIFT_CARD_SERVICE, Harness, startHarness, UUID_RE } from '../support/harness'
import { API_TYPES_FILE, fetchLiveDocument, generateApiTypes, REGENERATE_COMMAND } from './generate-api-types'
import type { components, paths } from './orka-api'
import { makeCardNumbers, threeYearsAfter } from './support'

/**
 * Orka driven by a client generated from its own OpenAPI document: openapi-typescript turns the
 * document into `orka-api.ts`, and openapi-fetch's `createClient<paths>()` makes tsc check every
 * call's path, parameters, body and answer against it. The first test proves the committed types
 * are still what the live document gives, so the rest type-check against the contract as served.
 */

type Schemas = components['schemas']

const MISSING = '99999999-9999-4999-8999-999999999999'
const PIN = '975313'
/** The catalogue as the document types a page of roles. */
const bySlug: Schemas['Role'][] = [...ROLE_CATALOGUE].sort((a, b) => (a.slug < b.slug ? -1 : 1))
const SERVICE: Schemas['GiftCardService'] = {
  type: 'gift-card-service',
  id: DEFAULT_GIFT_CARD_SERVICE.id,
  gift_card_service_definition_id: 'mock-gift-card',
  display_name: 'Mock gift cards',
}
const NOT_FOUND: Schemas['Error404'] = {
  type: 'error',
  code: 'not_found',
  status: 404,
  message: 'The resource could not be found',
  details: [],
}

/** The first line where two texts differ (1-based), with both versions of it. */
const firstDifference = (committed: string, live: string): string => {
  const a = committed.split('\n')
  const b = live.split('\n')
  const i = a.findIndex((line, n) => line !== b[n])
  const at = i === -1 ? a.length : i
  return `line ${at + 1}: committed ${JSON.stringify(a[at] ?? '<end of file>')}, live document gives ${JSON.stringify(b[at] ?? '<end of file>')}`
}

describe('Orka through a client typed from its own OpenAPI document (openapi-fetch)', () => {
  let h: Harness
  let api: Client<paths>
  /** Every card number, PIN and token sent: none may reach the log. */
  const sent: string[] = [PIN]
  const card = makeCardNumbers('51234566')
  const cardNumber = (last4: string) => {
    const number = card(last4)
    sent.push(number)
    return number
  }

  before(async () => {
    h = await startHarness()
    api = createClient<paths>({ baseUrl: h.url })
    // As the SDKs do: a fresh token on every request.
    api.use({
      onRequest: ({ request }) => {
        const token = h.token('admin')
        sent.push(token)
        request.headers.set('authorization', `Bearer ${token}`)
        return request
      },
    })
  })
  after(() => h.close())

  it('uses types equal, byte for byte, to what openapi-typescript makes of the live /openapi.json', async () => {
    const live = await generateApiTypes(await fetchLiveDocument(h.url))
    const committed = readFileSync(API_TYPES_FILE, 'utf8')
    if (committed !== live)
      expect.fail(`test/sdk/orka-api.ts is stale (${firstDifference(committed, live)}): run \`${REGENERATE_COMMAND}\` and commit the file`)
  })

  it('GET /roles: pages of the role catalogue', async () => {
    const first = await api.GET('/roles', { params: { query: { limit: 3 } } })
    expect(first.response.status).to.equal(200)
    expect(first.data).to.deep.equal({ items: bySlug.slice(0, 3), limit: 3, next_cursor: first.data?.next_cursor, previous_cursor: null })
    const cursor = first.data?.next_cursor
    expect(cursor).to.be.a('string')
    const next = await api.GET('/roles', { params: { query: { limit: 3, cursor: cursor! } } })
    expect(next.response.status).to.equal(200)
    expect(next.data?.items).to.deep.equal(bySlug.slice(3, 6))
  })

  it('POST then DELETE /webhook-subscriptions/{subscription_id}: 201 with the subscription, 204, then 404', async () => {
    const created = await api.POST('/webhook-subscriptions', { body: { url: 'https://hooks.example.test/typed' } })
    expect(created.response.status).to.equal(201)
    const subscription = created.data!
    expect(subscription.id).to.match(UUID_RE)
    expect(subscription.secret).to.match(/^[0-9a-f]{64}$/)
    const expected: Schemas['WebhookSubscription'] = {
      type: 'webhook-subscription',
      id: subscription.id,
      merchant_account_id: 'default',
      active: true,
      url: 'https://hooks.example.test/typed',
      authentication: null,
      secret: subscription.secret,
      rotating: false,
      creator: null,
    }
    expect(subscription).to.deep.equal(expected)

    const path = { subscription_id: subscription.id }
    const deleted = await api.DELETE('/webhook-subscriptions/{subscription_id}', { params: { path } })
    expect(deleted.response.status).to.equal(204)
    expect(deleted.data).to.equal(undefined)
    const read = await api.GET('/webhook-subscriptions/{subscription_id}', { params: { path } })
    expect(read.response.status).to.equal(404)
    expect(read.error).to.deep.equal(NOT_FOUND)
  })

  describe('buyers', () => {
    const billing: Schemas['BillingDetails'] = {
      first_name: 'Grace',
      last_name: 'Hopper',
      email_address: 'grace@example.test',
      phone_number: '+15555550100',
      address: { city: 'Arlington', country: 'US', postal_code: '22201' },
      tax_id: { value: '12-3456789', kind: 'us.ein' },
    }
    const add = async (body: Schemas['BuyerCreate']): Promise<Schemas['Buyer']> => {
      const r = await api.POST('/buyers', { body })
      expect(r.response.status).to.equal(201)
      return r.data!
    }

    it('POST /buyers: 201 with the whole buyer', async () => {
      const r = await api.POST('/buyers', {
        params: { header: { 'x-orka-merchant-account-id': 'default' } },
        body: { display_name: 'Grace Hopper', external_identifier: 'typed-grace', billing_details: billing, account_number: 'acct-7' },
      })
      expect(r.response.status).to.equal(201)
      const buyer = r.data!
      expect(buyer.id).to.match(UUID_RE)
      expect(buyer.reconciliation_id).to.match(/^[0-9A-Za-z]{1,22}$/)
      const now = h.clock.now().toISOString()
      const expected: Schemas['Buyer'] = {
        type: 'buyer',
        id: buyer.id,
        reconciliation_id: buyer.reconciliation_id,
        merchant_account_id: 'default',
        display_name: 'Grace Hopper',
        external_identifier: 'typed-grace',
        billing_details: billing,
        account_number: 'acct-7',
        created_at: now,
        updated_at: now,
      }
      expect(buyer).to.deep.equal(expected)
    })

    it('GET /buyers?search: the buyers whose name or external identifier contains it, ignoring case, newest first', async () => {
      const first = await add({ display_name: 'Ada Typed', external_identifier: 'typed-search-1' })
      h.clock.advance(1000)
      const second = await add({ display_name: 'Charles Babbage', external_identifier: 'TYPED-Search-2' })
      await add({ display_name: 'Someone Else', external_identifier: 'unrelated-typed' })
      const r = await api.GET('/buyers', { params: { query: { search: 'typed-SEARCH' } } })
      expect(r.response.status).to.equal(200)
      const expected: Schemas['Buyers'] = { items: [second, first], limit: 20, next_cursor: null, previous_cursor: null }
      expect(r.data).to.deep.equal(expected)
    })

    it('GET and PUT /buyers/{buyer_id}: 200 with the buyer; the update sets, clears and leaves fields', async () => {
      const created = await add({ display_name: 'Katherine Johnson', external_identifier: 'typed-kj', billing_details: billing })
      const path = { buyer_id: created.id }
      const read = await api.GET('/buyers/{buyer_id}', { params: { path } })
      expect(read.response.status).to.equal(200)
      expect(read.data).to.deep.equal(created)

      h.clock.advance(1000)
      const updated = await api.PUT('/buyers/{buyer_id}', {
        params: { path },
        body: { display_name: 'Katherine G. Johnson', billing_details: null, account_number: 'acct-9' },
      })
      expect(updated.response.status).to.equal(200)
      const expected: Schemas['Buyer'] = {
        ...created,
        display_name: 'Katherine G. Johnson',
        billing_details: null,
        account_number: 'acct-9',
        updated_at: h.clock.now().toISOString(),
      }
      expect(updated.data).to.deep.equal(expected)
    })

    it('DELETE /buyers/{buyer_id}: 204 with no body, then 404', async () => {
      const buyer = await add({ display_name: 'Dorothy Vaughan' })
      const path = { buyer_id: buyer.id }
      const deleted = await api.DELETE('/buyers/{buyer_id}', { params: { path } })
      expect(deleted.response.status).to.equal(204)
      expect(deleted.data).to.equal(undefined)
      const read = await api.GET('/buyers/{buyer_id}', { params: { path } })
      expect(read.response.status).to.equal(404)
      expect(read.error).to.deep.equal(NOT_FOUND)
    })
  })

  describe('gift cards', () => {
    const stored = (last4: string, at: Date, o: Partial<Schemas['GiftCard']> & Pick<Schemas['GiftCard'], 'id'>): Schemas['GiftCard'] => ({
      type: 'gift-card',
      merchant_account_id: 'default',
      gift_card_service: SERVICE,
      bin: '512345',
      sub_bin: '660',
      last4,
      expiration_date: threeYearsAfter(at).toISOString(),
      buyer: null,
      created_at: at.toISOString(),
      updated_at: at.toISOString(),
      last_used_at: null,
      usage_count: 0,
      cit_last_used_at: null,
      cit_usage_count: 0,
      ...o,
    })

    it('POST /gift-cards/activations: 201 with the activated card', async () => {
      const r = await api.POST('/gift-cards/activations', {
        params: { header: { 'idempotency-key': '3f1c7a52-8d9e-4c1b-9a57-0f2b1d3e4c5a' } },
        body: { number: cardNumber('5678'), pin: PIN, amount: 5000, currency: 'USD' },
      })
      expect(r.response.status).to.equal(201)
      const activated = r.data!
      expect(activated.id).to.match(UUID_RE)
      expect(activated).to.deep.equal(stored('5678', h.clock.now(), { id: activated.id }))
    })

    it('POST /gift-cards, GET /gift-cards?buyer_id, GET /gift-cards/{gift_card_id}: the stored card, listed and read', async () => {
      const buyer = (await api.POST('/buyers', { body: { display_name: 'Mary Jackson', external_identifier: 'typed-mj' } })).data!
      const older = await api.POST('/gift-cards', { body: { number: cardNumber('1111'), pin: PIN, buyer_id: buyer.id } })
      expect(older.response.status).to.equal(201)
      const at = h.clock.now()
      expect(older.data).to.deep.equal(stored('1111', at, { id: older.data!.id, buyer }))
      h.clock.advance(1000)
      const newer = await api.POST('/gift-cards', { body: { number: cardNumber('2222'), pin: PIN, buyer_external_identifier: 'typed-mj' } })
      expect(newer.response.status).to.equal(201)
      await api.POST('/gift-cards', { body: { number: cardNumber('3333'), pin: PIN } })

      const list = await api.GET('/gift-cards', { params: { query: { buyer_id: buyer.id } } })
      expect(list.response.status).to.equal(200)
      const expected: Schemas['GiftCards'] = { items: [newer.data!, older.data!], limit: 20, next_cursor: null, previous_cursor: null }
      expect(list.data).to.deep.equal(expected)

      const read = await api.GET('/gift-cards/{gift_card_id}', { params: { path: { gift_card_id: older.data!.id } } })
      expect(read.response.status).to.equal(200)
      expect(read.data).to.deep.equal(older.data)
    })

    it('DELETE /gift-cards/{gift_card_id}: 204 with no body, then 404', async () => {
      const created = await api.POST('/gift-cards', { body: { number: cardNumber('4444'), pin: PIN } })
      const path = { gift_card_id: created.data!.id }
      const deleted = await api.DELETE('/gift-cards/{gift_card_id}', { params: { path } })
      expect(deleted.response.status).to.equal(204)
      expect(deleted.data).to.equal(undefined)
      const read = await api.GET('/gift-cards/{gift_card_id}', { params: { path } })
      expect(read.response.status).to.equal(404)
      expect(read.error).to.deep.equal(NOT_FOUND)
    })

    it('POST /gift-cards/balances and GET /buyers/gift-cards: 200 with a GiftCardSummary per card', async () => {
      const buyer = (await api.POST('/buyers', { body: { display_name: 'Dorothy Vaughan', external_identifier: 'typed-dv' } })).data!
      const kept = (await api.POST('/gift-cards', { body: { number: cardNumber('6666'), pin: PIN, buyer_id: buyer.id } })).data!
      await api.POST('/gift-cards', { body: { number: cardNumber('0004'), pin: PIN, buyer_id: buyer.id } })
      const summary = (o: Partial<Schemas['GiftCardSummary']> & Pick<Schemas['GiftCardSummary'], 'last4'>): Schemas['GiftCardSummary'] => ({
        ...aGiftCardSummary({ merchant_account_id: 'default', bin: '512345', sub_bin: '660' }),
        ...o,
      })
      const funded = { balance: 10000, currency: 'USD', expiration_date: threeYearsAfter(h.clock.now()).toISOString() }
      const balances = await api.POST('/gift-cards/balances', {
        body: { items: [{ id: kept.id }, { number: cardNumber('0002'), pin: PIN }] },
      })
      expect(balances.response.status).to.equal(200)
      const expected: Schemas['GiftCardSummaries'] = {
        items: [summary({ id: kept.id, last4: '6666', ...funded }), summary({ last4: '0002', balance_error_code: 'invalid_gift_card' })],
      }
      expect(balances.data).to.deep.equal(expected)
      const wallet = await api.GET('/buyers/gift-cards', { params: { query: { buyer_external_identifier: 'typed-dv', order_by: 'desc' } } })
      expect(wallet.response.status).to.equal(200)
      expect(wallet.data).to.deep.equal({ items: [summary({ id: kept.id, last4: '6666', ...funded })] })
    })

    it('POST /gift-cards of a card the service refuses (0002): 400 pointing at /number', async () => {
      const r = await api.POST('/gift-cards', { body: { number: cardNumber('0002'), pin: PIN } })
      expect(r.response.status).to.equal(400)
      const expected: Schemas['Error400'] = {
        type: 'error',
        code: 'bad_request',
        status: 400,
        message: 'Generic error',
        details: [
          {
            location: 'body',
            pointer: '/number',
            message: 'The gift card service does not know this gift card',
            type: 'invalid_gift_card',
          },
        ],
      }
      expect(r.error).to.deep.equal(expected)
    })
  })

  describe('errors', () => {
    it('404 for an unknown buyer, typed as Error404', async () => {
      const r = await api.GET('/buyers/{buyer_id}', { params: { path: { buyer_id: MISSING } } })
      expect(r.response.status).to.equal(404)
      expect(r.error).to.deep.equal(NOT_FOUND)
    })

    it('422 for a body that breaks its schema, typed as HTTPValidationError', async () => {
      const r = await api.POST('/buyers', { body: { billing_details: { phone_number: '555-0100' } } })
      expect(r.response.status).to.equal(422)
      const expected: Schemas['HTTPValidationError'] = {
        detail: [
          {
            loc: ['body', 'billing_details', 'phone_number'],
            msg: "String should match pattern '^\\+[1-9]\\d{1,14}$'",
            type: 'string_pattern_mismatch',
            input: '555-0100',
            ctx: { pattern: '^\\+[1-9]\\d{1,14}$' },
          },
        ],
      }
      expect(r.error).to.deep.equal(expected)
    })
  })

  describe('logs', () => {
    it('hold no card number, PIN or token that was sent', () => {
      const all = h.logs.join('\n')
      expect(h.logs.length).to.be.greaterThan(0)
      expect(sent.length).to.be.greaterThan(10)
      for (const secret of sent) expect(all).not.to.include(secret)
    })
  })
})
