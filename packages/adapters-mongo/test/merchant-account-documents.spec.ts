import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { MerchantAccount, merchantAccountSortKey, Seek } from '@orka/domain'
import { aMerchantAccount, isoAt, left, right } from '@orka/domain/testing'
import { dbOf } from '../src/mongo-database'
import { COLLECTIONS } from '../src/mongo-schema'
import { MongoMerchantAccountRepository } from '../src'
import { freshStore, FreshStore } from './support'

const all: Seek = { direction: 'forward', from: O.none, limit: 100 }
const from = (a: MerchantAccount) => O.some(merchantAccountSortKey(a))

describe('MongoDB merchant account documents', () => {
  let f: FreshStore | undefined // unset when `freshStore` failed
  let repo: MongoMerchantAccountRepository
  const raw = () => dbOf(f!.store).collection<{ _id: string; [k: string]: unknown }>(COLLECTIONS.merchantAccounts)

  beforeEach(async () => {
    f = await freshStore()
    repo = new MongoMerchantAccountRepository(f.store)
  })
  afterEach(async () => f?.teardown())

  it('keeps the sort field beside the record: created_at, else the epoch, without adding a created_at', async () => {
    const dated = aMerchantAccount({ created_at: isoAt(0) })
    const undated = aMerchantAccount()
    await right(repo.create(dated))
    await right(repo.upsert(undated))
    expect(await raw().findOne({ _id: dated.id })).to.deep.equal({
      _id: dated.id,
      display_name: dated.display_name,
      locked: false,
      created_at: isoAt(0),
      listed_at: isoAt(0),
    })
    expect(await raw().findOne({ _id: undated.id })).to.deep.equal({
      _id: undated.id,
      display_name: undated.display_name,
      locked: false,
      listed_at: '1970-01-01T00:00:00.000Z',
    })
    expect(await right(repo.find(undated.id))).to.deep.equal(O.some(undated))
  })

  it('lists accounts stored before they were listed (no listed_at) as created at the epoch, in id order among the rest', async () => {
    // Written by an earlier version: id, display_name and locked only.
    const legacyLow = aMerchantAccount({ id: 'a-legacy' })
    const legacyHigh = aMerchantAccount({ id: 'y-legacy' })
    for (const { id, ...rest } of [legacyLow, legacyHigh]) await raw().insertOne({ _id: id, ...rest })
    const undated = aMerchantAccount({ id: 'm-undated' })
    const dated = aMerchantAccount({ id: 'b-dated', created_at: isoAt(0) })
    await right(repo.upsert(undated))
    await right(repo.create(dated))
    const expected = [dated, legacyHigh, undated, legacyLow]
    expect(await right(repo.list(all))).to.deep.equal(expected)
    expect(await right(repo.list({ direction: 'forward', from: O.none, limit: 2 }))).to.deep.equal([dated, legacyHigh])
    expect(await right(repo.list({ direction: 'forward', from: from(legacyHigh), limit: 1 }))).to.deep.equal([undated])
    expect(await right(repo.list({ direction: 'forward', from: from(dated), limit: 10 }))).to.deep.equal(expected.slice(1))
    expect(await right(repo.list({ direction: 'backward', from: from(undated), limit: 10 }))).to.deep.equal([legacyHigh, dated])
    expect(await right(repo.list({ direction: 'backward', from: O.none, limit: 2 }))).to.deep.equal([legacyLow, undated])
    // An upsert through this version gives it the field; it lists in the same place.
    await right(repo.upsert(legacyHigh))
    expect(await raw().findOne({ _id: legacyHigh.id })).to.have.property('listed_at', '1970-01-01T00:00:00.000Z')
    expect(await right(repo.list(all))).to.deep.equal(expected)
  })

  it('lists no account it cannot decode: Unavailable naming the collection and _id, listed or stored before listing', async () => {
    for (const [id, extra] of [
      ['bad-listed', { listed_at: isoAt(0) }],
      ['bad-legacy', {}],
    ] as const) {
      await raw().deleteMany({})
      await raw().insertOne({ _id: id, display_name: 'Acme', locked: 'no', ...extra })
      const e = await left(repo.list(all))
      expect(e._tag).to.equal('Unavailable')
      expect((e.cause as Error).message)
        .to.include(COLLECTIONS.merchantAccounts)
        .and.to.include(JSON.stringify(id))
    }
  })
})
