import { expect } from 'chai'
import { IdempotencyRecord, IdempotencyStore, StoredOutcome } from '../idempotency/idempotency'
import { anIdempotencyRecord, dateAt, isoAt, MERCHANT_A, MERCHANT_B } from './fixtures'
import { Harness, right } from './harness'

const KEY = 'POST /gift-cards/activations\u0000b8f2e0f4-3c1a-4d2e-9f10-6a7b8c9d0e1f'
const claimed = { claimed: true }
const heldBy = (existing: IdempotencyRecord) => ({ claimed: false, existing })

export const idempotencyStoreContract = (name: string, setup: () => Promise<Harness<IdempotencyStore>>) =>
  describe(`IdempotencyStore: ${name}`, () => {
    let h: Harness<IdempotencyStore>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(async () => h?.teardown())

    // A claim made at t=0 whose lease ends at t=30 s.
    const first = (o: Partial<IdempotencyRecord> = {}) =>
      anIdempotencyRecord({ key: KEY, fingerprint: 'first-request', created_at: isoAt(0), expires_at: isoAt(30_000), ...o })
    const second = (at: number, o: Partial<IdempotencyRecord> = {}) =>
      anIdempotencyRecord({ key: KEY, fingerprint: 'second-request', created_at: isoAt(at), expires_at: isoAt(at + 30_000), ...o })

    it('claims a free key', async () => {
      expect(await right(h.port.claim(first(), dateAt(0)))).to.deep.equal(claimed)
    })

    it('answers a second claim of a live key with the record holding it', async () => {
      const record = first()
      await right(h.port.claim(record, dateAt(0)))
      expect(await right(h.port.claim(second(10), dateAt(10)))).to.deep.equal(heldBy(record))
      expect(await right(h.port.claim(second(29_999), dateAt(29_999)))).to.deep.equal(heldBy(record))
    })

    it('replaces a record whose expires_at is not after now', async () => {
      await right(h.port.claim(first(), dateAt(0)))
      const takeover = second(30_000)
      expect(await right(h.port.claim(takeover, dateAt(30_000)))).to.deep.equal(claimed)
      expect(await right(h.port.claim(second(30_001, { fingerprint: 'third-request' }), dateAt(30_001)))).to.deep.equal(heldBy(takeover))
    })

    it('keeps keys of different accounts and different keys apart', async () => {
      const ours = first()
      await right(h.port.claim(ours, dateAt(0)))
      const theirs = second(1, { merchant_account_id: MERCHANT_B })
      expect(await right(h.port.claim(theirs, dateAt(1)))).to.deep.equal(claimed)
      expect(await right(h.port.claim(second(2, { key: `${KEY}-other` }), dateAt(2)))).to.deep.equal(claimed)
      expect(await right(h.port.claim(second(3), dateAt(3)))).to.deep.equal(heldBy(ours))
      expect(await right(h.port.claim(second(3, { merchant_account_id: MERCHANT_B, fingerprint: 'x' }), dateAt(3)))).to.deep.equal(heldBy(theirs))
    })

    it('release frees the key', async () => {
      await right(h.port.claim(first(), dateAt(0)))
      await right(h.port.release(MERCHANT_A, KEY))
      const again = second(10)
      expect(await right(h.port.claim(again, dateAt(10)))).to.deep.equal(claimed)
      expect(await right(h.port.claim(second(20, { fingerprint: 'third-request' }), dateAt(20)))).to.deep.equal(heldBy(again))
    })

    it("release touches only its own account's key", async () => {
      const theirs = first({ merchant_account_id: MERCHANT_B })
      await right(h.port.claim(theirs, dateAt(0)))
      await right(h.port.release(MERCHANT_A, KEY))
      expect(await right(h.port.claim(second(10, { merchant_account_id: MERCHANT_B }), dateAt(10)))).to.deep.equal(heldBy(theirs))
    })

    it('release of a key nobody holds succeeds', async () => {
      await right(h.port.release(MERCHANT_A, KEY))
      expect(await right(h.port.claim(first(), dateAt(0)))).to.deep.equal(claimed)
    })

    it('complete stores the outcome and how long it is replayed', async () => {
      const record = first()
      await right(h.port.claim(record, dateAt(0)))
      const outcome: StoredOutcome = { ok: true, value: { id: '5b7d5e2c-0f0e-4a57-9c2b-3d1e4f5a6b7c', bin: '603628', usage_count: 0, buyer: null } }
      await right(h.port.complete(MERCHANT_A, KEY, outcome, dateAt(86_400_000)))
      const completed: IdempotencyRecord = { ...record, state: 'completed', outcome, expires_at: isoAt(86_400_000) }
      // Well past the in-flight lease, the completed record still holds the key.
      expect(await right(h.port.claim(second(60_000), dateAt(60_000)))).to.deep.equal(heldBy(completed))
    })

    it('complete stores a failure outcome', async () => {
      const record = first()
      await right(h.port.claim(record, dateAt(0)))
      const outcome: StoredOutcome = { ok: false, error: { _tag: 'CardDeclined', reason: 'The gift card was declined' } }
      await right(h.port.complete(MERCHANT_A, KEY, outcome, dateAt(3_600_000)))
      expect(await right(h.port.claim(second(5), dateAt(5)))).to.deep.equal(heldBy({ ...record, state: 'completed', outcome, expires_at: isoAt(3_600_000) }))
    })

    it('frees a completed key once its replay period is over', async () => {
      await right(h.port.claim(first(), dateAt(0)))
      await right(h.port.complete(MERCHANT_A, KEY, { ok: true, value: null }, dateAt(3_600_000)))
      const later = second(3_600_000)
      expect(await right(h.port.claim(later, dateAt(3_600_000)))).to.deep.equal(claimed)
      expect(await right(h.port.claim(second(3_600_001, { fingerprint: 'third-request' }), dateAt(3_600_001)))).to.deep.equal(heldBy(later))
    })

    it('lets exactly one of 20 concurrent claims of a key through', async () => {
      const records = Array.from({ length: 20 }, (_, i) => second(0, { fingerprint: `request-${i}` }))
      const results = await Promise.all(records.map((r) => right(h.port.claim(r, dateAt(0)))))
      const winners = records.filter((_, i) => results[i]!.claimed)
      expect(winners).to.have.length(1)
      expect(results.filter((r) => !r.claimed)).to.deep.equal(Array.from({ length: 19 }, () => heldBy(winners[0]!)))
    })
  })
