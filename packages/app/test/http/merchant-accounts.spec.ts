import { expect } from 'chai'
import { errorBody, Harness, Page, startHarness } from '../support/harness'

type Account = Record<string, unknown> & { id: string; display_name: string; created_at: string }

/** A new account as answered: every setting at its default, the secrets `null`. */
const fresh = (id: string, display_name: string, at: string, o: Record<string, unknown> = {}) => ({
  type: 'merchant-account',
  id,
  display_name,
  account_updater_enabled: false,
  async_network_tokens_enabled: false,
  over_capture_amount: null,
  over_capture_percentage: null,
  loon_accepted_schemes: null,
  account_updater_request_encryption_key_id: null,
  account_updater_response_decryption_key_id: null,
  visa_network_tokens_requestor_id: null,
  visa_network_tokens_app_id: null,
  amex_network_tokens_requestor_id: null,
  amex_network_tokens_app_id: null,
  mastercard_network_tokens_requestor_id: null,
  mastercard_network_tokens_app_id: null,
  loon_client_key: null,
  loon_secret_key: null,
  account_updater_request_encryption_key: null,
  account_updater_response_decryption_key: null,
  created_at: at,
  updated_at: at,
  ...o,
})

describe('merchant accounts', () => {
  let h: Harness
  let n = 0
  const newId = () => `shop-${String(++n)}`
  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  it('creates an account that starts as a seeded one: it takes a card payment and activates a gift card at once', async () => {
    const id = newId()
    const r = await h.request<Account>('POST', '/merchant-accounts', { body: { id, display_name: 'Shop One' } })
    expect([r.status, r.body]).to.deep.equal([201, fresh(id, 'Shop One', h.clock.now().toISOString())])
    const card = { method: 'card', number: '4111111111111111', expiration_date: '12/35', security_code: '123' }
    const paid = await h.request<{ status: string; merchant_account_id: string }>('POST', '/transactions', {
      merchantAccount: id,
      body: { amount: 1299, currency: 'USD', payment_method: card },
    })
    expect([paid.status, paid.body.status, paid.body.merchant_account_id]).to.deep.equal([201, 'authorization_succeeded', id])
    const activated = await h.request('POST', '/gift-cards/activations', {
      merchantAccount: id,
      body: { number: '7300000000000001234', pin: '8642', amount: 500, currency: 'USD' },
    })
    expect(activated.status, activated.text).to.equal(201)
    const services = await h.request<{ items: { payment_service_definition_id: string; active: boolean }[] }>('GET', '/payment-services', {
      merchantAccount: id,
    })
    expect(services.body.items.map((s) => [s.payment_service_definition_id, s.active])).to.deep.equal([['mock-card', true]])
  })

  it('keeps the settings it is given; secrets are sealed and answered null, and never logged', async () => {
    const id = newId()
    const body = {
      id,
      display_name: 'Shop Settings',
      account_updater_enabled: true,
      over_capture_percentage: 15,
      visa_network_tokens_requestor_id: '40010030273',
      loon_accepted_schemes: ['visa', 'mastercard'],
      loon_secret_key: 'loon-secret-7f3a9c',
      account_updater_request_encryption_key: '-----BEGIN PUBLIC KEY-----\nMFkw-secret-key\n-----END PUBLIC KEY-----',
    }
    const at = h.clock.now().toISOString()
    const expected = fresh(id, 'Shop Settings', at, {
      account_updater_enabled: true,
      over_capture_percentage: 15,
      visa_network_tokens_requestor_id: '40010030273',
      loon_accepted_schemes: ['visa', 'mastercard'],
    })
    const r = await h.request<Account>('POST', '/merchant-accounts', { body })
    expect([r.status, r.body]).to.deep.equal([201, expected])
    expect((await h.request('GET', `/merchant-accounts/${id}`)).body).to.deep.equal(expected)
    for (const secret of ['loon-secret-7f3a9c', 'MFkw-secret-key']) expect(h.logs.join('\n')).to.not.include(secret)
  })

  it('updates what the body names, as the SDK sends it (both flags with every update); absent stays, null clears', async () => {
    const id = newId()
    await h.request('POST', '/merchant-accounts', {
      body: { id, display_name: 'Before', async_network_tokens_enabled: true, over_capture_amount: 500 },
    })
    const created = h.clock.now().toISOString()
    h.clock.advance(1000)
    const r = await h.request<Account>('PUT', `/merchant-accounts/${id}`, {
      body: { display_name: 'After', account_updater_enabled: false, async_network_tokens_enabled: false, over_capture_amount: null },
    })
    const expected = { ...fresh(id, 'After', created), updated_at: h.clock.now().toISOString() }
    expect([r.status, r.body]).to.deep.equal([200, expected])
    expect((await h.request('GET', `/merchant-accounts/${id}`)).body).to.deep.equal(expected)
  })

  it('lists newest first with cursors; a search is refused rather than ignored', async () => {
    const ids = [newId(), newId(), newId()]
    for (const id of ids) {
      h.clock.advance(1000)
      await h.request('POST', '/merchant-accounts', { body: { id, display_name: id } })
    }
    const first = await h.request<Page<Account>>('GET', '/merchant-accounts?limit=2')
    expect(first.status).to.equal(200)
    expect(first.body.items.map((a) => a.id)).to.deep.equal([ids[2], ids[1]])
    const second = await h.request<Page<Account>>(
      'GET',
      `/merchant-accounts?limit=2&cursor=${encodeURIComponent(first.body.next_cursor ?? '')}`,
    )
    expect(second.body.items[0]?.id).to.equal(ids[0])
    const all = await h.request<Page<Account>>('GET', '/merchant-accounts?limit=100')
    expect(all.body.items.map((a) => a.id)).to.include.members(['default', 'acme', ...ids])
    const search = await h.request('GET', '/merchant-accounts?search=shop')
    expect(search.status).to.equal(400)
  })

  it('answers 409 naming a taken id, and 422 for a malformed, too long or missing one, creating nothing', async () => {
    const services = () => h.request('GET', '/payment-services', { merchantAccount: 'acme' })
    const before = (await services()).body
    const taken = await h.request('POST', '/merchant-accounts', { body: { id: 'acme', display_name: 'Impostor' } })
    expect([taken.status, taken.body]).to.deep.equal([409, errorBody(409, [], { resource_id: 'acme' })])
    expect((await h.request<Account>('GET', '/merchant-accounts/acme')).body.display_name).to.equal('Acme')
    // Nothing was added to the account that holds the id (its card services are its own, unchanged).
    expect((await services()).body).to.deep.equal(before)
    for (const [body, loc] of [
      [{ id: 'has space', display_name: 'x' }, ['body', 'id']],
      [{ id: '-leading', display_name: 'x' }, ['body', 'id']],
      [{ id: 'x'.repeat(65), display_name: 'x' }, ['body', 'id']],
      [{ id: 'nul\u0000id', display_name: 'x' }, ['body', 'id']],
      [{ display_name: 'x' }, ['body', 'id']],
      [{ id: 'ok-id', display_name: '' }, ['body', 'display_name']],
      [{ id: 'ok-id', display_name: 'x', over_capture_percentage: 101 }, ['body', 'over_capture_percentage']],
      [{ id: 'ok-id', display_name: 'x', locked: true }, ['body', 'locked']],
    ] as const) {
      const r = await h.request<{ detail: { loc: unknown }[] }>('POST', '/merchant-accounts', { body })
      expect(r.status, JSON.stringify(body)).to.equal(422)
      expect(r.body.detail.map((d) => d.loc)).to.deep.include(loc)
    }
    expect((await h.request('GET', '/merchant-accounts/ok-id')).status).to.equal(404)
  })

  it('is an administrator’s: a key bound to an account creates none, reads and changes only its own; others are 404', async () => {
    const acme = { auth: 'acmeAdmin', merchantAccount: 'acme' } as const
    const made = await h.request('POST', '/merchant-accounts', { ...acme, body: { id: newId(), display_name: 'Escalation' } })
    expect([made.status, made.body]).to.deep.equal([403, errorBody(403)])
    const own = await h.request<Account>('GET', '/merchant-accounts/acme', acme)
    expect([own.status, own.body.id]).to.deep.equal([200, 'acme'])
    for (const [method, body] of [['GET'], ['PUT', { display_name: 'Taken over' }]] as const) {
      const r = await h.request(method, '/merchant-accounts/default', { ...acme, body })
      expect([r.status, r.body], method).to.deep.equal([404, errorBody(404)])
    }
    const listed = await h.request<Page<Account>>('GET', '/merchant-accounts', acme)
    expect([listed.status, listed.body.items.map((a) => a.id), listed.body.next_cursor]).to.deep.equal([200, ['acme'], null])
    // Asking for another account in the header is the authorization's 403, as on every route.
    const other = await h.request('GET', '/merchant-accounts/default', { auth: 'acmeAdmin', merchantAccount: 'default' })
    expect(other.status).to.equal(403)
    expect((await h.request<Account>('GET', '/merchant-accounts/default')).body.display_name).to.equal('Default')
  })

  it('needs merchant-accounts.read to read and .write to change; embed tokens are refused', async () => {
    const readOnly = await h.request('POST', '/merchant-accounts', { auth: 'readOnly', body: { id: newId(), display_name: 'x' } })
    expect([readOnly.status, readOnly.body]).to.deep.equal([403, errorBody(403)])
    expect((await h.request('GET', '/merchant-accounts/default', { auth: 'readOnly' })).status).to.equal(200)
    const embed = await h.request('GET', '/merchant-accounts', { auth: h.token('admin', { scopes: [], embed: true }) })
    expect(embed.status).to.equal(403)
    expect((await h.request('GET', '/merchant-accounts', { auth: null })).status).to.equal(401)
  })

  it('audits a creation and an update under the new account', async () => {
    const id = newId()
    await h.request('POST', '/merchant-accounts', { body: { id, display_name: 'Audited Shop' } })
    h.clock.advance(1000)
    await h.request('PUT', `/merchant-accounts/${id}`, { body: { display_name: 'Audited Shop 2' } })
    const log = await h.request<{ items: { action: string; resource: unknown }[] }>('GET', '/audit-logs?resource_type=merchant-account', {
      merchantAccount: id,
    })
    expect(log.body.items.map((e) => [e.action, e.resource])).to.deep.equal([
      ['updated', { type: 'merchant-account', id, name: 'Audited Shop 2' }],
      ['created', { type: 'merchant-account', id, name: 'Audited Shop' }],
    ])
  })
})
