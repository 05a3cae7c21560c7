import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import {
  AuditFilter,
  AuditRecord,
  Buyer,
  BuyerRepository,
  duplicate,
  makeCreateBuyer,
  makeCreateWebhookSubscription,
  makeDeleteBuyer,
  makeListAuditLogs,
  makeRotateWebhookSecret,
  foldWrittenVersions,
  makeSettleAudit,
  makeUpdateBuyer,
  notFound,
  unavailable,
} from '@orka/domain'
import {
  left,
  ManualClock,
  MERCHANT_A,
  OPERATION_DECLINED,
  right,
  ScriptedCardConnector,
  SequentialIds,
  SUCCEEDED,
  uuidFor,
} from '@orka/domain/testing'
import {
  MemoryApiKeyPairRepository,
  MemoryBuyerRepository,
  MemoryCheckoutSessionStore,
  MemoryGiftCardVault,
  MemoryMerchantAccountRepository,
  MemoryPaymentMethodVault,
  MemoryPaymentServiceRepository,
  MemoryShippingDetailsRepository,
} from '../../src'
import { ACTOR, eventWorld, ours, START, testBox, testMac, transactionFolds } from './support'
import { transactionWorld } from './transaction-world'

const GRACE_MS = 60_000
const FAR_FUTURE = new Date('9999-12-31T23:59:59.999Z')
const UNKNOWN = uuidFor(0xbff)

/** Buyers whose create is stored but answers `Unavailable` (a timeout after the write), and whose update fails without writing. */
class FlakyBuyers extends MemoryBuyerRepository {
  override create(buyer: Buyer) {
    return pipe(
      super.create(buyer),
      TE.flatMap(() => TE.left(unavailable(new Error('timed out after storing')))),
    )
  }
  override update() {
    return TE.left(unavailable(new Error('timed out before storing')))
  }
}

/** Buyers, their events and the audit log in memory, on a manual clock; with the relay that settles what is left pending. */
const world = (buyers: BuyerRepository = new MemoryBuyerRepository()) => {
  const clock = new ManualClock(START)
  const ids = new SequentialIds()
  const events = eventWorld(clock, ids)
  const w = { clock, ids, buyers, mac: testMac(), ...events, ...transactionFolds(events) }
  const settle = makeSettleAudit({
    ...w,
    shippingDetails: new MemoryShippingDetailsRepository(),
    merchantAccounts: new MemoryMerchantAccountRepository(),
    giftCardVault: new MemoryGiftCardVault(),
    paymentMethods: new MemoryPaymentMethodVault(),
    checkoutSessions: new MemoryCheckoutSessionStore(),
    keys: new MemoryApiKeyPairRepository(),
    cardServices: new MemoryPaymentServiceRepository(),
    config: { graceMs: GRACE_MS, batch: 10 },
  })
  return {
    ...w,
    create: makeCreateBuyer(w),
    update: makeUpdateBuyer(w),
    remove: makeDeleteBuyer({ ...w, cascade: [] }),
    settle: () => right(settle()),
    listAuditLogs: makeListAuditLogs({ ...w, folds: w.folds }),
  }
}
type World = ReturnType<typeof world>

type Log = Pick<World, 'audit'> & Partial<Pick<World, 'folds'>>
/** The account's committed entries, newest first, as stored once what the use cases queued is folded. */
const listed = async (w: Log, filter: AuditFilter = {}) => {
  if (w.folds !== undefined) await right(w.folds.flush())
  return right(w.audit.list(MERCHANT_A, filter, { direction: 'forward', from: O.none, limit: 100 }))
}
/** Every entry still pending in the log, however young, once what the use cases queued is folded. */
const pending = async (w: Log) => {
  if (w.folds !== undefined) await right(w.folds.flush())
  return right(w.audit.pendingBefore(FAR_FUTURE, 100))
}

/** A pending entry as a process that stopped after (or before) its write leaves it. */
const leftBehind = (w: World, buyerId: string): AuditRecord => ({
  id: w.ids.uuid(),
  merchant_account_id: MERCHANT_A,
  resource: { type: 'buyer', id: buyerId, name: 'Ada' },
  action: 'created',
  user: { id: ACTOR.id, name: ACTOR.name },
  timestamp: w.clock.now().toISOString(),
  committed: false,
  check: { probe: 'buyer-present', id: buyerId, witness: null },
  changes: null,
})

