import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { Seek } from '../pagination/page'
import { TransactionRecord } from '../transactions/transaction'
import { TransactionStore } from '../transactions/transaction.ports'
import { dateAt, isoAt, MERCHANT_A, MERCHANT_B, nextUuid, uuidFor } from './fixtures'
import { at, Harness, present, right, sortedBy, teardownHarness } from './harness'
import { aTransactionRecord } from './transaction-fixtures'
import { anAuditRecord } from './audit-log.contract'
import { OutboxEntry } from '../webhooks/webhook-event'

const FIRST: Seek = { direction: 'forward', from: O.none, limit: 100 }
const ids = (rs: readonly TransactionRecord[]) => rs.map((r) => r.id)
const BUYER = {
  type: 'buyer' as const,
  id: uuidFor(900),
  reconciliation_id: null,
  display_name: null,
  external_identifier: null,
  billing_details: null,
  account_number: null,
}
/** The next version of `r` with some changes. */
const then = (r: TransactionRecord, o: Partial<TransactionRecord>): TransactionRecord => ({ ...r, version: r.version + 1, ...o })

export const transactionStoreContract = (name: string, setup: () => Promise<Harness<TransactionStore>>) =>
  describe(`TransactionStore: ${name}`, () => {
    let h: Harness<TransactionStore>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))
    const put = (r: TransactionRecord) => right(h.port.put(r))

    it('creates a transaction at version 0 once, and finds its newest version', async () => {
      const r = aTransactionRecord()
      expect(await put(r)).to.equal(true)
      expect(await put({ ...r, amount: 1 })).to.equal(false)
      expect(await right(h.port.find(MERCHANT_A, r.id))).to.deep.equal(O.some(r))
    })

    it('writes each version once; history holds them all, oldest first', async () => {
      const v0 = aTransactionRecord()
      const v1 = then(v0, { status: 'capture_succeeded' })
      await put(v0)
      expect(await put(v1)).to.equal(true)
      expect(await put({ ...v1, status: 'authorization_voided' })).to.equal(false)
      expect(await right(h.port.find(MERCHANT_A, v0.id))).to.deep.equal(O.some(v1))
      expect(await right(h.port.history(MERCHANT_A, v0.id))).to.deep.equal([v0, v1])
    })

    it('lets exactly one of 10 concurrent writers of one version win', async () => {
      const v0 = aTransactionRecord()
      await put(v0)
      const writers = Array.from({ length: 10 }, (_, i) => then(v0, { external_identifier: `writer-${i}` }))
      const won = await Promise.all(writers.map(put))
      expect(won.filter((w) => w)).to.have.length(1)
      const winner = writers[won.indexOf(true)]
      expect(await right(h.port.find(MERCHANT_A, v0.id))).to.deep.equal(O.some(winner))
    })

    it("keeps another account's transaction out of sight", async () => {
      const r = aTransactionRecord({ merchant_account_id: MERCHANT_B })
      await put(r)
      expect(await right(h.port.find(MERCHANT_A, r.id))).to.deep.equal(O.none)
      expect(await right(h.port.history(MERCHANT_A, r.id))).to.deep.equal([])
      expect(await right(h.port.list(MERCHANT_A, {}, FIRST))).to.deep.equal([])
      expect(await right(h.port.findByRefund(MERCHANT_A, r.id))).to.deep.equal(O.none)
    })

    it('lists newest versions, newest transaction first (the id breaking ties), with keyset seeks both ways', async () => {
      const rs = [0, 1, 2, 3].map((i) => aTransactionRecord({ id: uuidFor(10 + i), created_at: isoAt(i < 2 ? 0 : 1000) }))
      for (const r of rs) await put(r)
      const [oldest] = rs
      if (oldest === undefined) throw new Error('no transactions')
      const updated = then(oldest, { status: 'capture_succeeded' })
      await put(updated)
      const all = await right(h.port.list(MERCHANT_A, {}, FIRST))
      expect(ids(all)).to.deep.equal([uuidFor(13), uuidFor(12), uuidFor(11), uuidFor(10)])
      expect(all.at(-1)).to.deep.equal(updated)
      const after = await right(h.port.list(MERCHANT_A, {}, { direction: 'forward', from: O.some([isoAt(1000), uuidFor(12)]), limit: 2 }))
      expect(ids(after)).to.deep.equal([uuidFor(11), uuidFor(10)])
      const before = await right(h.port.list(MERCHANT_A, {}, { direction: 'backward', from: O.some([isoAt(0), uuidFor(11)]), limit: 5 }))
      expect(ids(before)).to.deep.equal([uuidFor(12), uuidFor(13)])
    })

    it('filters on gift cards: a stored card redeemed (whatever the outcome), and whether there are redemptions at all', async () => {
      const redemption = (id: string | null, status: 'succeeded' | 'failed') => ({
        id: nextUuid(),
        reference: 'r',
        amount: 100,
        status,
        error_code: null,
        unknown: false,
        requested_at: isoAt(0),
        answered_at: isoAt(0),
        gift_card: { id, bin: '412345', sub_bin: '000', last4: '1111' },
        service: null,
        sealed_number: 'sealed',
        sealed_pin: null,
        reversal: null,
      })
      const stored = uuidFor(950)
      const plain = aTransactionRecord()
      const byNumber = aTransactionRecord({ gift_card_redemptions: [redemption(null, 'succeeded')] })
      const byId = aTransactionRecord({ gift_card_redemptions: [redemption(null, 'succeeded'), redemption(stored, 'failed')] })
      for (const r of [plain, byNumber, byId]) await put(r)
      const list = async (f: Parameters<TransactionStore['list']>[1]) => ids(await right(h.port.list(MERCHANT_A, f, FIRST)))
      expect(await list({ gift_card_id: stored })).to.deep.equal([byId.id])
      expect(await list({ gift_card_id: uuidFor(951) })).to.deep.equal([])
      expect(await list({ has_gift_card_redemptions: true })).to.have.members([byNumber.id, byId.id])
      expect(await list({ has_gift_card_redemptions: false })).to.deep.equal([plain.id])
      expect(await list({ has_gift_card_redemptions: true, gift_card_id: stored })).to.deep.equal([byId.id])
      expect(await right(h.port.list(MERCHANT_B, { gift_card_id: stored }, FIRST))).to.deep.equal([])
    })

    it('filters on every field of TransactionFilter, all given ones at once', async () => {
      const buyer = { ...BUYER, id: uuidFor(900), external_identifier: 'crm-7' }
      const a = aTransactionRecord({ amount: 500, currency: 'EUR', buyer, external_identifier: 'order-1', created_at: isoAt(5000) })
      const b = aTransactionRecord({ amount: 2000, status: 'authorization_declined', checkout_session_id: uuidFor(901) })
      for (const r of [a, b]) await put(r)
      const list = async (f: Parameters<TransactionStore['list']>[1]) => ids(await right(h.port.list(MERCHANT_A, f, FIRST)))
      expect(await list({ status: ['authorization_declined'] })).to.deep.equal([b.id])
      expect(await list({ status: ['authorization_declined', 'authorization_succeeded'] })).to.have.members([a.id, b.id])
      expect(await list({ buyer_id: uuidFor(900) })).to.deep.equal([a.id])
      expect(await list({ buyer_external_identifier: 'crm-7' })).to.deep.equal([a.id])
      expect(await list({ external_identifier: 'order-1' })).to.deep.equal([a.id])
      expect(await list({ checkout_session_id: uuidFor(901) })).to.deep.equal([b.id])
      expect(await list({ created_at_gte: isoAt(5000) })).to.deep.equal([a.id])
      expect(await list({ created_at_lte: isoAt(4999) })).to.deep.equal([b.id])
      expect(await list({ amount_gte: 1000 })).to.deep.equal([b.id])
      expect(await list({ amount_lte: 500, currency: ['EUR'] })).to.deep.equal([a.id])
      expect(await list({ amount_lte: 500, currency: ['USD'] })).to.deep.equal([])
      expect(await list({ has_gift_card_redemptions: false })).to.have.members([a.id, b.id])
      expect(await list({ has_gift_card_redemptions: true })).to.deep.equal([])
      expect(await list({ amount_lte: 500, currency: ['USD', 'EUR'] })).to.deep.equal([a.id])
    })

    it('filters on the newest version only: no transaction shows by what an older version of it held', async () => {
      const list = async (f: Parameters<TransactionStore['list']>[1], limit = 100) =>
        ids(await right(h.port.list(MERCHANT_A, f, { direction: 'forward', from: O.none, limit })))
      const moved = aTransactionRecord({ id: uuidFor(30), external_identifier: 'old', created_at: isoAt(3000) })
      await put(moved)
      const captured = then(moved, { status: 'capture_succeeded' })
      await put(captured)
      await put(then(captured, { external_identifier: 'new' }))
      // Transactions with many versions that matched, before and after the one that still does.
      const churned = [31, 32, 33, 35, 36].map((n) => aTransactionRecord({ id: uuidFor(n), created_at: isoAt(n * 100) }))
      for (const r of churned) {
        let v = r
        await put(v)
        for (let i = 0; i < 3; i++) await put((v = then(v, { external_identifier: `churn-${i}` })))
        await put(then(v, { status: 'authorization_voided' }))
      }
      const still = aTransactionRecord({ id: uuidFor(34), created_at: isoAt(3400) })
      await put(still)
      for (let round = 0; round < 2; round++) {
        expect(await list({ status: ['authorization_succeeded'] })).to.deep.equal([still.id])
        expect(await list({ status: ['authorization_succeeded'] }, 1)).to.deep.equal([still.id])
        expect(await list({ status: ['capture_succeeded'] })).to.deep.equal([moved.id])
        expect(await list({ status: ['authorization_voided'] }, 2)).to.deep.equal([uuidFor(36), uuidFor(35)])
        expect(await list({ external_identifier: 'old' })).to.deep.equal([])
        expect(await list({ external_identifier: 'new' })).to.deep.equal([moved.id])
        expect(await list({ external_identifier: 'churn-0' })).to.deep.equal([])
        expect(await list({ external_identifier: 'churn-1' }, 1)).to.deep.equal([])
        expect(await list({ external_identifier: 'churn-2' }, 2)).to.deep.equal([uuidFor(36), uuidFor(35)])
        // Again once the older versions had time to be marked (where marks are written later).
        await new Promise((r) => setTimeout(r, 300))
      }
    })

    it('lists each transaction once, in a version no older than before the list, while versions are written', async () => {
      const buyer = { ...BUYER, id: uuidFor(910) }
      const rs = Array.from({ length: 12 }, (_, i) => aTransactionRecord({ id: uuidFor(80 + i), created_at: isoAt((i % 4) * 100), buyer }))
      for (const r of rs) await put(r)
      const written = new Map(rs.map((r) => [r.id, [r]]))
      const newest = (id: string) => present(written.get(id)?.at(-1), `a version of ${id}`)
      // Two writers, each over its own half, one version after another, 60 in all: enough to
      // land between the reads of a list, few enough to keep lists quick.
      const writer = async (half: number) => {
        for (let i = 0; i < 30; i++) {
          const r = newest(at(rs, 2 * (i % 6) + half).id)
          const next = then(r, { status: r.status === 'capture_succeeded' ? 'authorization_succeeded' : 'capture_succeeded' })
          expect(await put(next)).to.equal(true)
          written.get(r.id)?.push(next)
        }
      }
      let writing = true
      const writers = Promise.all([writer(0), writer(1)]).finally(() => (writing = false))
      // Lists the buyer's transactions while the writers write (twice at least), a page of `limit` after another.
      const lister = async (limit: number) => {
        for (let round = 0; writing || round < 2; round++) {
          const before = new Map(rs.map((r) => [r.id, newest(r.id).version]))
          const listed: TransactionRecord[] = []
          for (let from: Seek['from'] = O.none; ;) {
            const page = await right(h.port.list(MERCHANT_A, { buyer_id: buyer.id }, { direction: 'forward', from, limit }))
            listed.push(...page)
            const last = page.at(-1)
            if (page.length < limit || last === undefined) break
            from = O.some([last.created_at, last.id])
          }
          const sorted = sortedBy((id: string) => id)
          expect(sorted(ids(listed)), `round ${round}, pages of ${limit}`).to.deep.equal(sorted(ids(rs)))
          for (const r of listed) {
            expect(r.version, `${r.id} listed older than it was`).to.be.at.least(before.get(r.id) ?? 0)
            expect(r).to.deep.equal(written.get(r.id)?.[r.version])
          }
        }
      }
      await Promise.all([writers, lister(100), lister(5)])
    })

    it('finds the transaction of a refund, newest version', async () => {
      const v0 = aTransactionRecord({ status: 'capture_succeeded' })
      const refund = {
        id: uuidFor(77),
        reference: 'r',
        amount: 100,
        status: 'succeeded' as const,
        reason: null,
        external_identifier: null,
        created_at: isoAt(0),
        updated_at: isoAt(0),
        service_refund_id: null,
        error_code: null,
        raw_response_code: null,
        raw_response_description: null,
      }
      await put(v0)
      const v1 = then(v0, { refunds: [refund] })
      await put(v1)
      expect(await right(h.port.findByRefund(MERCHANT_A, uuidFor(77)))).to.deep.equal(O.some(v1))
      expect(await right(h.port.findByRefund(MERCHANT_B, uuidFor(77)))).to.deep.equal(O.none)
      expect(await right(h.port.findByRefund(MERCHANT_A, uuidFor(78)))).to.deep.equal(O.none)
    })

    it('lists the pending transactions of every account written before an instant, oldest first', async () => {
      const old = aTransactionRecord({ pending: true, status: 'processing', updated_at: isoAt(0) })
      const other = aTransactionRecord({ merchant_account_id: MERCHANT_B, pending: true, status: 'processing', updated_at: isoAt(10) })
      const recent = aTransactionRecord({ pending: true, status: 'processing', updated_at: isoAt(60_000) })
      const settledSince = aTransactionRecord({ pending: true, status: 'processing', updated_at: isoAt(5) })
      for (const r of [old, other, recent, settledSince]) await put(r)
      await put(then(settledSince, { pending: false, status: 'authorization_failed', updated_at: isoAt(6) }))
      expect(ids(await right(h.port.stale(dateAt(30_000), 10)))).to.deep.equal([old.id, other.id])
      expect(ids(await right(h.port.stale(dateAt(30_000), 1)))).to.deep.equal([old.id])
    })

    it('reads stale transactions on from one it returned, the id breaking ties, a full batch while any is left', async () => {
      const pending = { pending: true, status: 'processing' as const }
      // Written twice while pending: its older version is a candidate until marked, never an answer.
      const twice = aTransactionRecord({ ...pending, id: uuidFor(50), updated_at: isoAt(0) })
      await put(twice)
      await put(then(twice, { updated_at: isoAt(20) }))
      const rest = [53, 52, 51, 54].map((n) => aTransactionRecord({ ...pending, id: uuidFor(n), updated_at: isoAt(n === 54 ? 30 : 10) }))
      for (const r of rest) await put(r)
      const order = [uuidFor(51), uuidFor(52), uuidFor(53), uuidFor(50), uuidFor(54)]
      const before = dateAt(30_000)
      expect(ids(await right(h.port.stale(before, 10)))).to.deep.equal(order)
      const read: string[] = []
      for (let after: TransactionRecord | undefined, round = 0; round < 10; round++) {
        const batch = await right(h.port.stale(before, 2, after))
        read.push(...ids(batch))
        after = batch.at(-1)
        if (batch.length < 2 || after === undefined) break
        expect(batch).to.have.length(2)
      }
      expect(read).to.deep.equal(order)
      const [, , third] = await right(h.port.stale(before, 10))
      if (third === undefined) throw new Error('no third stale transaction')
      expect(ids(await right(h.port.stale(before, 1, third)))).to.deep.equal([uuidFor(50)])
      expect(await right(h.port.stale(before, 1, (await right(h.port.stale(before, 10))).at(-1)))).to.deep.equal([])
    })

    describe('what versions are written with', () => {
      const entry = (n: number) => anAuditRecord({ id: uuidFor(700 + n), committed: true, check: null })
      const event = (n: number, r: TransactionRecord): OutboxEntry => ({
        event_id: uuidFor(800 + n),
        event_name: 'transaction.captured',
        merchant_account_id: r.merchant_account_id,
        target_id: r.id,
        created_at: r.updated_at,
        body: `{"n":${n}}`,
        deliveries: [],
      })
      const keyOf = (r: TransactionRecord) => ({ merchantAccountId: r.merchant_account_id, transactionId: r.id, version: r.version })
      const unfolded = (before = 60_000, limit = 100) => right(h.port.unfolded(dateAt(before), limit))

      it("keeps a version's audit entries and events with it until folded, oldest version first, of every account, up to the limit", async () => {
        const v0 = aTransactionRecord({ updated_at: isoAt(2000) })
        const other = aTransactionRecord({ merchant_account_id: MERCHANT_B, updated_at: isoAt(1000) })
        const v1 = then(v0, { updated_at: isoAt(3000), status: 'capture_succeeded' })
        const v2 = then(v1, { updated_at: isoAt(4000) })
        expect(await right(h.port.put(v0, { audit: [entry(1)] }))).to.equal(true)
        expect(await right(h.port.put(other, { audit: [entry(2), entry(3)], events: [event(1, other)] }))).to.equal(true)
        expect(await right(h.port.put(v1, { events: [event(2, v1)] }))).to.equal(true)
        expect(await right(h.port.put(v2, { audit: [], events: [] }))).to.equal(true)
        const [first, second, third] = [
          { version: keyOf(other), audit: [entry(2), entry(3)], events: [event(1, other)] },
          { version: keyOf(v0), audit: [entry(1)], events: [] },
          { version: keyOf(v1), audit: [], events: [event(2, v1)] },
        ]
        expect(await unfolded()).to.deep.equal([first, second, third])
        expect(await unfolded(60_000, 1)).to.deep.equal([first])
        expect(await unfolded(2000)).to.deep.equal([first])
        expect(await right(h.port.find(MERCHANT_A, v0.id))).to.deep.equal(O.some(v2))
        expect(await right(h.port.history(MERCHANT_A, v0.id))).to.deep.equal([v0, v1, v2])
      })

      it('never keeps what a version another writer had was written with', async () => {
        const v0 = aTransactionRecord()
        await put(v0)
        expect(await right(h.port.put(v0, { audit: [entry(4)] }))).to.equal(false)
        const v1 = then(v0, { status: 'capture_succeeded' })
        expect(await right(h.port.put(v1, { audit: [entry(5)], events: [event(5, v1)] }))).to.equal(true)
        expect(
          await right(h.port.put(then(v0, { status: 'authorization_voided' }), { audit: [entry(6)], events: [event(6, v1)] })),
        ).to.equal(false)
        expect(await unfolded()).to.deep.equal([{ version: keyOf(v1), audit: [entry(5)], events: [event(5, v1)] }])
      })

      it('leaves out the versions marked folded; marking one again, or an absent one, changes nothing', async () => {
        const [a, b] = [aTransactionRecord({ updated_at: isoAt(1) }), aTransactionRecord({ updated_at: isoAt(2) })]
        await right(h.port.put(a, { audit: [entry(7)], events: [event(7, a)] }))
        await right(h.port.put(b, { audit: [entry(8)] }))
        await right(h.port.folded([keyOf(a), { ...keyOf(b), version: 5 }]))
        await right(h.port.folded([keyOf(a)]))
        await right(h.port.folded([]))
        expect(await unfolded()).to.deep.equal([{ version: keyOf(b), audit: [entry(8)], events: [] }])
        expect(await right(h.port.history(MERCHANT_A, a.id))).to.deep.equal([a])
      })
    })
  })
