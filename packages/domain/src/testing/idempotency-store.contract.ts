import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { EARLIER_IDS_KEPT, IdempotencyRecord, StoredOutcome } from '../idempotency/idempotency'
import { Claim, IdempotencyStore, LeaseHolder } from '../idempotency/idempotency.ports'
import { anIdempotencyRecord, dateAt, isoAt, MERCHANT_B } from './fixtures'
import { at, Harness, present, right, teardownHarness } from './harness'

const KEY = 'gift-card-activation\u0000b8f2e0f4-3c1a-4d2e-9f10-6a7b8c9d0e1f'
const DAY = 86_400_000
const claimed = (record: IdempotencyRecord): Claim => ({ claimed: true, record })
const heldBy = (existing: IdempotencyRecord) => ({ claimed: false, existing })
const settled = { settled: true }
const refused = (current: IdempotencyRecord | null) => ({ settled: false, current })
const holderOf = (r: IdempotencyRecord): LeaseHolder => ({
  merchantAccountId: r.merchant_account_id,
  key: r.key,
  lease: present(r.lease, 'a lease'),
  attempt: present(r.attempt, 'an attempt'),
})
/** A claim's answer without the record's attempt, which a sweep of the dead record it replaced resets. */
const withoutAttempt = (c: Claim) => (c.claimed ? { claimed: true, record: { ...c.record, attempt: undefined } } : c)
const card: StoredOutcome = { ok: true, value: { id: '5b7d5e2c-0f0e-4a57-9c2b-3d1e4f5a6b7c', bin: '603628', usage_count: 0, buyer: null } }

