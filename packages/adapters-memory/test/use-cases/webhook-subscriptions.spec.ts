import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import {
  makeCreateWebhookSubscription,
  makeDeleteWebhookSubscription,
  makeGetWebhookSubscription,
  makeListWebhookSubscriptions,
  notFound,
  WebhookSubscription,
  WebhookSubscriptionCreate,
  makeRecordAudited,
} from '@orka/domain'
import { aWebhookRecord, left, ManualClock, MERCHANT_A, MERCHANT_B, right, SequentialIds, uuidFor } from '@orka/domain/testing'
import { MemoryWebhookDeliveryStore, MemoryWebhookSubscriptionRepository, MemoryAuditLog } from '../../src'
import { ours, oursAndInstance, secretFrom, START, testBox, testMac, theirs, ACTOR } from './support'

const id = uuidFor

const basic: WebhookSubscriptionCreate = {
  url: 'https://hooks.acme-retail.example/orka/events',
  authentication: { kind: 'basic', username: 'orka-notifier', password: 's3cr3t-Passw0rd' },
}
const oauth: WebhookSubscriptionCreate = {
  url: 'https://hooks.acme-retail.example/orka/oauth',
  active: false,
  authentication: {
    kind: 'oauth_client_credentials',
    client_id: 'orka',
    client_secret: 'client-s3cr3t',
    token_url: 'https://auth.acme-retail.example/oauth/token',
    scope: 'webhooks',
  },
}

