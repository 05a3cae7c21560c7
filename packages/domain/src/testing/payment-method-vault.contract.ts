import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { Seek } from '../pagination/page'
import { PaymentMethod, paymentMethodSortKey } from '../payment-methods/payment-method.codecs'
import { PaymentMethodVault, VaultedPaymentMethod } from '../payment-methods/payment-method.ports'
import { duplicate } from '../shared/errors'
import { aBuyer, aVaultedPaymentMethod, isoAt, MERCHANT_A, MERCHANT_B, VaultedPaymentMethodOverrides } from './fixtures'
import { at, Harness, left, present, right, teardownHarness } from './harness'
import { keysetBehaviour } from './keyset'

const all: Seek = { direction: 'forward', from: O.none, limit: 100 }
const UNKNOWN_ID = '7a3f0c52-9d4e-4b1a-8c6d-ffffffffffff'
const another = (o: Partial<PaymentMethod> = {}) => aVaultedPaymentMethod({ method: { merchant_account_id: MERCHANT_B, ...o } })
/** The same card (fingerprint) as `v`, as another method (fresh id). */
const sameCard = (v: VaultedPaymentMethod, o: VaultedPaymentMethodOverrides['method'] = {}) =>
  aVaultedPaymentMethod({ method: { fingerprint: v.method.fingerprint, ...o } })

/** Tries to change a value the way a careless caller would; a frozen value refusing is as good. */
const scribble = (v: VaultedPaymentMethod) => {
  try {
    v.sealed_number = 'scribbled'
    ;(v.method as { usage_count: number }).usage_count = 99
    const details = v.method.details as { bin: string | null } | null | undefined
    if (details) details.bin = '000000'
  } catch {
    // Frozen: nothing changed.
  }
}

