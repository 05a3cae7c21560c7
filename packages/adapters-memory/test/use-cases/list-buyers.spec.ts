import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { Buyer, invalidRequest, makeCreateBuyer, makeListBuyers, problem, reconciliationId, makeRecordAudited } from '@orka/domain'
import { left, ManualClock, MERCHANT_A, MERCHANT_B, noWebhookEvents, right, SequentialIds, uuidFor } from '@orka/domain/testing'
import { MemoryBuyerRepository, MemoryAuditLog } from '../../src'
import { START, testMac, ACTOR } from './support'

const badCursor = invalidRequest(
  problem('cursor', [], 'The cursor is not valid for this list; use a cursor from the previous response', 'invalid_cursor'),
)

describe('makeListBuyers', () => {
  const setup = async () => {
    const clock = new ManualClock(START)
    const buyers = new MemoryBuyerRepository()
    const ids = new SequentialIds()
    const audited = makeRecordAudited({ audit: new MemoryAuditLog(), ids, clock })
    const create = makeCreateBuyer({ buyers, clock, ids, events: noWebhookEvents, audited })
    const made: Buyer[] = []
    // Seven buyers a minute apart, except buyers 2, 3 and 4, created in the same millisecond.
    for (const [i, ext] of ['crm-1', 'crm-2', 'vip-3', 'vip-4', 'vip-5', 'crm-6', null].entries()) {
      if (i !== 3 && i !== 4) clock.advance(60_000)
      made.push(
        await right(
          create({ merchantAccountId: MERCHANT_A, actor: ACTOR, input: { display_name: `Buyer ${i}`, external_identifier: ext } }),
        ),
      )
    }
    await right(create({ merchantAccountId: MERCHANT_B, actor: ACTOR, input: { external_identifier: 'crm-1' } }))
    return { list: makeListBuyers({ buyers, mac: testMac() }), made }
  }

  it("lists the account's buyers newest first, ties broken by id", async () => {
    const { list, made } = await setup()
    const page = await right(list({ merchantAccountId: MERCHANT_A, filter: {} }))
    // Buyers 2, 3 and 4 share created_at; ids grow with creation, so the latest id leads.
    expect(page).to.deep.equal({ items: [...made].reverse(), limit: 20, next_cursor: null, previous_cursor: null })
  })

  it('walks forward then back through identical pages', async () => {
    const { list, made } = await setup()
    const q = { merchantAccountId: MERCHANT_A, filter: {}, limit: 2 }
    const p1 = await right(list(q))
    const p2 = await right(list({ ...q, cursor: p1.next_cursor! }))
    const p3 = await right(list({ ...q, cursor: p2.next_cursor! }))
    const p4 = await right(list({ ...q, cursor: p3.next_cursor! }))
    expect([p1, p2, p3, p4].map((p) => p.items)).to.deep.equal([[6, 5], [4, 3], [2, 1], [0]].map((ix) => ix.map((i) => made[i])))
    expect(p4.next_cursor).to.equal(null)
    expect(await right(list({ ...q, cursor: p4.previous_cursor! }))).to.deep.equal(p3)
    expect(await right(list({ ...q, cursor: p3.previous_cursor! }))).to.deep.equal(p2)
    expect(await right(list({ ...q, cursor: p2.previous_cursor! }))).to.deep.equal(p1)
  })

  it('filters by external identifier', async () => {
    const { list, made } = await setup()
    expect((await right(list({ merchantAccountId: MERCHANT_A, filter: { external_identifier: 'vip-4' } }))).items).to.deep.equal([made[3]])
    expect(
      (await right(list({ merchantAccountId: MERCHANT_B, filter: { external_identifier: 'crm-1' } }))).items.map(
        (b) => b.merchant_account_id,
      ),
    ).to.deep.equal([MERCHANT_B])
  })

  it('binds the cursor to the filter it was made for', async () => {
    const { list } = await setup()
    const cursor = (await right(list({ merchantAccountId: MERCHANT_A, filter: {}, limit: 2 }))).next_cursor!
    expect(await left(list({ merchantAccountId: MERCHANT_A, filter: { external_identifier: 'crm-1' }, limit: 2, cursor }))).to.deep.equal(
      badCursor,
    )
    const filtered = await right(list({ merchantAccountId: MERCHANT_A, filter: { external_identifier: 'crm-6' }, limit: 1 }))
    expect(filtered.next_cursor).to.equal(null)
    const withCursor = (await right(list({ merchantAccountId: MERCHANT_A, filter: {}, limit: 1 }))).next_cursor!
    expect(
      await left(list({ merchantAccountId: MERCHANT_A, filter: { external_identifier: 'crm-6' }, limit: 1, cursor: withCursor })),
    ).to.deep.equal(badCursor)
  })

  it("rejects another merchant account's cursor", async () => {
    const { list } = await setup()
    const cursor = (await right(list({ merchantAccountId: MERCHANT_A, filter: {}, limit: 2 }))).next_cursor!
    expect(await left(list({ merchantAccountId: MERCHANT_B, filter: {}, limit: 2, cursor }))).to.deep.equal(badCursor)
  })
})

describe('makeCreateBuyer', () => {
  it('builds the buyer from the input, the clock and a fresh id, with its reconciliation id, and stores it', async () => {
    const buyers = new MemoryBuyerRepository()
    const clock = new ManualClock(START)
    const ids = new SequentialIds()
    const audited = makeRecordAudited({ audit: new MemoryAuditLog(), ids, clock })
    const create = makeCreateBuyer({ buyers, clock, ids, events: noWebhookEvents, audited })
    const expected: Buyer = {
      type: 'buyer',
      id: uuidFor(1),
      reconciliation_id: reconciliationId(uuidFor(1)),
      merchant_account_id: MERCHANT_A,
      display_name: 'Jane',
      external_identifier: null,
      billing_details: null,
      account_number: null,
      created_at: START.toISOString(),
      updated_at: START.toISOString(),
    }
    expect(await right(create({ merchantAccountId: MERCHANT_A, actor: ACTOR, input: { display_name: 'Jane' } }))).to.deep.equal(expected)
    expect(await right(buyers.findById(MERCHANT_A, uuidFor(1)))).to.deep.equal(O.some(expected))
  })
})
