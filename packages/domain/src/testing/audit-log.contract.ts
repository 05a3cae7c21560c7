import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { AuditRecord, auditSortKey } from '../audit/audit-entry'
import { AuditFilter, AuditLog } from '../audit/audit.ports'
import { Seek } from '../pagination/page'
import { dateAt, isoAt, MERCHANT_A, MERCHANT_B, nextUuid, uuidFor } from './fixtures'
import { at, Harness, right, teardownHarness } from './harness'
import { keysetBehaviour } from './keyset'

/** A pending record of a buyer created in account A; unique by id. */
export const anAuditRecord = (o: Partial<AuditRecord> = {}): AuditRecord => ({
  id: nextUuid(),
  merchant_account_id: MERCHANT_A,
  resource: { type: 'buyer', id: uuidFor(300), name: 'Ada Lovelace' },
  action: 'created',
  user: { id: uuidFor(400), name: 'key-0123abcd' },
  timestamp: isoAt(0),
  committed: false,
  check: { probe: 'buyer-present', id: uuidFor(300), witness: null },
  changes: null,
  ...o,
})

/** The record as listed once committed: its check is needed only while it is pending. */
export const committedAuditRecord = (r: AuditRecord): AuditRecord => ({ ...r, committed: true, check: null })

const CHECK = anAuditRecord().check
const all: Seek = { direction: 'forward', from: O.none, limit: 100 }
const ALWAYS = dateAt(365 * 24 * 3600_000)

