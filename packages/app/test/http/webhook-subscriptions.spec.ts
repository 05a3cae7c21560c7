import { expect } from 'chai'
import { errorBody, Harness, IDS, Page, Resource, startHarness, UUID_RE, ValidationErrorBody } from '../support/harness'

type Subscription = Resource & { readonly url: string; readonly secret: string }

describe('webhook subscriptions', () => {
  let h: Harness
  beforeEach(async () => {
    h = await startHarness()
  })
  afterEach(() => h.close())

  it('creates a subscription and masks the endpoint credentials', async () => {
    const r = await h.request<Subscription>('POST', '/webhook-subscriptions', {
      body: { url: 'https://hooks.example.test/new', authentication: { kind: 'basic', username: 'orka', password: 'hunter2-secret' } },
    })
    expect(r.status).to.equal(201)
    expect(r.body.id).to.match(UUID_RE)
    expect(r.body.secret).to.match(/^[0-9a-f]{64}$/)
    expect(r.body).to.deep.equal({
      type: 'webhook-subscription',
      id: r.body.id,
      merchant_account_id: 'default',
      active: true,
      url: 'https://hooks.example.test/new',
      authentication: { type: 'webhook-authentication', kind: 'basic', username: 'orka', password: '********' },
      secret: r.body.secret,
      rotating: false,
      creator: null,
    })
    expect(r.text).not.to.include('hunter2-secret')
    const read = await h.request('GET', `/webhook-subscriptions/${r.body.id}`)
    expect(read.status).to.equal(200)
    expect(read.body).to.deep.equal(r.body)
  })

  it('rejects a URL that is not http(s) with 422', async () => {
    const r = await h.request<ValidationErrorBody>('POST', '/webhook-subscriptions', { body: { url: 'ftp://x' } })
    expect(r.status).to.equal(422)
    expect(r.body.detail[0]!.loc).to.deep.equal(['body', 'url'])
  })

  it('deletes for good: 204 with no body, then 404 on read and on a second delete', async () => {
    const del = await h.request('DELETE', `/webhook-subscriptions/${IDS.defaultWebhook}`)
    expect(del.status).to.equal(204)
    expect(del.text).to.equal('')
    expect(del.headers.get('content-type')).to.equal(null)
    const read = await h.request('GET', `/webhook-subscriptions/${IDS.defaultWebhook}`)
    expect(read.status).to.equal(404)
    expect(read.body).to.deep.equal(errorBody(404))
    const again = await h.request('DELETE', `/webhook-subscriptions/${IDS.defaultWebhook}`)
    expect(again.status).to.equal(404)
    expect(again.body).to.deep.equal(errorBody(404))
    const list = await h.request<Page>('GET', '/webhook-subscriptions')
    expect(list.body.items.map((w) => w.id)).not.to.include(IDS.defaultWebhook)
  })

  it("answers 404 for an unknown id and for another merchant account's subscription, deleting nothing", async () => {
    const unknown = await h.request('DELETE', '/webhook-subscriptions/99999999-9999-4999-8999-999999999999')
    expect(unknown.status).to.equal(404)
    expect(unknown.body).to.deep.equal(errorBody(404))
    const other = await h.request('DELETE', `/webhook-subscriptions/${IDS.acmeWebhook}`)
    expect(other.status).to.equal(404)
    expect(other.body).to.deep.equal(errorBody(404))
    const stillThere = await h.request('GET', `/webhook-subscriptions/${IDS.acmeWebhook}`, { merchantAccount: 'acme' })
    expect(stillThere.status).to.equal(200)
  })

  it('answers 422 for a subscription id that is not a UUID', async () => {
    const r = await h.request('DELETE', '/webhook-subscriptions/not-a-uuid')
    expect(r.status).to.equal(422)
    expect(r.body).to.deep.equal({
      detail: [{ loc: ['path', 'subscription_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: 'not-a-uuid' }],
    })
  })

  it('needs webhook-subscriptions.write to delete', async () => {
    const r = await h.request('DELETE', `/webhook-subscriptions/${IDS.defaultWebhook}`, {
      auth: h.token('admin', { scopes: ['webhook-subscriptions.read'] }),
    })
    expect(r.status).to.equal(403)
    expect(r.body).to.deep.equal(errorBody(403))
    expect((await h.request('GET', `/webhook-subscriptions/${IDS.defaultWebhook}`)).status).to.equal(200)
  })

  it('shows instance-wide subscriptions to keys that are not bound to one account only', async () => {
    const unbound = await h.request<Page>('GET', '/webhook-subscriptions', { merchantAccount: 'acme' })
    expect(unbound.body.items.map((w) => w.id)).to.have.members([IDS.acmeWebhook, IDS.instanceWebhook])
    const bound = await h.request<Page>('GET', '/webhook-subscriptions', { merchantAccount: 'acme', auth: 'acmeAdmin' })
    expect(bound.body.items.map((w) => w.id)).to.deep.equal([IDS.acmeWebhook])
    const del = await h.request('DELETE', `/webhook-subscriptions/${IDS.instanceWebhook}`, { merchantAccount: 'acme', auth: 'acmeAdmin' })
    expect(del.status).to.equal(404)
  })

  it('pages the list newest first with cursors', async () => {
    for (let i = 0; i < 3; i++) {
      h.clock.advance(1000)
      expect((await h.request('POST', '/webhook-subscriptions', { body: { url: `https://hooks.example.test/${i}` } })).status).to.equal(201)
    }
    const p1 = await h.request<Page<Subscription>>('GET', '/webhook-subscriptions?limit=2')
    expect(p1.body.items.map((w) => w.url)).to.deep.equal(['https://hooks.example.test/2', 'https://hooks.example.test/1'])
    expect(p1.body.previous_cursor).to.equal(null)
    const p2 = await h.request<Page<Subscription>>(
      'GET',
      `/webhook-subscriptions?limit=2&cursor=${encodeURIComponent(p1.body.next_cursor!)}`,
    )
    // seeded subscriptions share a creation time: the id breaks the tie (descending)
    expect(p2.body.items.map((w) => w.url)).to.deep.equal(['https://hooks.example.test/0', 'https://hooks.example.test/instance'])
    const p3 = await h.request<Page<Subscription>>(
      'GET',
      `/webhook-subscriptions?limit=2&cursor=${encodeURIComponent(p2.body.next_cursor!)}`,
    )
    expect(p3.body.items.map((w) => w.url)).to.deep.equal(['https://hooks.example.test/default'])
    expect(p3.body.next_cursor).to.equal(null)
    const back = await h.request('GET', `/webhook-subscriptions?limit=2&cursor=${encodeURIComponent(p3.body.previous_cursor!)}`)
    expect(back.body).to.deep.equal(p2.body)
  })
})