describe('webhook subscription use cases', () => {
  const setup = () => {
    const clock = new ManualClock(START)
    const webhooks = new MemoryWebhookSubscriptionRepository()
    const box = testBox()
    const deliveries = new MemoryWebhookDeliveryStore()
    const policy = { requireHttps: false, allowPrivateAddresses: false }
    // Audit entries draw their ids elsewhere: the ids and secrets these tests expect come from `ids` alone.
    const audited = makeRecordAudited({ audit: new MemoryAuditLog(), ids: new SequentialIds(), clock })
    const deps = { webhooks, deliveries, box, clock, ids: new SequentialIds(), mac: testMac(), audited, policy }
    return {
      clock,
      webhooks,
      box,
      create: (input: WebhookSubscriptionCreate, merchantAccountId = MERCHANT_A) =>
        right(makeCreateWebhookSubscription(deps)({ merchantAccountId, actor: ACTOR, input })),
      get: makeGetWebhookSubscription(deps),
      list: makeListWebhookSubscriptions(deps),
      del: makeDeleteWebhookSubscription(deps),
    }
  }

  const basicView: WebhookSubscription = {
    type: 'webhook-subscription',
    id: id(1),
    merchant_account_id: MERCHANT_A,
    active: true,
    url: 'https://hooks.acme-retail.example/orka/events',
    authentication: { type: 'webhook-authentication', kind: 'basic', username: 'orka-notifier', password: '********' },
    secret: secretFrom(1),
    rotating: false,
    creator: null,
  }

  it('creates a subscription, masking the endpoint secrets in the answer', async () => {
    const s = setup()
    const created = await s.create(basic)
    expect(created).to.deep.equal(basicView)
    expect(WebhookSubscription.is(created)).to.equal(true)
  })

  it('stores the endpoint secrets sealed', async () => {
    const s = setup()
    await s.create(oauth)
    const stored = await right(s.webhooks.findById(ours, id(1)))
    if (O.isNone(stored)) throw new Error('not stored')
    const auth = stored.value.authentication!
    expect(JSON.stringify(stored.value)).not.to.include('client-s3cr3t').and.not.to.include(secretFrom(1))
    expect({ ...auth, client_secret: s.box.open(auth.client_secret!) }).to.deep.equal(oauth.authentication)
    expect(s.box.open(stored.value.sealed_secret)).to.equal(secretFrom(1))
    expect(stored.value.created_at).to.equal(START.toISOString())
  })

  it('gets a subscription, masked', async () => {
    const s = setup()
    await s.create(oauth)
    expect(await right(s.get({ scope: ours, id: id(1) }))).to.deep.equal({
      type: 'webhook-subscription',
      id: id(1),
      merchant_account_id: MERCHANT_A,
      active: false,
      url: 'https://hooks.acme-retail.example/orka/oauth',
      authentication: {
        type: 'webhook-authentication',
        kind: 'oauth_client_credentials',
        client_id: 'orka',
        client_secret: '********',
        token_url: 'https://auth.acme-retail.example/oauth/token',
        scope: 'webhooks',
      },
      secret: secretFrom(1),
      rotating: false,
      creator: null,
    })
  })

  it("answers NotFound for an unknown id and for another account's subscription", async () => {
    const s = setup()
    await s.create(basic, MERCHANT_B)
    expect(await left(s.get({ scope: ours, id: id(1) }))).to.deep.equal(notFound('WebhookSubscription', id(1)))
    expect(await left(s.get({ scope: ours, id: id(99) }))).to.deep.equal(notFound('WebhookSubscription', id(99)))
  })

  it('lists newest first, masked, with instance-wide ones only for a scope that includes them', async () => {
    const s = setup()
    await s.create(basic)
    s.clock.advance(1000)
    await s.create(oauth, MERCHANT_B)
    s.clock.advance(1000)
    const instanceWide = aWebhookRecord({
      id: id(50),
      merchant_account_id: null,
      authentication: null,
      sealed_secret: s.box.seal('instance'),
      created_at: s.clock.now().toISOString(),
    })
    await right(s.webhooks.ensure(instanceWide))
    s.clock.advance(1000)
    await s.create({ url: 'https://hooks.acme-retail.example/orka/other' })

    const newest = {
      ...basicView,
      id: id(7),
      url: 'https://hooks.acme-retail.example/orka/other',
      authentication: null,
      secret: secretFrom(7),
    }
    const instanceView = {
      ...basicView,
      id: id(50),
      merchant_account_id: null,
      url: instanceWide.url,
      authentication: null,
      secret: 'instance',
    }
    expect(await right(s.list({ scope: ours }))).to.deep.equal({
      items: [newest, basicView],
      limit: 20,
      next_cursor: null,
      previous_cursor: null,
    })
    expect((await right(s.list({ scope: oursAndInstance }))).items).to.deep.equal([newest, instanceView, basicView])
  })

  it('pages through subscriptions and rejects a cursor from another scope', async () => {
    const s = setup()
    for (let i = 0; i < 5; i++) {
      await s.create(basic)
      s.clock.advance(1000)
    }
    const p1 = await right(s.list({ scope: ours, limit: 2 }))
    const p2 = await right(s.list({ scope: ours, limit: 2, cursor: p1.next_cursor! }))
    expect([...p1.items, ...p2.items].map((w) => w.id)).to.deep.equal([13, 10, 7, 4].map(id))
    expect(await right(s.list({ scope: ours, limit: 2, cursor: p2.previous_cursor! }))).to.deep.equal(p1)
    expect((await left(s.list({ scope: oursAndInstance, limit: 2, cursor: p1.next_cursor! })))._tag).to.equal('InvalidRequest')
  })

  it('deletes for good: a second delete, and any read, answer NotFound', async () => {
    const s = setup()
    await s.create(basic)
    expect(await s.del({ scope: ours, actor: ACTOR, id: id(1) })()).to.deep.equal(E.right(undefined))
    expect(await left(s.del({ scope: ours, actor: ACTOR, id: id(1) }))).to.deep.equal(notFound('WebhookSubscription', id(1)))
    expect(await left(s.get({ scope: ours, id: id(1) }))).to.deep.equal(notFound('WebhookSubscription', id(1)))
    expect((await right(s.list({ scope: ours }))).items).to.deep.equal([])
  })

  it("does not delete another account's subscription", async () => {
    const s = setup()
    await s.create(basic)
    expect(await left(s.del({ scope: theirs, actor: ACTOR, id: id(1) }))).to.deep.equal(notFound('WebhookSubscription', id(1)))
    expect(await right(s.get({ scope: ours, id: id(1) }))).to.deep.equal(basicView)
  })

  it('deletes an instance-wide subscription only through a scope that includes it', async () => {
    const s = setup()
    await right(s.webhooks.ensure(aWebhookRecord({ id: id(50), merchant_account_id: null })))
    expect(await left(s.del({ scope: ours, actor: ACTOR, id: id(50) }))).to.deep.equal(notFound('WebhookSubscription', id(50)))
    expect(await s.del({ scope: oursAndInstance, actor: ACTOR, id: id(50) })()).to.deep.equal(E.right(undefined))
  })
})