export const auditLogContract = (name: string, setup: () => Promise<Harness<AuditLog>>) =>
  describe(`AuditLog: ${name}`, () => {
    let h: Harness<AuditLog>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    const list = (filter: AuditFilter = {}, seek = all, account = MERCHANT_A) => right(h.port.list(account, filter, seek))
    const pending = () => right(h.port.pendingBefore(ALWAYS, 100))
    const addCommitted = async (rs: readonly AuditRecord[]) => {
      for (const r of rs) {
        await right(h.port.add(r))
        await right(h.port.commit(r.id))
      }
    }

    describe('add, commit and drop', () => {
      it('adding a record with a stored id again changes nothing, pending or committed', async () => {
        const r = anAuditRecord()
        await right(h.port.add(r))
        await right(h.port.add({ ...r, action: 'deleted', timestamp: isoAt(5) }))
        expect(await pending()).to.deep.equal([r])
        await right(h.port.commit(r.id))
        await right(h.port.add(r))
        expect(await pending()).to.deep.equal([])
        expect(await list()).to.deep.equal([committedAuditRecord(r)])
      })

      it('never lists a pending record; commit lists it, its check cleared', async () => {
        const r = anAuditRecord()
        await right(h.port.add(r))
        expect(await list()).to.deep.equal([])
        await right(h.port.commit(r.id))
        expect(await list()).to.deep.equal([committedAuditRecord(r)])
      })

      it('keeps the names of what an update changed', async () => {
        const r = anAuditRecord({ action: 'updated', changes: ['display_name', 'fields.api_key'] })
        await addCommitted([r])
        expect(await list()).to.deep.equal([committedAuditRecord(r)])
      })

      it('commits an absent or committed record without a change or an error', async () => {
        const r = anAuditRecord()
        await right(h.port.commit(r.id))
        expect(await list()).to.deep.equal([])
        await addCommitted([r])
        await right(h.port.commit(r.id))
        expect(await list()).to.deep.equal([committedAuditRecord(r)])
      })

      it('drops a pending record, never a committed one', async () => {
        const [gone, kept] = [anAuditRecord({ timestamp: isoAt(1) }), anAuditRecord({ timestamp: isoAt(2) })]
        await right(h.port.add(gone))
        await addCommitted([kept])
        await right(h.port.drop(gone.id))
        await right(h.port.drop(kept.id))
        await right(h.port.drop(uuidFor(1)))
        expect(await pending()).to.deep.equal([])
        expect(await list()).to.deep.equal([committedAuditRecord(kept)])
        // Dropped means gone: its id can be added afresh.
        await right(h.port.add(gone))
        expect(await pending()).to.deep.equal([gone])
      })
    })

    describe('addAll', () => {
      it('stores each record as add does, in one call; ids stored already change nothing, and none is fine', async () => {
        const stored = anAuditRecord({ timestamp: isoAt(1) })
        await addCommitted([stored])
        const [a, b] = [anAuditRecord({ timestamp: isoAt(2) }), anAuditRecord({ timestamp: isoAt(3), committed: true, check: null })]
        await right(h.port.addAll([a, b, { ...stored, action: 'deleted' }]))
        await right(h.port.addAll([{ ...a, committed: true, check: null }]))
        await right(h.port.addAll([]))
        expect(await pending()).to.deep.equal([a])
        expect(await list()).to.deep.equal([b, committedAuditRecord(stored)])
      })
    })

    describe('pendingBefore', () => {
      it('returns pending records from before the instant only, oldest first, up to the limit', async () => {
        const rs = [3, 1, 2, 9].map((n) => anAuditRecord({ id: uuidFor(n), timestamp: isoAt(n * 1000) }))
        for (const r of rs) await right(h.port.add(r))
        await addCommitted([anAuditRecord({ timestamp: isoAt(500) })])
        await right(h.port.add(anAuditRecord({ merchant_account_id: null, id: uuidFor(4), timestamp: isoAt(2500) })))
        const ids = async (before: number, limit: number) => (await right(h.port.pendingBefore(dateAt(before), limit))).map((r) => r.id)
        expect(await ids(3000, 10)).to.deep.equal([uuidFor(1), uuidFor(2), uuidFor(4)])
        expect(await ids(3001, 2)).to.deep.equal([uuidFor(1), uuidFor(2)])
        expect(await ids(1000, 10)).to.deep.equal([])
        expect(await right(h.port.pendingBefore(dateAt(1001), 10))).to.deep.equal([at(rs, 1)])
      })
    })

    describe('list', () => {
      keysetBehaviour({
        order: 'descending',
        ties: true,
        make: (timestamp, id) => committedAuditRecord(anAuditRecord({ id, timestamp })),
        keyOf: auditSortKey,
        sortValue: (i) => isoAt(i * 60_000),
        store: async (rs) => {
          // Another account's, instance-wide and pending records share the instants and never show.
          for (const [i, r] of rs.entries()) {
            await addCommitted([
              anAuditRecord({ id: uuidFor(800 + i), merchant_account_id: MERCHANT_B, timestamp: r.timestamp }),
              anAuditRecord({ id: uuidFor(900 + i), merchant_account_id: null, timestamp: r.timestamp }),
            ])
            await right(h.port.add(anAuditRecord({ id: uuidFor(700 + i), timestamp: r.timestamp })))
          }
          await addCommitted(rs.map((r) => ({ ...r, committed: false, check: CHECK })))
        },
        read: (seek) => list({}, seek),
      })

      it("lists one account's records only: never another account's or an instance-wide one", async () => {
        const mine = anAuditRecord()
        const theirs = anAuditRecord({ merchant_account_id: MERCHANT_B })
        await addCommitted([mine, theirs, anAuditRecord({ merchant_account_id: null })])
        expect(await list()).to.deep.equal([committedAuditRecord(mine)])
        expect(await list({}, all, MERCHANT_B)).to.deep.equal([committedAuditRecord(theirs)])
      })

      describe('filters', () => {
        // Newest first: index i has timestamp isoAt(-i).
        const rs = [
          { action: 'created', user: { id: uuidFor(41), name: 'key-a' }, type: 'buyer' },
          { action: 'updated', user: { id: uuidFor(41), name: 'key-a' }, type: 'buyer' },
          { action: 'created', user: { id: uuidFor(42), name: 'key-b' }, type: 'gift-card' },
          { action: 'deleted', user: { id: null, name: 'cli' }, type: 'buyer' },
          { action: 'created', user: { id: uuidFor(41), name: 'key-a' }, type: 'gift-card' },
        ].map(({ action, user, type }, i) =>
          anAuditRecord({ action, user, resource: { type, id: uuidFor(500 + i), name: `r${i}` }, timestamp: isoAt(-i) }),
        )
        const listed = (...is: number[]) => is.map((i) => committedAuditRecord(at(rs, i)))

        beforeEach(async () => {
          await addCommitted(rs)
          // Matching every filter, yet pending or another account's.
          await right(h.port.add(anAuditRecord({ user: { id: uuidFor(41), name: 'key-a' } })))
          await addCommitted([anAuditRecord({ merchant_account_id: MERCHANT_B, user: { id: uuidFor(41), name: 'key-a' } })])
        })

        it('by action, user id or resource type, each alone', async () => {
          expect(await list({ action: 'created' })).to.deep.equal(listed(0, 2, 4))
          expect(await list({ action: 'deleted' })).to.deep.equal(listed(3))
          expect(await list({ action: 'voided' })).to.deep.equal([])
          expect(await list({ user_id: uuidFor(41) })).to.deep.equal(listed(0, 1, 4))
          expect(await list({ user_id: 'key-a' })).to.deep.equal([])
          expect(await list({ resource_type: 'gift-card' })).to.deep.equal(listed(2, 4))
          expect(await list({ resource_type: 'refund' })).to.deep.equal([])
        })

        it('by every given field at once', async () => {
          expect(await list({ action: 'created', user_id: uuidFor(41) })).to.deep.equal(listed(0, 4))
          expect(await list({ action: 'created', resource_type: 'gift-card' })).to.deep.equal(listed(2, 4))
          expect(await list({ user_id: uuidFor(41), resource_type: 'buyer' })).to.deep.equal(listed(0, 1))
          expect(await list({ action: 'created', user_id: uuidFor(41), resource_type: 'gift-card' })).to.deep.equal(listed(4))
          expect(await list({ action: 'deleted', user_id: uuidFor(41), resource_type: 'buyer' })).to.deep.equal([])
        })

        it('pages a filtered list by keyset, both ways', async () => {
          const filter = { action: 'created' }
          const first = await list(filter, { direction: 'forward', from: O.none, limit: 2 })
          expect(first).to.deep.equal(listed(0, 2))
          const next = await list(filter, { direction: 'forward', from: O.some(auditSortKey(at(first, 1))), limit: 2 })
          expect(next).to.deep.equal(listed(4))
          const back = await list(filter, { direction: 'backward', from: O.some(auditSortKey(at(next, 0))), limit: 2 })
          expect(back).to.deep.equal(listed(2, 0))
        })
      })
    })

    describe('sweep', () => {
      it('deletes the records, pending or committed, from before the instant, says how many and keeps the rest', async () => {
        const stamped = (ms: number) => anAuditRecord({ timestamp: isoAt(ms) })
        const edge = stamped(2000)
        const recent = stamped(5000)
        await addCommitted([stamped(1000), edge, anAuditRecord({ merchant_account_id: null, timestamp: isoAt(100) })])
        await right(h.port.add(stamped(1500)))
        await right(h.port.add(recent))
        expect(await right(h.port.sweep(dateAt(2000)))).to.equal(3)
        expect(await list()).to.deep.equal([committedAuditRecord(edge)])
        expect(await pending()).to.deep.equal([recent])
        expect(await right(h.port.sweep(dateAt(2000)))).to.equal(0)
      })
    })
  })