export const idempotencyStoreContract = (name: string, setup: () => Promise<Harness<IdempotencyStore>>) =>
  describe(`IdempotencyStore: ${name}`, () => {
    let h: Harness<IdempotencyStore>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    // A claim made at t=0 whose lease ends at t=30 s, kept for a day for its retries.
    const first = (o: Partial<IdempotencyRecord> = {}) =>
      anIdempotencyRecord({
        key: KEY,
        fingerprint: 'first-request',
        created_at: isoAt(0),
        expires_at: isoAt(30_000),
        lease: 'lease-first',
        attempt: 1,
        reserved_id: 'reserved-first',
        retain_until: isoAt(DAY),
        ...o,
      })
    // A claim made at `at` by another request (another body), unless `o` says otherwise.
    const second = (at: number, o: Partial<IdempotencyRecord> = {}) =>
      anIdempotencyRecord({
        key: KEY,
        fingerprint: 'second-request',
        created_at: isoAt(at),
        expires_at: isoAt(at + 30_000),
        lease: `lease-${at}`,
        attempt: 1,
        reserved_id: `reserved-${at}`,
        retain_until: isoAt(at + DAY),
        ...o,
      })
    // The same request as `first`, retried at `at`.
    const retry = (at: number, o: Partial<IdempotencyRecord> = {}) => second(at, { fingerprint: 'first-request', ...o })

    describe('claims', () => {
      it('claims a free key, answering with the record as stored', async () => {
        expect(await right(h.port.claim(first(), dateAt(0)))).to.deep.equal(claimed(first()))
      })

      it('stores a record without lease fields (written before leases existed) as it is', async () => {
        const old = anIdempotencyRecord({ key: KEY })
        expect(await right(h.port.claim(old, dateAt(0)))).to.deep.equal(claimed(old))
        expect(await right(h.port.claim(second(1), dateAt(1)))).to.deep.equal(heldBy(old))
      })

      it('takes over an expired record without lease fields like any other', async () => {
        const old = anIdempotencyRecord({ key: KEY, fingerprint: 'first-request', expires_at: isoAt(30_000) })
        await right(h.port.claim(old, dateAt(0)))
        const taken = await right(h.port.claim(retry(30_000), dateAt(30_000)))
        if (!taken.claimed) throw new Error('not taken over')
        // Attempt 2 with no earlier ids, or (swept first) a fresh attempt 1.
        expect({ ...taken.record, attempt: undefined, earlier_ids: undefined }).to.deep.equal({
          ...retry(30_000),
          attempt: undefined,
          earlier_ids: undefined,
        })
        expect(taken.record.earlier_ids ?? []).to.deep.equal([])
        expect(await right(h.port.complete(holderOf(taken.record), card, dateAt(DAY)))).to.deep.equal(settled)
      })

      it('answers a second claim of a live key with the record holding it', async () => {
        const record = first()
        await right(h.port.claim(record, dateAt(0)))
        expect(await right(h.port.claim(second(10), dateAt(10)))).to.deep.equal(heldBy(record))
        expect(await right(h.port.claim(second(29_999), dateAt(29_999)))).to.deep.equal(heldBy(record))
      })

      it('replaces a record whose expires_at is not after now, counting the attempt', async () => {
        await right(h.port.claim(first(), dateAt(0)))
        const takeover = { ...second(30_000), attempt: 2 }
        expect(await right(h.port.claim(second(30_000), dateAt(30_000)))).to.deep.equal(claimed(takeover))
        expect(await right(h.port.claim(second(30_001, { fingerprint: 'third-request' }), dateAt(30_001)))).to.deep.equal(heldBy(takeover))
      })

      it('keeps keys of different accounts and different keys apart', async () => {
        const ours = first()
        await right(h.port.claim(ours, dateAt(0)))
        const theirs = second(1, { merchant_account_id: MERCHANT_B })
        expect(await right(h.port.claim(theirs, dateAt(1)))).to.deep.equal(claimed(theirs))
        const otherKey = second(2, { key: `${KEY}-other` })
        expect(await right(h.port.claim(otherKey, dateAt(2)))).to.deep.equal(claimed(otherKey))
        expect(await right(h.port.claim(second(3), dateAt(3)))).to.deep.equal(heldBy(ours))
        expect(await right(h.port.claim(second(3, { merchant_account_id: MERCHANT_B, fingerprint: 'x' }), dateAt(3)))).to.deep.equal(
          heldBy(theirs),
        )
      })

      it('lets exactly one of 20 concurrent claims of a free key through', async () => {
        const records = Array.from({ length: 20 }, (_, i) => second(0, { fingerprint: `request-${i}`, lease: `lease-${i}` }))
        const results = await Promise.all(records.map((r) => right(h.port.claim(r, dateAt(0)))))
        const winners = records.filter((_, i) => at(results, i).claimed)
        expect(winners).to.have.length(1)
        expect(results.filter((r) => !r.claimed)).to.deep.equal(Array.from({ length: 19 }, () => heldBy(at(winners, 0))))
      })
    })

    describe('takeovers hand on what unfinished attempts of the same request reserved', () => {
      it("a retry of the same request takes over with the earlier attempts' ids, newest first", async () => {
        await right(h.port.claim(first(), dateAt(0)))
        const two = { ...retry(30_000), attempt: 2, earlier_ids: ['reserved-first'] }
        expect(await right(h.port.claim(retry(30_000), dateAt(30_000)))).to.deep.equal(claimed(two))
        const three = { ...retry(60_000), attempt: 3, earlier_ids: ['reserved-30000', 'reserved-first'] }
        expect(await right(h.port.claim(retry(60_000), dateAt(60_000)))).to.deep.equal(claimed(three))
        expect(await right(h.port.claim(retry(60_001), dateAt(60_001)))).to.deep.equal(heldBy(three))
      })

      it('another request body taking over an expired key gets no ids', async () => {
        await right(h.port.claim(first(), dateAt(0)))
        expect(await right(h.port.claim(second(30_000), dateAt(30_000)))).to.deep.equal(claimed({ ...second(30_000), attempt: 2 }))
      })

      it('a completed record whose replay period is over hands no ids on, even to the same request', async () => {
        await right(h.port.claim(first(), dateAt(0)))
        await right(h.port.complete(holderOf(first()), card, dateAt(3_600_000)))
        // Taken over (attempt 2) or swept first (attempt 1): a sweep may drop a dead record.
        expect(withoutAttempt(await right(h.port.claim(retry(3_600_000), dateAt(3_600_000))))).to.deep.equal(
          withoutAttempt(claimed(retry(3_600_000))),
        )
      })

      it(`remembers at most ${EARLIER_IDS_KEPT} earlier ids`, async () => {
        await right(h.port.claim(first(), dateAt(0)))
        let last: unknown
        for (let i = 1; i <= EARLIER_IDS_KEPT + 2; i++) last = await right(h.port.claim(retry(i * 30_000), dateAt(i * 30_000)))
        const n = EARLIER_IDS_KEPT + 2
        const ids = Array.from({ length: EARLIER_IDS_KEPT }, (_, j) => `reserved-${(n - 1 - j) * 30_000}`)
        expect(last).to.deep.equal(claimed({ ...retry(n * 30_000), attempt: n + 1, earlier_ids: ids }))
      })

      it('keeps an expired in-flight record until its retain_until, so that a late retry still learns its ids', async () => {
        await right(h.port.claim(first(), dateAt(0)))
        // An hour after the lease ended, well past any grace period a sweep allows.
        const late = retry(3_600_000)
        expect(await right(h.port.claim(late, dateAt(3_600_000)))).to.deep.equal(
          claimed({ ...late, attempt: 2, earlier_ids: ['reserved-first'] }),
        )
      })

      it('of 20 concurrent retries taking over an expired key, every winner resumes the same ids and one alone may complete', async () => {
        // On MongoDB and in memory exactly one wins. FerretDB 1.24 replaces a document by a query
        // then a write, so simultaneous takeovers may all "win" there: they still share the ids
        // (what they create is recognised as the request's own), and the lease the record ends up
        // naming is the only one whose `complete` is accepted.
        await right(h.port.claim(first(), dateAt(0)))
        const records = Array.from({ length: 20 }, (_, i) =>
          retry(30_000, { lease: `lease-retry-${i}`, reserved_id: `reserved-retry-${i}` }),
        )
        const results = await Promise.all(records.map((r) => right(h.port.claim(r, dateAt(30_000)))))
        const winners = results.flatMap((r) => (r.claimed ? [r.record] : []))
        expect(winners.length).to.be.at.least(1)
        for (const w of winners) expect([w.attempt, w.earlier_ids]).to.deep.equal([2, ['reserved-first']])
        const completions = []
        for (const w of winners) completions.push(await right(h.port.complete(holderOf(w), card, dateAt(DAY))))
        expect(completions.filter((c) => c.settled)).to.have.length(1)
      })
    })

    describe('complete', () => {
      it('stores the outcome and how long it is replayed', async () => {
        const record = first()
        await right(h.port.claim(record, dateAt(0)))
        expect(await right(h.port.complete(holderOf(record), card, dateAt(DAY)))).to.deep.equal(settled)
        const completed: IdempotencyRecord = { ...record, state: 'completed', outcome: card, expires_at: isoAt(DAY) }
        // Well past the in-flight lease, the completed record still holds the key.
        expect(await right(h.port.claim(second(60_000), dateAt(60_000)))).to.deep.equal(heldBy(completed))
      })

      it('stores a failure outcome', async () => {
        const record = first()
        await right(h.port.claim(record, dateAt(0)))
        const outcome: StoredOutcome = { ok: false, error: { _tag: 'CardDeclined', reason: 'The gift card was declined' } }
        await right(h.port.complete(holderOf(record), outcome, dateAt(3_600_000)))
        expect(await right(h.port.claim(second(5), dateAt(5)))).to.deep.equal(
          heldBy({ ...record, state: 'completed', outcome, expires_at: isoAt(3_600_000) }),
        )
      })

      it('frees a completed key once its replay period is over', async () => {
        await right(h.port.claim(first(), dateAt(0)))
        await right(h.port.complete(holderOf(first()), { ok: true, value: null }, dateAt(3_600_000)))
        const later = second(3_600_000)
        const taken = await right(h.port.claim(later, dateAt(3_600_000)))
        expect(withoutAttempt(taken)).to.deep.equal(withoutAttempt(claimed(later)))
        expect(await right(h.port.claim(second(3_600_001, { fingerprint: 'third-request' }), dateAt(3_600_001)))).to.deep.equal(
          heldBy((taken as { record: IdempotencyRecord }).record),
        )
      })

      it('is accepted from a holder whose lease ended, as long as nobody took the key over', async () => {
        await right(h.port.claim(first(), dateAt(0)))
        expect(await right(h.port.complete(holderOf(first()), card, dateAt(40_000 + DAY)))).to.deep.equal(settled)
        expect(await right(h.port.claim(retry(40_000), dateAt(40_000)))).to.deep.equal(
          heldBy({ ...first(), state: 'completed', outcome: card, expires_at: isoAt(40_000 + DAY) }),
        )
      })

      it("refuses a stale holder's complete after a takeover, reporting the record and leaving it as it is", async () => {
        await right(h.port.claim(first(), dateAt(0)))
        const takeover = { ...retry(30_000), attempt: 2, earlier_ids: ['reserved-first'] }
        await right(h.port.claim(retry(30_000), dateAt(30_000)))
        expect(await right(h.port.complete(holderOf(first()), card, dateAt(31_000 + DAY)))).to.deep.equal(refused(takeover))
        expect(await right(h.port.claim(retry(31_000), dateAt(31_000)))).to.deep.equal(heldBy(takeover))
        // The new holder completes as usual.
        const declined: StoredOutcome = { ok: false, error: { _tag: 'CardDeclined', reason: 'The gift card was declined' } }
        expect(await right(h.port.complete(holderOf(takeover), declined, dateAt(32_000 + DAY)))).to.deep.equal(settled)
        expect(await right(h.port.claim(retry(33_000), dateAt(33_000)))).to.deep.equal(
          heldBy({ ...takeover, state: 'completed', outcome: declined, expires_at: isoAt(32_000 + DAY) }),
        )
      })

      it("refuses a stale holder's complete once the new holder completed, keeping the new outcome", async () => {
        await right(h.port.claim(first(), dateAt(0)))
        const takeover = (await right(h.port.claim(retry(30_000), dateAt(30_000)))) as { record: IdempotencyRecord }
        await right(h.port.complete(holderOf(takeover.record), card, dateAt(31_000 + DAY)))
        const completed = { ...takeover.record, state: 'completed' as const, outcome: card, expires_at: isoAt(31_000 + DAY) }
        expect(await right(h.port.complete(holderOf(first()), { ok: true, value: 'stale' }, dateAt(32_000 + DAY)))).to.deep.equal(
          refused(completed),
        )
        expect(await right(h.port.claim(retry(33_000), dateAt(33_000)))).to.deep.equal(heldBy(completed))
      })

      it('refuses a holder whose lease token or attempt is not the record’s', async () => {
        const record = first()
        await right(h.port.claim(record, dateAt(0)))
        expect(await right(h.port.complete({ ...holderOf(record), attempt: 2 }, card, dateAt(DAY)))).to.deep.equal(refused(record))
        expect(await right(h.port.complete({ ...holderOf(record), lease: 'lease-other' }, card, dateAt(DAY)))).to.deep.equal(
          refused(record),
        )
        expect(await right(h.port.complete({ ...holderOf(record), merchantAccountId: MERCHANT_B }, card, dateAt(DAY)))).to.deep.equal(
          refused(null),
        )
        expect(await right(h.port.claim(second(5), dateAt(5)))).to.deep.equal(heldBy(record))
      })

      it('refuses to complete a key nobody holds, and does not create it', async () => {
        expect(await right(h.port.complete(holderOf(first()), card, dateAt(DAY)))).to.deep.equal(refused(null))
        expect(await right(h.port.claim(second(5), dateAt(5)))).to.deep.equal(claimed(second(5)))
      })
    })

    describe('find', () => {
      const account = first().merchant_account_id

      it('reads the record under a key as stored: in flight, released, completed; none for another key or account', async () => {
        expect(await right(h.port.find(account, KEY))).to.deep.equal(O.none)
        await right(h.port.claim(first(), dateAt(0)))
        expect(await right(h.port.find(account, KEY))).to.deep.equal(O.some(first()))
        await right(h.port.release(holderOf(first()), dateAt(5)))
        // Its lease over, it is kept for a retry's ids: still found.
        expect(await right(h.port.find(account, KEY))).to.deep.equal(O.some(first({ expires_at: isoAt(5) })))
        const again = await right(h.port.claim(retry(10), dateAt(10)))
        if (!again.claimed) throw new Error('not taken over')
        await right(h.port.complete(holderOf(again.record), card, dateAt(DAY)))
        const completed = { ...again.record, state: 'completed' as const, outcome: card, expires_at: isoAt(DAY) }
        expect(await right(h.port.find(account, KEY))).to.deep.equal(O.some(completed))
        expect(await right(h.port.find(MERCHANT_B, KEY))).to.deep.equal(O.none)
        expect(await right(h.port.find(account, `${KEY}-other`))).to.deep.equal(O.none)
      })

      it('changes nothing: the key stays held as it was', async () => {
        await right(h.port.claim(first(), dateAt(0)))
        await right(h.port.find(account, KEY))
        expect(await right(h.port.claim(second(10), dateAt(10)))).to.deep.equal(heldBy(first()))
        expect(await right(h.port.complete(holderOf(first()), card, dateAt(DAY)))).to.deep.equal(settled)
      })
    })

    describe('release', () => {
      it('frees the key for another request', async () => {
        await right(h.port.claim(first(), dateAt(0)))
        expect(await right(h.port.release(holderOf(first()), dateAt(5)))).to.deep.equal(settled)
        const again = { ...second(10), attempt: 2 }
        expect(await right(h.port.claim(second(10), dateAt(10)))).to.deep.equal(claimed(again))
        expect(await right(h.port.claim(second(20, { fingerprint: 'third-request' }), dateAt(20)))).to.deep.equal(heldBy(again))
      })

      it('keeps the reserved id for a retry of the same request', async () => {
        await right(h.port.claim(first(), dateAt(0)))
        await right(h.port.release(holderOf(first()), dateAt(5)))
        expect(await right(h.port.claim(retry(10), dateAt(10)))).to.deep.equal(
          claimed({ ...retry(10), attempt: 2, earlier_ids: ['reserved-first'] }),
        )
      })

      it("touches only its own account's key", async () => {
        const theirs = first({ merchant_account_id: MERCHANT_B })
        await right(h.port.claim(theirs, dateAt(0)))
        expect(await right(h.port.release(holderOf(first()), dateAt(5)))).to.deep.equal(refused(null))
        expect(await right(h.port.claim(second(10, { merchant_account_id: MERCHANT_B }), dateAt(10)))).to.deep.equal(heldBy(theirs))
      })

      it('of a key nobody holds is refused, and changes nothing', async () => {
        expect(await right(h.port.release(holderOf(first()), dateAt(0)))).to.deep.equal(refused(null))
        expect(await right(h.port.claim(first(), dateAt(0)))).to.deep.equal(claimed(first()))
      })

      it("refuses a stale holder's release, leaving the new holder's claim live", async () => {
        await right(h.port.claim(first(), dateAt(0)))
        const takeover = { ...retry(30_000), attempt: 2, earlier_ids: ['reserved-first'] }
        await right(h.port.claim(retry(30_000), dateAt(30_000)))
        expect(await right(h.port.release(holderOf(first()), dateAt(31_000)))).to.deep.equal(refused(takeover))
        expect(await right(h.port.claim(retry(32_000), dateAt(32_000)))).to.deep.equal(heldBy(takeover))
      })

      it('refuses to release a completed record, which goes on replaying', async () => {
        await right(h.port.claim(first(), dateAt(0)))
        await right(h.port.complete(holderOf(first()), card, dateAt(DAY)))
        const completed = { ...first(), state: 'completed' as const, outcome: card, expires_at: isoAt(DAY) }
        expect(await right(h.port.release(holderOf(first()), dateAt(10)))).to.deep.equal(refused(completed))
        expect(await right(h.port.claim(retry(20), dateAt(20)))).to.deep.equal(heldBy(completed))
      })
    })
  })