describe('the audit log, written by the use cases', () => {
  describe('a change that is stored', () => {
    it('writes one committed entry per create, update and delete: the resource, the action, the key that acted, the time', async () => {
      const w = world()
      const ada = await right(
        w.create({ merchantAccountId: MERCHANT_A, actor: ACTOR, input: { display_name: 'Ada', external_identifier: 'crm-ada' } }),
      )
      w.clock.advance(1000)
      await right(w.update({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: ada.id, input: { display_name: 'Ada King' } }))
      w.clock.advance(1000)
      await right(w.remove({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: ada.id }))

      const at = (ms: number) => new Date(START.getTime() + ms).toISOString()
      // Entry ids aside: each is fresh, checked apart below.
      const entry = (name: string, action: string, timestamp: string): AuditRecord => ({
        id: '',
        merchant_account_id: MERCHANT_A,
        resource: { type: 'buyer', id: ada.id, name },
        action,
        user: { id: ACTOR.id, name: ACTOR.name },
        timestamp,
        committed: true,
        check: null,
        changes: null,
      })
      const entries = await listed(w)
      expect(entries.map((e) => ({ ...e, id: '' }))).to.deep.equal([
        entry('Ada King', 'deleted', at(2000)),
        entry('Ada King', 'updated', at(1000)),
        entry('Ada', 'created', at(0)),
      ])
      expect(new Set(entries.map((e) => e.id)).size).to.equal(3)
      expect(await pending(w)).to.deep.equal([])

      // As the API lists them.
      const page = await right(w.listAuditLogs({ merchantAccountId: MERCHANT_A, filter: { resource_type: 'buyer' } }))
      expect(page.items.map((e) => [e.action, e.resource, e.user, e.timestamp])).to.deep.equal([
        [
          'deleted',
          { type: 'buyer', id: ada.id, name: 'Ada King' },
          { type: 'user', ...ACTOR, email_address: null, is_staff: false, status: 'active' },
          at(2000),
        ],
        [
          'updated',
          { type: 'buyer', id: ada.id, name: 'Ada King' },
          { type: 'user', ...ACTOR, email_address: null, is_staff: false, status: 'active' },
          at(1000),
        ],
        [
          'created',
          { type: 'buyer', id: ada.id, name: 'Ada' },
          { type: 'user', ...ACTOR, email_address: null, is_staff: false, status: 'active' },
          at(0),
        ],
      ])
    })
  })

  describe('a change that is refused', () => {
    it('leaves no entry, pending or committed: unknown buyer, duplicate external identifier on create and on update', async () => {
      const w = world()
      const ada = await right(w.create({ merchantAccountId: MERCHANT_A, actor: ACTOR, input: { external_identifier: 'crm-ada' } }))
      const grace = await right(w.create({ merchantAccountId: MERCHANT_A, actor: ACTOR, input: { external_identifier: 'crm-grace' } }))
      const before = await listed(w)
      expect(before).to.have.length(2)

      expect(await left(w.update({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: UNKNOWN, input: {} }))).to.deep.equal(
        notFound('Buyer', UNKNOWN),
      )
      expect(await left(w.remove({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: UNKNOWN }))).to.deep.equal(notFound('Buyer', UNKNOWN))
      expect(
        await left(w.create({ merchantAccountId: MERCHANT_A, actor: ACTOR, input: { external_identifier: 'crm-ada' } })),
      ).to.deep.equal(duplicate('Buyer', ada.id))
      expect(
        await left(w.update({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: grace.id, input: { external_identifier: 'crm-ada' } })),
      ).to.deep.equal(duplicate('Buyer', ada.id))

      expect(await listed(w)).to.deep.equal(before)
      expect(await pending(w)).to.deep.equal([])
    })
  })

  describe('a write that ends Unavailable', () => {
    it('leaves its entry pending; the relay, past the grace period, commits the one whose change was stored and drops the other', async () => {
      const w = world(new FlakyBuyers())
      expect((await left(w.create({ merchantAccountId: MERCHANT_A, actor: ACTOR, input: { display_name: 'Ada' } })))._tag).to.equal(
        'Unavailable',
      )
      const [stored] = await right(w.buyers.list(MERCHANT_A, {}, { direction: 'forward', from: O.none, limit: 10 }))
      if (stored === undefined) throw new Error('the create was not stored')
      w.clock.advance(1000)
      expect(
        (await left(w.update({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: stored.id, input: { display_name: 'Ada King' } })))._tag,
      ).to.equal('Unavailable')

      expect((await pending(w)).map((r) => r.action)).to.deep.equal(['created', 'updated'])
      expect(await listed(w)).to.deep.equal([])

      // Within the grace period the writes may still be under way: the relay leaves them alone.
      w.clock.advance(GRACE_MS - 1000)
      expect(await w.settle()).to.deep.equal({ committed: 0, dropped: 0 })

      w.clock.advance(GRACE_MS)
      expect(await w.settle()).to.deep.equal({ committed: 1, dropped: 1 })
      const entries = await listed(w)
      expect(entries.map((e) => [e.action, e.resource, e.timestamp, e.committed])).to.deep.equal([
        ['created', { type: 'buyer', id: stored.id, name: 'Ada' }, START.toISOString(), true],
      ])
      expect(await pending(w)).to.deep.equal([])
    })
  })

  describe('an entry left pending by a process that stopped', () => {
    it('is committed when its change is found, dropped when not, and left alone while younger than the grace period', async () => {
      const w = world()
      const ada = await right(w.create({ merchantAccountId: MERCHANT_A, actor: ACTOR, input: { display_name: 'Ada' } }))
      const found = leftBehind(w, ada.id)
      const lost = leftBehind(w, UNKNOWN)
      await right(w.audit.add(found))
      await right(w.audit.add(lost))
      w.clock.advance(GRACE_MS)
      const young = leftBehind(w, ada.id)
      await right(w.audit.add(young))

      w.clock.advance(1)
      expect(await w.settle()).to.deep.equal({ committed: 1, dropped: 1 })
      expect((await listed(w)).map((e) => e.id))
        .to.include(found.id)
        .and.not.include(lost.id)
      expect(await pending(w)).to.deep.equal([young])

      w.clock.advance(GRACE_MS)
      expect(await w.settle()).to.deep.equal({ committed: 1, dropped: 0 })
      expect(await pending(w)).to.deep.equal([])
    })
  })

  describe('other resources', () => {
    it('a capture and a void each write one entry, captured and voided, on the transaction', async () => {
      const w = await transactionWorld()
      const { value: captured } = await right(w.create())
      await right(w.capture(captured.id))
      const { value: voided } = await right(w.create())
      await right(w.void(voided.id))

      const resource = (id: string) => ({ type: 'transaction', id, name: '1299 USD' })
      expect((await listed(w, { action: 'captured' })).map((e) => [e.resource, e.user, e.committed])).to.deep.equal([
        [resource(captured.id), { id: ACTOR.id, name: ACTOR.name }, true],
      ])
      expect((await listed(w, { action: 'voided' })).map((e) => [e.resource, e.user, e.committed])).to.deep.equal([
        [resource(voided.id), { id: ACTOR.id, name: ACTOR.name }, true],
      ])
      expect(await pending(w)).to.deep.equal([])
    })

    it('a declined capture or void writes no entry (no money moved); its attempt stays in the transaction', async () => {
      const connector = new ScriptedCardConnector({ capture: () => OPERATION_DECLINED, void: () => OPERATION_DECLINED })
      const w = await transactionWorld([connector])
      const { value: t } = await right(w.create())
      const captured = await right(w.capture(t.id))
      const voided = await right(w.void(t.id))
      expect([captured.value.capture?.status, voided.value.transaction.status]).to.deep.equal(['declined', 'authorization_succeeded'])
      expect((await listed(w)).map((e) => [e.resource.id, e.action])).to.deep.equal([[t.id, 'created']])
      expect(await pending(w)).to.deep.equal([])
    })

    it('a capture whose answer was lost is folded pending, and waits through the relay until its outcome is known; then it is committed', async () => {
      let lose = true
      const connector = new ScriptedCardConnector({ capture: () => (lose ? { lost: SUCCEEDED } : SUCCEEDED) })
      const w = await transactionWorld([connector])
      const relay = makeSettleAudit({
        ...w,
        buyers: new MemoryBuyerRepository(),
        shippingDetails: new MemoryShippingDetailsRepository(),
        merchantAccounts: new MemoryMerchantAccountRepository(),
        giftCardVault: new MemoryGiftCardVault(),
        checkoutSessions: new MemoryCheckoutSessionStore(),
        webhooks: w.webhooks,
        keys: new MemoryApiKeyPairRepository(),
        cardServices: new MemoryPaymentServiceRepository(),
        config: { graceMs: GRACE_MS, batch: 10 },
      })
      const { value: t } = await right(w.create())
      expect(await left(w.capture(t.id, {}, 'capture-1'))).to.deep.equal({ _tag: 'ServiceTimeout', service: 'card' })
      const [waiting] = await pending(w)
      expect([waiting?.action, waiting?.check?.probe]).to.deep.equal(['captured', 'capture-outcome'])
      expect(await right(w.transactions.unfolded(FAR_FUTURE, 10)), 'folded by the request').to.deep.equal([])
      w.clock.advance(GRACE_MS + 1)
      expect(await right(relay()), 'the capture has no outcome yet').to.deep.equal({ committed: 0, dropped: 0 })
      lose = false
      expect((await right(w.capture(t.id, {}, 'capture-1'))).value.capture?.status).to.equal('succeeded')
      expect(await right(relay())).to.deep.equal({ committed: 1, dropped: 0 })
      expect((await listed(w)).map((e) => [e.resource.id, e.action])).to.deep.equal([
        [t.id, 'captured'],
        [t.id, 'created'],
      ])
    })

    it("a payment's entry is written with its version: lost with the process's queue, the relay folds it from there, once", async () => {
      const w = await transactionWorld()
      const relay = () => right(foldWrittenVersions(w)(new Date(w.clock.now().getTime() - GRACE_MS), 10))
      const { value: t } = await right(w.create())
      // The queue not flushed: what a process that stopped before its batch leaves.
      const stored = () => right(w.audit.list(MERCHANT_A, {}, { direction: 'forward', from: O.none, limit: 100 }))
      expect(await stored()).to.deep.equal([])
      expect(await relay(), 'younger than the grace period').to.equal(0)
      expect(await stored()).to.deep.equal([])
      w.clock.advance(GRACE_MS + 1)
      expect(await relay(), 'its two versions: the entry in the first, the event in the second').to.equal(2)
      const entries = (await stored()).map((e) => [e.resource.id, e.action, e.committed, e.user.id])
      expect(entries).to.deep.equal([[t.id, 'created', true, ACTOR.id]])
      expect(w.fannedOut.map((e) => [e.event_name, e.target_id])).to.deep.equal([['transaction.authorized', t.id]])
      expect(await right(w.transactions.unfolded(FAR_FUTURE, 10))).to.deep.equal([])
      // The stopped process's batch, had it run after all, and the relay again: still one entry.
      await right(w.folds.flush())
      expect(await relay()).to.equal(0)
      expect((await listed(w)).map((e) => [e.resource.id, e.action, e.committed, e.user.id])).to.deep.equal(entries)
      expect(await pending(w)).to.deep.equal([])
    })

    it('a secret rotation writes an updated entry on the webhook subscription', async () => {
      const clock = new ManualClock(START)
      const ids = new SequentialIds()
      const { webhooks, deliveries, audit, audited } = eventWorld(clock, ids)
      const deps = {
        webhooks,
        deliveries,
        box: testBox(),
        mac: testMac(),
        clock,
        ids,
        audited,
        policy: { requireHttps: false, allowPrivateAddresses: false },
      }
      const sub = await right(
        makeCreateWebhookSubscription(deps)({
          merchantAccountId: MERCHANT_A,
          actor: ACTOR,
          input: { url: 'https://hooks.acme-retail.example/orka' },
        }),
      )
      clock.advance(1000)
      await right(makeRotateWebhookSecret(deps)({ scope: ours, actor: ACTOR, id: sub.id, input: {} }))

      const entries = await listed({ audit }, { resource_type: 'webhook-subscription' })
      expect(entries.map((e) => [e.action, e.resource, e.user, e.timestamp])).to.deep.equal([
        [
          'updated',
          { type: 'webhook-subscription', id: sub.id, name: 'Webhook subscription' },
          { id: ACTOR.id, name: ACTOR.name },
          new Date(START.getTime() + 1000).toISOString(),
        ],
        [
          'created',
          { type: 'webhook-subscription', id: sub.id, name: 'Webhook subscription' },
          { id: ACTOR.id, name: ACTOR.name },
          START.toISOString(),
        ],
      ])
    })
  })
})
