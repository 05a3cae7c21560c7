import { expect } from 'chai'
import { errorBody, Harness, IDS, Page, startHarness, ValidationErrorBody } from '../support/harness'
import { defaultCardServiceId } from '../../src/card-services'
import { SEED_USER, userOf } from './audit-support'

interface Entry {
  type: 'audit-log'
  id: string
  merchant_account_id: string | null
  resource: { type: string; id: string; name: string }
  action: string
  user: ReturnType<typeof userOf> | typeof SEED_USER
  timestamp: string
}
type Json = Record<string, unknown>
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const CARD_NUMBER = '4111111111111111'
const GIFT_CARD_NUMBER = '7000000000000001234'
const PIN = '8642'

describe('GET /audit-logs: every change made through the API, newest first', function () {
  this.timeout(30_000)
  let h: Harness
  const entries: Omit<Entry, 'id'>[] = []
  /** Makes a change (2xx), then records the entry it must have written, one second apart so that the order is known. */
  const change = async <T = Json>(
    method: string,
    path: string,
    body: unknown,
    expected: (answer: T) => Pick<Entry, 'resource' | 'action'>,
  ): Promise<T> => {
    const r = await h.request<T>(method, path, body === undefined ? {} : { body })
    expect(r.status, r.text).to.be.within(200, 299)
    entries.unshift({
      type: 'audit-log',
      merchant_account_id: 'default',
      ...expected(r.body),
      user: userOf(h.pems.admin),
      timestamp: h.clock.now().toISOString(),
    })
    h.clock.advance(1000)
    return r.body
  }
  /** The entry of an account's default card service, which the harness's seed creates at start. */
  const seeded = (account: string, timestamp: string): Omit<Entry, 'id'> => ({
    type: 'audit-log',
    merchant_account_id: account,
    resource: { type: 'payment-service', id: defaultCardServiceId(account), name: 'Mock cards' },
    action: 'created',
    user: SEED_USER,
    timestamp,
  })
  let started = ''
  const list = (query = '', o: { merchantAccount?: string; auth?: string } = {}) => h.request<Page<Entry>>('GET', `/audit-logs${query}`, o)
  const withoutIds = (items: readonly Entry[]) =>
    items.map(({ id, ...rest }) => {
      expect(id).to.match(UUID_RE)
      return rest
    })

  before(async () => {
    h = await startHarness()
    started = h.clock.now().toISOString()
    entries.push(seeded('default', started))
    h.clock.advance(1000)
    const buyer = await change('POST', '/buyers', { display_name: 'Grace Hopper' }, (b) => ({
      resource: { type: 'buyer', id: b.id as string, name: 'Grace Hopper' },
      action: 'created',
    }))
    await change('PUT', `/buyers/${buyer.id as string}`, { display_name: 'Rear Admiral Hopper' }, () => ({
      resource: { type: 'buyer', id: buyer.id as string, name: 'Rear Admiral Hopper' },
      action: 'updated',
    }))
    await change('DELETE', `/buyers/${buyer.id as string}`, undefined, () => ({
      resource: { type: 'buyer', id: buyer.id as string, name: 'Rear Admiral Hopper' },
      action: 'deleted',
    }))
    const card = await change('POST', '/gift-cards', { number: GIFT_CARD_NUMBER, pin: PIN }, (c) => ({
      resource: { type: 'gift-card', id: c.id as string, name: 'Gift card ending 1234' },
      action: 'created',
    }))
    await change('DELETE', `/gift-cards/${card.id as string}`, undefined, () => ({
      resource: { type: 'gift-card', id: card.id as string, name: 'Gift card ending 1234' },
      action: 'deleted',
    }))
    const method = await change(
      'POST',
      '/payment-methods',
      { method: 'card', number: CARD_NUMBER, expiration_date: '12/30', security_code: '123' },
      (m) => ({ resource: { type: 'payment-method', id: m.id as string, name: 'Card ending 1111' }, action: 'created' }),
    )
    await change('PUT', `/payment-methods/${method.id as string}`, { expiration_date: '11/31' }, () => ({
      resource: { type: 'payment-method', id: method.id as string, name: 'Card ending 1111' },
      action: 'updated',
    }))
    await change('DELETE', `/payment-methods/${method.id as string}`, undefined, () => ({
      resource: { type: 'payment-method', id: method.id as string, name: 'Card ending 1111' },
      action: 'deleted',
    }))
    const sub = await change('POST', '/webhook-subscriptions', { url: 'https://hooks.example.test/audit?token=s3cr3t' }, (s) => ({
      resource: { type: 'webhook-subscription', id: s.id as string, name: 'Webhook subscription' },
      action: 'created',
    }))
    const subscription = { type: 'webhook-subscription', id: sub.id as string, name: 'Webhook subscription' }
    await change('PUT', `/webhook-subscriptions/${sub.id as string}`, { active: false }, () => ({
      resource: subscription,
      action: 'updated',
    }))
    await change('POST', `/webhook-subscriptions/${sub.id as string}/rotate-secret`, {}, () => ({
      resource: subscription,
      action: 'updated',
    }))
    await change('DELETE', `/webhook-subscriptions/${sub.id as string}`, undefined, () => ({ resource: subscription, action: 'deleted' }))
    const session = await change('POST', '/checkout/sessions', {}, (s) => ({
      resource: { type: 'checkout-session', id: s.id as string, name: 'Checkout session' },
      action: 'created',
    }))
    const checkout = { type: 'checkout-session', id: session.id as string, name: 'Checkout session' }
    await change('PUT', `/checkout/sessions/${session.id as string}`, { amount: 1299 }, () => ({ resource: checkout, action: 'updated' }))
    await change('DELETE', `/checkout/sessions/${session.id as string}`, undefined, () => ({ resource: checkout, action: 'deleted' }))
    const payment = {
      amount: 1299,
      currency: 'USD',
      payment_method: { method: 'card', number: CARD_NUMBER, expiration_date: '12/30', security_code: '123' },
    }
    const paid = await change('POST', '/transactions', payment, (t) => ({
      resource: { type: 'transaction', id: t.id as string, name: '1299 USD' },
      action: 'created',
    }))
    const transaction = { type: 'transaction', id: paid.id as string, name: '1299 USD' }
    await change('PUT', `/transactions/${paid.id as string}`, { external_identifier: 'order-77' }, () => ({
      resource: transaction,
      action: 'updated',
    }))
    await change('POST', `/transactions/${paid.id as string}/capture`, {}, () => ({ resource: transaction, action: 'captured' }))
    await change<{ id: string }>('POST', `/transactions/${paid.id as string}/refunds`, { amount: 299 }, (r) => ({
      resource: { type: 'refund', id: r.id, name: '299 USD' },
      action: 'created',
    }))
    const other = await change('POST', '/transactions', payment, (t) => ({
      resource: { type: 'transaction', id: t.id as string, name: '1299 USD' },
      action: 'created',
    }))
    await change('POST', `/transactions/${other.id as string}/void`, undefined, () => ({
      resource: { type: 'transaction', id: other.id as string, name: '1299 USD' },
      action: 'voided',
    }))
  })
  after(() => h.close())

  it('lists one entry per change, newest first, with the key pair that made it', async () => {
    const r = await list('?limit=100')
    expect(r.status, r.text).to.equal(200)
    expect(withoutIds(r.body.items)).to.deep.equal(entries)
    expect([r.body.limit, r.body.next_cursor, r.body.previous_cursor]).to.deep.equal([100, null, null])
  })

  it('never holds a card number, PIN, security code, URL or secret', async () => {
    const r = await list('?limit=100')
    for (const secret of [CARD_NUMBER, GIFT_CARD_NUMBER, PIN, '"123"', 's3cr3t', 'hooks.example.test'])
      expect(r.text).not.to.include(secret)
  })

  it('filters by action, resource type and user, each alone and together', async () => {
    const only = async (query: string, keep: (e: Omit<Entry, 'id'>) => boolean) => {
      const r = await list(`?limit=100&${query}`)
      expect(r.status, r.text).to.equal(200)
      expect(withoutIds(r.body.items), query).to.deep.equal(entries.filter(keep))
    }
    await only('action=deleted', (e) => e.action === 'deleted')
    await only('resource_type=transaction', (e) => e.resource.type === 'transaction')
    await only('resource_type=buyer&action=updated', (e) => e.resource.type === 'buyer' && e.action === 'updated')
    await only(`user_id=${userOf(h.pems.admin).id}&action=captured`, (e) => e.action === 'captured')
    await only(`user_id=${userOf(h.pems.readOnly).id}`, () => false)
  })

  it('pages with cursors bound to the filters', async () => {
    const first = await list('?limit=5&action=created')
    expect(withoutIds(first.body.items)).to.deep.equal(entries.filter((e) => e.action === 'created').slice(0, 5))
    const second = await list(`?limit=5&action=created&cursor=${encodeURIComponent(first.body.next_cursor!)}`)
    expect(withoutIds(second.body.items)).to.deep.equal(entries.filter((e) => e.action === 'created').slice(5, 10))
    const back = await list(`?limit=5&action=created&cursor=${encodeURIComponent(second.body.previous_cursor!)}`)
    expect(back.body).to.deep.equal(first.body)
    const crossed = await list(`?limit=5&action=deleted&cursor=${encodeURIComponent(first.body.next_cursor!)}`)
    expect(crossed.status).to.equal(400)
  })

  it("shows an account only its own entries: another account's changes are not listed, its own are", async () => {
    const before = (await list('?limit=100')).body.items
    const theirs = await h.request<Json>('POST', '/buyers', { merchantAccount: 'acme', body: { external_identifier: 'acme-audit' } })
    expect(theirs.status).to.equal(201)
    expect((await list('?limit=100')).body.items).to.deep.equal(before)
    const acme = await list('', { merchantAccount: 'acme' })
    expect(withoutIds(acme.body.items)).to.deep.equal([
      {
        type: 'audit-log',
        merchant_account_id: 'acme',
        resource: { type: 'buyer', id: theirs.body.id, name: 'acme-audit' },
        action: 'created',
        user: userOf(h.pems.admin),
        timestamp: h.clock.now().toISOString(),
      },
      seeded('acme', started),
    ])
  })

  it('writes no capture for a capture the card service declined: only the payment is listed', async () => {
    const card = { method: 'card', number: CARD_NUMBER, expiration_date: '12/30', security_code: '123' }
    const paid = await h.request<{ id: string }>('POST', '/transactions', {
      body: { amount: 250000, currency: 'USD', payment_method: card },
    })
    expect(paid.status, paid.text).to.equal(201)
    h.clock.advance(1000)
    // The sandbox card service declines this amount (insufficient_funds).
    const declined = await h.request<{ captured_amount: number; status: string }>('POST', `/transactions/${paid.body.id}/capture`, {
      body: { amount: 200011 },
    })
    expect([declined.status, declined.body.captured_amount, declined.body.status]).to.deep.equal([200, 0, 'authorization_succeeded'])
    const onIt = (await list('?limit=100&resource_type=transaction')).body.items.filter((e) => e.resource.id === paid.body.id)
    expect(onIt.map((e) => e.action)).to.deep.equal(['created'])
    expect((await h.request('POST', `/transactions/${paid.body.id}/capture`, { body: { amount: 1000 } })).status).to.equal(200)
    const after = (await list('?limit=100&resource_type=transaction')).body.items.filter((e) => e.resource.id === paid.body.id)
    expect(after.map((e) => e.action)).to.deep.equal(['captured', 'created'])
  })

  it('writes nothing for a change that did not happen: refused, not found or failed validation', async () => {
    const before = (await list('?limit=100')).body.items
    expect((await h.request('PUT', `/buyers/${IDS.acmeBuyer}`, { body: { display_name: 'x' } })).status).to.equal(404)
    expect((await h.request('POST', '/buyers', { body: { external_identifier: 'buyer-1' } })).status).to.equal(409)
    expect((await h.request('DELETE', '/webhook-subscriptions/7a3f0c52-9d4e-4b1a-8c6d-0123456789ab')).status).to.equal(404)
    expect((await h.request('POST', '/buyers', { body: { display_name: 7 } })).status).to.equal(422)
    expect((await list('?limit=100')).body.items).to.deep.equal(before)
  })

  it('needs audit-logs.read; a read-only key has it', async () => {
    const r = await list('', { auth: h.token('admin', { scopes: ['buyers.read'] }) })
    expect([r.status, r.body]).to.deep.equal([403, errorBody(403)])
    const operator = await list('', { auth: 'giftCardOperator' })
    expect(operator.status).to.equal(403)
    expect((await list('', { auth: 'readOnly' })).status).to.equal(200)
  })

  it('refuses filters outside their sets with 422 on the query, and changes nothing through the API', async () => {
    for (const [query, name] of [
      ['action=renamed', 'action'],
      ['resource_type=three-ds-scenario', 'resource_type'],
      ['user_id=not-a-uuid', 'user_id'],
    ] as const) {
      const r = await h.request<ValidationErrorBody>('GET', `/audit-logs?${query}`)
      expect(r.status, query).to.equal(422)
      expect(r.body.detail.map((d) => d.loc)).to.deep.equal([['query', name]])
    }
    for (const method of ['POST', 'PUT', 'DELETE']) expect((await h.request(method, '/audit-logs')).status).to.equal(405)
  })
})