export const paymentMethodVaultContract = (name: string, setup: () => Promise<Harness<PaymentMethodVault>>) =>
  describe(`PaymentMethodVault: ${name}`, () => {
    let h: Harness<PaymentMethodVault>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    const insertAll = async (vs: readonly VaultedPaymentMethod[]) => {
      for (const v of vs) await right(h.port.insert(v))
    }
    const found = async (v: VaultedPaymentMethod) => O.toNullable(await right(h.port.findById(v.method.merchant_account_id, v.method.id)))

    describe('one account', () => {
      keysetBehaviour<PaymentMethod>({
        order: 'descending',
        ties: true,
        make: (createdAt, id) => aVaultedPaymentMethod({ method: { id, created_at: createdAt, updated_at: createdAt } }).method,
        keyOf: paymentMethodSortKey,
        sortValue: (i) => isoAt(i * 60_000),
        store: async (methods) => {
          // Another account's methods at the same instants must not show up in the reads.
          for (const m of methods) await right(h.port.insert(another({ created_at: m.created_at })))
          for (const m of methods) await right(h.port.insert({ method: m, sealed_number: 'v1.aXY.dGFn.bnVtYmVy' }))
        },
        read: (seek) => right(h.port.list(MERCHANT_A, {}, seek)),
      })
    })

    describe("one buyer's methods", () => {
      const buyer = aBuyer()
      keysetBehaviour<PaymentMethod>({
        order: 'descending',
        ties: true,
        make: (createdAt, id) => aVaultedPaymentMethod({ method: { id, created_at: createdAt, updated_at: createdAt, buyer } }).method,
        keyOf: paymentMethodSortKey,
        sortValue: (i) => isoAt(i * 60_000),
        store: async (methods) => {
          // The account's other methods (no buyer, another buyer) at the same instants must not show up.
          for (const m of methods) {
            await right(h.port.insert(aVaultedPaymentMethod({ method: { created_at: m.created_at } })))
            await right(h.port.insert(aVaultedPaymentMethod({ method: { created_at: m.created_at, buyer: aBuyer() } })))
          }
          for (const m of methods) await right(h.port.insert({ method: m, sealed_number: 'v1.aXY.dGFn.bnVtYmVy' }))
        },
        read: (seek) => right(h.port.list(MERCHANT_A, { buyer_id: buyer.id }, seek)),
      })
    })

    it('lists the methods as stored, buyer included, and an empty account as nothing', async () => {
      const v = aVaultedPaymentMethod({ method: { buyer: aBuyer(), external_identifier: 'pm-1', created_at: isoAt(0) } })
      const older = aVaultedPaymentMethod({ method: { expiration_date: null, details: null, scheme: null, created_at: isoAt(-1000) } })
      await insertAll([v, older])
      expect(await right(h.port.list(MERCHANT_A, {}, all))).to.deep.equal([v.method, older.method])
      expect(await right(h.port.list(MERCHANT_B, {}, all))).to.deep.equal([])
      expect(await right(h.port.list(MERCHANT_A, { buyer_id: aBuyer().id }, all))).to.deep.equal([])
    })

    it('filters a list by status (any of those given), by external identifier, and by both with a buyer', async () => {
      const buyer = aBuyer()
      const method = (i: number, o: Partial<PaymentMethod>) => aVaultedPaymentMethod({ method: { created_at: isoAt(i * 1000), ...o } })
      const [processing, failed, succeeded, mine, mineFailed, theirs] = [
        method(0, { status: 'processing' }),
        method(1, { status: 'failed', external_identifier: 'pm-x' }),
        method(2, { external_identifier: 'pm-x' }),
        method(3, { buyer, external_identifier: 'pm-x' }),
        method(4, { buyer, status: 'failed', external_identifier: 'pm-x' }),
        another({ status: 'failed', external_identifier: 'pm-x', buyer }),
      ]
      await insertAll([succeeded, theirs, processing, mineFailed, failed, mine])
      const list = (filter: Parameters<PaymentMethodVault['list']>[1]) => right(h.port.list(MERCHANT_A, filter, all))
      expect(await list({ status: ['failed', 'processing'] })).to.deep.equal([mineFailed.method, failed.method, processing.method])
      expect(await list({ status: ['paused'] })).to.deep.equal([])
      expect(await list({ external_identifier: 'pm-x' })).to.deep.equal([mineFailed.method, mine.method, succeeded.method, failed.method])
      expect(await list({ external_identifier: 'pm-y' })).to.deep.equal([])
      expect(await list({ status: ['succeeded', 'failed'], external_identifier: 'pm-x', buyer_id: buyer.id })).to.deep.equal([
        mineFailed.method,
        mine.method,
      ])
      expect(await list({ status: ['failed'], external_identifier: 'pm-x' })).to.deep.equal([mineFailed.method, failed.method])
      expect(await right(h.port.list(MERCHANT_B, { status: ['failed'], buyer_id: buyer.id }, all))).to.deep.equal([theirs.method])
    })

    it("finds an inserted method by id in its account, and never in another's", async () => {
      const v = aVaultedPaymentMethod({ method: { buyer: aBuyer() } })
      await right(h.port.insert(v))
      expect(await right(h.port.findById(MERCHANT_A, v.method.id))).to.deep.equal(O.some(v))
      expect(await right(h.port.findById(MERCHANT_B, v.method.id))).to.deep.equal(O.none)
      expect(await right(h.port.findById(MERCHANT_A, UNKNOWN_ID))).to.deep.equal(O.none)
    })

    it('finds a method by fingerprint for its buyer only, and one stored for no buyer by owner null only', async () => {
      const buyer = aBuyer()
      const theirs = aVaultedPaymentMethod({ method: { buyer } })
      const nobodys = aVaultedPaymentMethod()
      await insertAll([theirs, nobodys])
      const find = (owner: string | null, v: VaultedPaymentMethod) =>
        right(h.port.findByFingerprint(MERCHANT_A, owner, v.method.fingerprint ?? ''))
      expect(await find(buyer.id, theirs)).to.deep.equal(O.some(theirs))
      expect(await find(null, theirs)).to.deep.equal(O.none)
      expect(await find(aBuyer().id, theirs)).to.deep.equal(O.none)
      expect(await find(null, nobodys)).to.deep.equal(O.some(nobodys))
      expect(await find(buyer.id, nobodys)).to.deep.equal(O.none)
      expect(await right(h.port.findByFingerprint(MERCHANT_B, buyer.id, theirs.method.fingerprint ?? ''))).to.deep.equal(O.none)
      expect(await right(h.port.findByFingerprint(MERCHANT_A, null, 'bm8tc3VjaC1maW5nZXJwcmludC4uLi4uLi4uLi4uLi4'))).to.deep.equal(O.none)
    })

    it('keeps one card for two buyers, and for a buyer and for no buyer, as separate methods', async () => {
      const [ada, bob] = [aBuyer(), aBuyer()]
      const forAda = aVaultedPaymentMethod({ method: { buyer: ada } })
      const forBob = sameCard(forAda, { buyer: bob })
      const forNobody = sameCard(forAda)
      await insertAll([forAda, forBob, forNobody])
      const fingerprint = forAda.method.fingerprint ?? ''
      expect(await right(h.port.findByFingerprint(MERCHANT_A, ada.id, fingerprint))).to.deep.equal(O.some(forAda))
      expect(await right(h.port.findByFingerprint(MERCHANT_A, bob.id, fingerprint))).to.deep.equal(O.some(forBob))
      expect(await right(h.port.findByFingerprint(MERCHANT_A, null, fingerprint))).to.deep.equal(O.some(forNobody))
    })

    it('rejects the same card again for the same buyer, or again for no buyer, naming the stored method', async () => {
      const buyer = aBuyer()
      const first = aVaultedPaymentMethod({ method: { buyer } })
      const nobodys = aVaultedPaymentMethod()
      await insertAll([first, nobodys])
      expect(await left(h.port.insert(sameCard(first, { buyer })))).to.deep.equal(duplicate('PaymentMethod', first.method.id))
      expect(await left(h.port.insert(sameCard(nobodys)))).to.deep.equal(duplicate('PaymentMethod', nobodys.method.id))
      expect(await right(h.port.list(MERCHANT_A, {}, all))).to.have.length(2)
      expect(await right(h.port.findByFingerprint(MERCHANT_A, buyer.id, first.method.fingerprint ?? ''))).to.deep.equal(O.some(first))
    })

    it('rejects a second method with a stored id as a duplicate of it, whatever its card', async () => {
      const first = aVaultedPaymentMethod()
      await right(h.port.insert(first))
      const clash = aVaultedPaymentMethod({ method: { id: first.method.id } })
      expect(await left(h.port.insert(clash))).to.deep.equal(duplicate('PaymentMethod', first.method.id))
      expect(await right(h.port.findById(MERCHANT_A, first.method.id))).to.deep.equal(O.some(first))
      expect(await right(h.port.findByFingerprint(MERCHANT_A, null, clash.method.fingerprint ?? ''))).to.deep.equal(O.none)
    })

    it('allows the same card, for the same buyer, in another account', async () => {
      const buyer = aBuyer()
      const ours = aVaultedPaymentMethod({ method: { buyer } })
      const theirs = sameCard(ours, { buyer, merchant_account_id: MERCHANT_B })
      await insertAll([ours, theirs])
      expect(await right(h.port.findByFingerprint(MERCHANT_A, buyer.id, ours.method.fingerprint ?? ''))).to.deep.equal(O.some(ours))
      expect(await right(h.port.findByFingerprint(MERCHANT_B, buyer.id, ours.method.fingerprint ?? ''))).to.deep.equal(O.some(theirs))
    })

    it('admits exactly one of 8 concurrent inserts of one card, for a buyer and for no buyer', async () => {
      for (const buyer of [aBuyer(), null]) {
        const first = aVaultedPaymentMethod({ method: { buyer } })
        const methods = Array.from({ length: 8 }, () => sameCard(first, { buyer }))
        const results = await Promise.all(methods.map((m) => h.port.insert(m)()))
        const winners = methods.filter((_, i) => at(results, i)._tag === 'Right')
        expect(winners, `buyer ${buyer?.id ?? 'none'}`).to.have.length(1)
        const winner = at(winners, 0)
        expect(results.filter((r) => r._tag === 'Left')).to.deep.equal(
          Array.from({ length: 7 }, () => ({ _tag: 'Left', left: duplicate('PaymentMethod', winner.method.id) })),
        )
        const fingerprint = first.method.fingerprint ?? ''
        expect(await right(h.port.findByFingerprint(MERCHANT_A, buyer?.id ?? null, fingerprint))).to.deep.equal(O.some(winner))
      }
    })

    it("reads a buyer's methods of the given statuses, newest first, in its account only, at most `limit`", async () => {
      const buyer = aBuyer()
      const mine = (i: number, o: Partial<PaymentMethod> = {}) =>
        aVaultedPaymentMethod({ method: { buyer, created_at: isoAt(i * 1000), ...o } })
      const [older, failed, newer, processing, newest] = [
        mine(0),
        mine(1, { status: 'failed' }),
        mine(2),
        mine(3, { status: 'processing' }),
        mine(4),
      ]
      const others = [aVaultedPaymentMethod(), aVaultedPaymentMethod({ method: { buyer: aBuyer() } }), another({ buyer })]
      await insertAll([newer, ...others, failed, older, newest, processing])
      const forBuyer = (statuses: PaymentMethod['status'][], limit: number, account = MERCHANT_A) =>
        right(h.port.forBuyer(account, buyer.id, statuses, limit))
      expect(await forBuyer(['succeeded'], 10)).to.deep.equal([newest.method, newer.method, older.method])
      expect(await forBuyer(['succeeded'], 2)).to.deep.equal([newest.method, newer.method])
      expect(await forBuyer(['succeeded', 'processing'], 10)).to.deep.equal([newest.method, processing.method, newer.method, older.method])
      expect(await forBuyer(['failed', 'paused'], 10)).to.deep.equal([failed.method])
      expect(await forBuyer(['succeeded'], 10, MERCHANT_B)).to.deep.equal([at(others, 2).method])
      expect(await right(h.port.forBuyer(MERCHANT_A, aBuyer().id, ['succeeded'], 10))).to.deep.equal([])
    })

    it('updates only the given properties (null clears one), stamps updated_at, and answers the method as now stored', async () => {
      const v = aVaultedPaymentMethod({
        method: { buyer: aBuyer(), external_identifier: 'pm-1', scheme_transaction_id: 'st-1', scheme_transaction_id_scheme: 'visa' },
      })
      await right(h.port.insert(v))
      const changed = await right(
        h.port.update(
          MERCHANT_A,
          v.method.id,
          { expiration_date: '01/31', scheme_transaction_id: null, transaction_link_id: 'tl-1' },
          isoAt(5000),
        ),
      )
      const now = {
        ...v.method,
        expiration_date: '01/31',
        scheme_transaction_id: null,
        transaction_link_id: 'tl-1',
        updated_at: isoAt(5000),
      }
      expect(changed).to.deep.equal(O.some(now))
      expect(await right(h.port.findById(MERCHANT_A, v.method.id))).to.deep.equal(O.some({ ...v, method: now }))
      expect(await right(h.port.list(MERCHANT_A, { external_identifier: 'pm-1' }, all))).to.deep.equal([now])
      // No changes: only the stamp moves.
      expect(await right(h.port.update(MERCHANT_A, v.method.id, {}, isoAt(6000)))).to.deep.equal(
        O.some({ ...now, updated_at: isoAt(6000) }),
      )
      const renamed = await right(h.port.update(MERCHANT_A, v.method.id, { external_identifier: 'pm-2' }, isoAt(7000)))
      expect(renamed).to.deep.equal(O.some({ ...now, external_identifier: 'pm-2', updated_at: isoAt(7000) }))
      expect(await right(h.port.list(MERCHANT_A, { external_identifier: 'pm-1' }, all))).to.deep.equal([])
    })

    it("updates nothing for an unknown id or another account's method", async () => {
      const theirs = another()
      await right(h.port.insert(theirs))
      expect(await right(h.port.update(MERCHANT_A, theirs.method.id, { external_identifier: 'x' }, isoAt(1)))).to.deep.equal(O.none)
      expect(await right(h.port.update(MERCHANT_A, UNKNOWN_ID, { external_identifier: 'x' }, isoAt(1)))).to.deep.equal(O.none)
      expect(await found(theirs)).to.deep.equal(theirs)
    })

    it('settles as succeeded from processing and from failed, stamping updated_at', async () => {
      const processing = aVaultedPaymentMethod({ method: { status: 'processing' } })
      const failed = aVaultedPaymentMethod({ method: { status: 'failed' } })
      await insertAll([processing, failed])
      for (const v of [processing, failed]) {
        expect(await right(h.port.settle(MERCHANT_A, v.method.id, 'succeeded', isoAt(1000)))).to.equal(true)
        expect(await found(v)).to.deep.equal({ ...v, method: { ...v.method, status: 'succeeded', updated_at: isoAt(1000) } })
      }
    })

    it('keeps, on a settle to succeeded, what the service told of the card (null: left as it was); a failed settle keeps nothing', async () => {
      const told = aVaultedPaymentMethod({ method: { status: 'processing' } })
      const silent = aVaultedPaymentMethod({ method: { status: 'processing' } })
      const refused = aVaultedPaymentMethod({ method: { status: 'processing' } })
      await insertAll([told, silent, refused])
      const facts = { cardType: 'debit', schemeTransactionId: '483297487231504', scheme: 'visa' as const }
      expect(await right(h.port.settle(MERCHANT_A, told.method.id, 'succeeded', isoAt(1000), facts))).to.equal(true)
      expect(await found(told)).to.deep.equal({
        ...told,
        method: {
          ...told.method,
          status: 'succeeded',
          updated_at: isoAt(1000),
          details: { bin: told.method.details?.bin ?? null, card_type: 'debit' },
          scheme_transaction_id: '483297487231504',
          scheme_transaction_id_scheme: 'visa',
        },
      })
      const none = { cardType: null, schemeTransactionId: null, scheme: null }
      expect(await right(h.port.settle(MERCHANT_A, silent.method.id, 'succeeded', isoAt(1000), none))).to.equal(true)
      expect(await found(silent)).to.deep.equal({ ...silent, method: { ...silent.method, status: 'succeeded', updated_at: isoAt(1000) } })
      expect(await right(h.port.settle(MERCHANT_A, refused.method.id, 'failed', isoAt(1000), facts))).to.equal(true)
      expect(await found(refused)).to.deep.equal({ ...refused, method: { ...refused.method, status: 'failed', updated_at: isoAt(1000) } })
    })

    it('settles as failed only from processing: a method that succeeded stays succeeded', async () => {
      const processing = aVaultedPaymentMethod({ method: { status: 'processing' } })
      const succeeded = aVaultedPaymentMethod()
      await insertAll([processing, succeeded])
      expect(await right(h.port.settle(MERCHANT_A, processing.method.id, 'failed', isoAt(1000)))).to.equal(true)
      expect(await found(processing)).to.deep.equal({
        ...processing,
        method: { ...processing.method, status: 'failed', updated_at: isoAt(1000) },
      })
      expect(await right(h.port.settle(MERCHANT_A, succeeded.method.id, 'failed', isoAt(1000)))).to.equal(false)
      expect(await found(succeeded)).to.deep.equal(succeeded)
    })

    it("settles once (again: false, nothing changes), and never an unknown id or another account's method", async () => {
      const v = aVaultedPaymentMethod({ method: { status: 'processing' } })
      const theirs = another({ status: 'processing' })
      await insertAll([v, theirs])
      expect(await right(h.port.settle(MERCHANT_A, v.method.id, 'succeeded', isoAt(1000)))).to.equal(true)
      expect(await right(h.port.settle(MERCHANT_A, v.method.id, 'succeeded', isoAt(2000)))).to.equal(false)
      expect(await found(v)).to.deep.equal({ ...v, method: { ...v.method, status: 'succeeded', updated_at: isoAt(1000) } })
      expect(await right(h.port.settle(MERCHANT_A, theirs.method.id, 'succeeded', isoAt(1000)))).to.equal(false)
      expect(await right(h.port.settle(MERCHANT_A, UNKNOWN_ID, 'failed', isoAt(1000)))).to.equal(false)
      expect(await found(theirs)).to.deep.equal(theirs)
    })

    it("records a method's uses: the cit_ pair only when the buyer started the payment, in its account only", async () => {
      const v = aVaultedPaymentMethod({ method: { buyer: aBuyer() } })
      await right(h.port.insert(v))
      expect(await right(h.port.recordUse(MERCHANT_A, v.method.id, isoAt(1000), true))).to.equal(true)
      expect(await right(h.port.recordUse(MERCHANT_A, v.method.id, isoAt(2000), false))).to.equal(true)
      expect(await right(h.port.recordUse(MERCHANT_B, v.method.id, isoAt(3000), true))).to.equal(false)
      expect(await right(h.port.recordUse(MERCHANT_A, UNKNOWN_ID, isoAt(3000), true))).to.equal(false)
      const used = { ...v.method, usage_count: 2, last_used_at: isoAt(2000), cit_usage_count: 1, cit_last_used_at: isoAt(1000) }
      expect(await found(v)).to.deep.equal({ ...v, method: used })
      expect(await right(h.port.list(MERCHANT_A, {}, all))).to.deep.equal([used])
      expect(await right(h.port.forBuyer(MERCHANT_A, present(v.method.buyer).id, ['succeeded'], 10))).to.deep.equal([used])
    })

    it('counts 10 concurrent uses of one method, none lost', async () => {
      const v = aVaultedPaymentMethod()
      await right(h.port.insert(v))
      await Promise.all(Array.from({ length: 10 }, (_, i) => right(h.port.recordUse(MERCHANT_A, v.method.id, isoAt(i), i % 2 === 0))))
      const m = present(await found(v)).method
      expect([m.usage_count, m.cit_usage_count]).to.deep.equal([10, 5])
    })

    it('deletes a method with its sealed number: it is found no more, by id, fingerprint or list', async () => {
      const buyer = aBuyer()
      const v = aVaultedPaymentMethod({ method: { buyer } })
      const kept = aVaultedPaymentMethod()
      await insertAll([v, kept])
      expect(await right(h.port.delete(MERCHANT_A, v.method.id))).to.equal(true)
      expect(await right(h.port.findById(MERCHANT_A, v.method.id))).to.deep.equal(O.none)
      expect(await right(h.port.findByFingerprint(MERCHANT_A, buyer.id, v.method.fingerprint ?? ''))).to.deep.equal(O.none)
      expect(await right(h.port.list(MERCHANT_A, {}, all))).to.deep.equal([kept.method])
      expect(await right(h.port.forBuyer(MERCHANT_A, buyer.id, ['succeeded'], 10))).to.deep.equal([])
      expect(await found(kept)).to.deep.equal(kept)
    })

    it("deletes once: a second delete, an unknown id and another account's method delete nothing", async () => {
      const v = aVaultedPaymentMethod()
      const theirs = another()
      await insertAll([v, theirs])
      expect(await right(h.port.delete(MERCHANT_A, v.method.id))).to.equal(true)
      expect(await right(h.port.delete(MERCHANT_A, v.method.id))).to.equal(false)
      expect(await right(h.port.delete(MERCHANT_A, UNKNOWN_ID))).to.equal(false)
      expect(await right(h.port.delete(MERCHANT_A, theirs.method.id))).to.equal(false)
      expect(await found(theirs)).to.deep.equal(theirs)
    })

    it('stores the same card again after its method was deleted', async () => {
      const v = aVaultedPaymentMethod()
      await right(h.port.insert(v))
      await right(h.port.delete(MERCHANT_A, v.method.id))
      const again = sameCard(v)
      await right(h.port.insert(again))
      expect(await right(h.port.findByFingerprint(MERCHANT_A, null, v.method.fingerprint ?? ''))).to.deep.equal(O.some(again))
    })

    it("deletes a buyer's methods in its account only, and counts them", async () => {
      const buyer = aBuyer()
      const theirs = aVaultedPaymentMethod({ method: { buyer } })
      const alsoTheirs = aVaultedPaymentMethod({ method: { buyer, status: 'failed' } })
      const nobodys = sameCard(theirs)
      const others = aVaultedPaymentMethod({ method: { buyer: aBuyer() } })
      const otherAccount = another({ buyer })
      await insertAll([theirs, alsoTheirs, nobodys, others, otherAccount])
      expect(await right(h.port.deleteByBuyer(MERCHANT_A, buyer.id))).to.equal(2)
      expect(await right(h.port.findById(MERCHANT_A, theirs.method.id))).to.deep.equal(O.none)
      expect(await right(h.port.findByFingerprint(MERCHANT_A, buyer.id, alsoTheirs.method.fingerprint ?? ''))).to.deep.equal(O.none)
      expect(await right(h.port.list(MERCHANT_A, { buyer_id: buyer.id }, all))).to.deep.equal([])
      for (const v of [nobodys, others, otherAccount]) expect(await found(v)).to.deep.equal(v)
      expect(await right(h.port.deleteByBuyer(MERCHANT_A, buyer.id))).to.equal(0)
    })

    it('keeps its own copy: changing what was inserted or what a read answered changes nothing stored', async () => {
      const v = aVaultedPaymentMethod({ method: { buyer: aBuyer() } })
      const stored = structuredClone(v)
      await right(h.port.insert(v))
      scribble(v)
      scribble(present(await found(stored)))
      for (const m of await right(h.port.list(MERCHANT_A, {}, all))) scribble({ method: m, sealed_number: '' })
      expect(await found(stored)).to.deep.equal(stored)
      expect(await right(h.port.list(MERCHANT_A, {}, all))).to.deep.equal([stored.method])
    })
  })
