import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { Seek } from '../pagination/page'
import { WebhookScope, WebhookSubscriptionRepository } from '../webhooks/webhooks.ports'
import { webhookSortKey, WebhookSubscriptionRecord } from '../webhooks/webhook-subscription'
import { aWebhookRecord, isoAt, MERCHANT_A, MERCHANT_B } from './fixtures'
import { Harness, right, sortedBy, teardownHarness } from './harness'
import { keysetBehaviour } from './keyset'

const all: Seek = { direction: 'forward', from: O.none, limit: 100 }
const own: WebhookScope = { merchantAccountId: MERCHANT_A, includeInstanceWide: false }
const ownAndInstance: WebhookScope = { merchantAccountId: MERCHANT_A, includeInstanceWide: true }
const theirs: WebhookScope = { merchantAccountId: MERCHANT_B, includeInstanceWide: true }

export const webhookSubscriptionRepositoryContract = (name: string, setup: () => Promise<Harness<WebhookSubscriptionRepository>>) =>
  describe(`WebhookSubscriptionRepository: ${name}`, () => {
    let h: Harness<WebhookSubscriptionRepository>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    describe('one account', () => {
      keysetBehaviour({
        order: 'descending',
        ties: true,
        make: (createdAt, id) => aWebhookRecord({ id, created_at: createdAt }),
        keyOf: webhookSortKey,
        sortValue: (i) => isoAt(i * 60_000),
        store: async (subs) => {
          for (const s of subs) await right(h.port.create(aWebhookRecord({ merchant_account_id: MERCHANT_B, created_at: s.created_at })))
          for (const s of subs) await right(h.port.create(s))
        },
        read: (seek) => right(h.port.list(own, seek)),
      })
    })

    describe('own account and instance-wide', () => {
      keysetBehaviour({
        order: 'descending',
        ties: true,
        // Every other item is instance-wide: both kinds interleave in one order.
        make: (createdAt, id) =>
          aWebhookRecord({ id, created_at: createdAt, merchant_account_id: Number(id.slice(-1)) % 2 ? null : MERCHANT_A }),
        keyOf: webhookSortKey,
        sortValue: (i) => isoAt(i * 60_000),
        store: async (subs) => {
          for (const s of subs) await right(h.port.create(aWebhookRecord({ merchant_account_id: MERCHANT_B, created_at: s.created_at })))
          for (const s of subs) await right(h.port.create(s))
        },
        read: (seek) => right(h.port.list(ownAndInstance, seek)),
      })
    })

    it('finds a created subscription by id', async () => {
      const sub = aWebhookRecord()
      await right(h.port.create(sub))
      expect(await right(h.port.findById(own, sub.id))).to.deep.equal(O.some(sub))
    })

    it('stores a subscription without authentication', async () => {
      const sub = aWebhookRecord({ authentication: null, active: false })
      await right(h.port.create(sub))
      expect(await right(h.port.findById(own, sub.id))).to.deep.equal(O.some(sub))
    })

    it('finds nothing for an unknown id', async () => {
      await right(h.port.create(aWebhookRecord()))
      expect(await right(h.port.findById(ownAndInstance, '7a3f0c52-9d4e-4b1a-8c6d-ffffffffffff'))).to.deep.equal(O.none)
    })

    it("never finds, lists or deletes another account's subscription", async () => {
      const sub = aWebhookRecord({ merchant_account_id: MERCHANT_B })
      await right(h.port.create(sub))
      expect(await right(h.port.findById(ownAndInstance, sub.id))).to.deep.equal(O.none)
      expect(await right(h.port.list(ownAndInstance, all))).to.deep.equal([])
      expect(await right(h.port.delete(ownAndInstance, sub.id))).to.equal(false)
      expect(await right(h.port.findById(theirs, sub.id))).to.deep.equal(O.some(sub))
    })

    it('shows instance-wide subscriptions only to a scope that includes them', async () => {
      const instanceWide = aWebhookRecord({ merchant_account_id: null, created_at: isoAt(2000) })
      const ours = aWebhookRecord({ created_at: isoAt(1000) })
      const other = aWebhookRecord({ merchant_account_id: MERCHANT_B, created_at: isoAt(3000) })
      for (const s of [instanceWide, ours, other]) await right(h.port.create(s))

      expect(await right(h.port.findById(own, instanceWide.id))).to.deep.equal(O.none)
      expect(await right(h.port.findById(ownAndInstance, instanceWide.id))).to.deep.equal(O.some(instanceWide))
      expect(await right(h.port.list(own, all))).to.deep.equal([ours])
      expect(await right(h.port.list(ownAndInstance, all))).to.deep.equal([instanceWide, ours])
      expect(await right(h.port.list(theirs, all))).to.deep.equal([other, instanceWide])
    })

    it('deletes an instance-wide subscription only through a scope that includes it', async () => {
      const instanceWide = aWebhookRecord({ merchant_account_id: null })
      await right(h.port.create(instanceWide))
      expect(await right(h.port.delete(own, instanceWide.id))).to.equal(false)
      expect(await right(h.port.findById(ownAndInstance, instanceWide.id))).to.deep.equal(O.some(instanceWide))
      expect(await right(h.port.delete(ownAndInstance, instanceWide.id))).to.equal(true)
      expect(await right(h.port.findById(ownAndInstance, instanceWide.id))).to.deep.equal(O.none)
    })

    it('deletes for good: gone from reads, and a second delete reports false', async () => {
      const sub = aWebhookRecord({ created_at: isoAt(1000) })
      const kept = aWebhookRecord({ created_at: isoAt(2000) })
      await right(h.port.create(sub))
      await right(h.port.create(kept))
      expect(await right(h.port.delete(own, sub.id))).to.equal(true)
      expect(await right(h.port.findById(own, sub.id))).to.deep.equal(O.none)
      expect(await right(h.port.list(own, all))).to.deep.equal([kept])
      expect(await right(h.port.delete(own, sub.id))).to.equal(false)
    })

    it('reports false when deleting an unknown id', async () => {
      await right(h.port.create(aWebhookRecord()))
      expect(await right(h.port.delete(ownAndInstance, '7a3f0c52-9d4e-4b1a-8c6d-ffffffffffff'))).to.equal(false)
      expect(await right(h.port.list(own, all))).to.have.length(1)
    })

    it('ensure creates a missing subscription and is idempotent', async () => {
      const sub = aWebhookRecord({ merchant_account_id: null })
      await right(h.port.ensure(sub))
      await right(h.port.ensure(sub))
      expect(await right(h.port.list(ownAndInstance, all))).to.deep.equal([sub])
    })

    it('ensure leaves an existing subscription with the same id as it is', async () => {
      const sub = aWebhookRecord()
      await right(h.port.create(sub))
      await right(h.port.ensure({ ...sub, url: 'https://elsewhere.example/hook', active: false }))
      expect(await right(h.port.findById(own, sub.id))).to.deep.equal(O.some(sub))
      expect(await right(h.port.list(own, all))).to.deep.equal([sub])
    })

    it('ensure after a delete does not bring the subscription back: deletion is for good', async () => {
      const sub = aWebhookRecord()
      await right(h.port.ensure(sub))
      expect(await right(h.port.delete(own, sub.id))).to.equal(true)
      await right(h.port.ensure(sub))
      expect(await right(h.port.findById(own, sub.id))).to.deep.equal(O.none)
      expect(await right(h.port.list(own, all))).to.deep.equal([])
    })

    it("a refused delete (another account's subscription) leaves ensure able to create nothing new", async () => {
      const sub = aWebhookRecord({ merchant_account_id: MERCHANT_B })
      expect(await right(h.port.delete(own, sub.id))).to.equal(false)
      await right(h.port.ensure(sub))
      expect(await right(h.port.findById({ merchantAccountId: MERCHANT_B, includeInstanceWide: false }, sub.id))).to.deep.equal(O.some(sub))
    })

    it('stores a rotation: the previous secret and when it stops signing', async () => {
      const sub = aWebhookRecord({ previous_sealed_secret: 'v1.aXY.dGFn.b2xk', previous_secret_expires_at: isoAt(60_000) })
      await right(h.port.create(sub))
      expect(await right(h.port.findById(own, sub.id))).to.deep.equal(O.some(sub))
    })

    it('update replaces the subscription in scope, and reports whether it did', async () => {
      const sub = aWebhookRecord()
      await right(h.port.create(sub))
      const changed = {
        ...sub,
        url: 'https://elsewhere.example/hook',
        active: false,
        authentication: null,
        sealed_secret: 'v1.bmV3.dGFn.c2VjcmV0',
      }
      expect(await right(h.port.update(own, changed))).to.equal(true)
      expect(await right(h.port.findById(own, sub.id))).to.deep.equal(O.some(changed))
      expect(await right(h.port.list(own, all))).to.deep.equal([changed])
    })

    it("update changes nothing out of scope, unknown or deleted: another account's, instance-wide for a bound key", async () => {
      const theirSub = aWebhookRecord({ merchant_account_id: MERCHANT_B })
      const instanceWide = aWebhookRecord({ merchant_account_id: null })
      const gone = aWebhookRecord()
      for (const s of [theirSub, instanceWide, gone]) await right(h.port.create(s))
      await right(h.port.delete(own, gone.id))
      expect(await right(h.port.update(own, { ...theirSub, active: false }))).to.equal(false)
      expect(await right(h.port.update(own, { ...instanceWide, active: false }))).to.equal(false)
      expect(await right(h.port.update(own, { ...gone, active: false }))).to.equal(false)
      expect(await right(h.port.update(own, aWebhookRecord()))).to.equal(false)
      expect(await right(h.port.findById(theirs, theirSub.id))).to.deep.equal(O.some(theirSub))
      expect(await right(h.port.findById(ownAndInstance, instanceWide.id))).to.deep.equal(O.some(instanceWide))
      expect(await right(h.port.findById(own, gone.id))).to.deep.equal(O.none)
      expect(await right(h.port.update(ownAndInstance, { ...instanceWide, active: false }))).to.equal(true)
    })

    it("findForDelivery finds any account's subscription and instance-wide ones, never a deleted one", async () => {
      const theirSub = aWebhookRecord({ merchant_account_id: MERCHANT_B })
      const instanceWide = aWebhookRecord({ merchant_account_id: null })
      const gone = aWebhookRecord()
      for (const s of [theirSub, instanceWide, gone]) await right(h.port.create(s))
      await right(h.port.delete(own, gone.id))
      expect(await right(h.port.findForDelivery(theirSub.id))).to.deep.equal(O.some(theirSub))
      expect(await right(h.port.findForDelivery(instanceWide.id))).to.deep.equal(O.some(instanceWide))
      expect(await right(h.port.findForDelivery(gone.id))).to.deep.equal(O.none)
    })

    it("recipients are the account's active subscriptions and the active instance-wide ones", async () => {
      const ours = aWebhookRecord()
      const oursInactive = aWebhookRecord({ active: false })
      const instanceWide = aWebhookRecord({ merchant_account_id: null })
      const instanceInactive = aWebhookRecord({ merchant_account_id: null, active: false })
      const theirSub = aWebhookRecord({ merchant_account_id: MERCHANT_B })
      const gone = aWebhookRecord()
      for (const s of [ours, oursInactive, instanceWide, instanceInactive, theirSub, gone]) await right(h.port.create(s))
      await right(h.port.delete(own, gone.id))
      const byId = sortedBy((s: WebhookSubscriptionRecord) => s.id)
      expect(byId(await right(h.port.recipients(MERCHANT_A)))).to.deep.equal(byId([ours, instanceWide]))
      expect(byId(await right(h.port.recipients(MERCHANT_B)))).to.deep.equal(byId([theirSub, instanceWide]))
      expect(await right(h.port.recipients('nobody'))).to.deep.equal([instanceWide])
    })
  })
