import { expect } from 'chai'
import { Document } from 'mongodb'
import * as O from 'fp-ts/Option'
import { Seek, TransactionFilter, TransactionRecord } from '@orka/domain'
import { aTransactionRecord, isoAt, MERCHANT_A, right, uuidFor } from '@orka/domain/testing'
import { MongoTransactionStore } from '../src'
import { BoundedCollection } from '../src/mongo-collection'
import { clientOf, dbOf } from '../src/mongo-database'
import { COLLECTIONS } from '../src/mongo-schema'
import { TransactionVersionDocument } from '../src/transaction-version.document'
import { freshStore, FreshStore } from './support'

const FIRST: Seek = { direction: 'forward', from: O.none, limit: 100 }
const then = (r: TransactionRecord, o: Partial<TransactionRecord>): TransactionRecord => ({ ...r, version: r.version + 1, ...o })
const buyer = {
  type: 'buyer' as const,
  id: uuidFor(700),
  reconciliation_id: null,
  display_name: null,
  external_identifier: null,
  billing_details: null,
  account_number: null,
}

/**
 * A list reads a batch of unmarked versions, then which versions are their transactions'
 * newest. A version written between those reads made the batch's one not the newest while the
 * new one was not in the batch: the transaction was missing from the list (issue 34: a buyer's
 * list answered 38, then 37). These tests write at exactly that point, by running work before a
 * given read of the next list call.
 */
describe('MongoTransactionStore: a list while versions are written between its reads', () => {
  let f: FreshStore
  let store: MongoTransactionStore
  const finds: string[] = []
  // Put back after each test; `interleave` calls it with the collection as `this`.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const find = BoundedCollection.prototype.find
  beforeEach(async () => {
    f = await freshStore({ monitorCommands: true })
    store = new MongoTransactionStore(f.store)
    finds.length = 0
    clientOf(f.store).on('commandStarted', (e) => {
      if (e.commandName === 'find') finds.push(e.commandName)
    })
  })
  afterEach(async () => {
    BoundedCollection.prototype.find = find
    await f.teardown()
  })

  /** Runs `work[n]` before read n (1 the first) of a storage call, whose results it then sees. */
  const interleave = (work: Record<number, () => Promise<void>>) => {
    let reads = 0
    BoundedCollection.prototype.find = function <D extends Document>(
      this: BoundedCollection<D>,
      ...args: Parameters<BoundedCollection<D>['find']>
    ) {
      const cursor = find.apply(this, args) as ReturnType<BoundedCollection<D>['find']>
      const before = work[++reads]
      if (before === undefined) return cursor
      const toArray = cursor.toArray.bind(cursor)
      cursor.toArray = async () => {
        await before()
        return toArray()
      }
      return cursor
    }
  }
  const put = async (r: TransactionRecord) => {
    expect(await right(store.put(r)), `version ${r.version} of ${r.id} written`).to.equal(true)
  }
  const versions = () => dbOf(f.store).collection<TransactionVersionDocument>(COLLECTIONS.transactionVersions)
  /** What a mark of the versions before `version` does (the store's own marks come later, off this path). */
  const mark = async (id: string, version: number) => {
    await versions().updateMany({ transaction_id: id, version: { $lt: version } }, { $set: { superseded: true } })
  }
  const list = async (filter: TransactionFilter = { buyer_id: buyer.id }) => {
    finds.length = 0
    return (await right(store.list(MERCHANT_A, filter, FIRST))).map((r) => [r.id, r.version])
  }
  const three = () => [3, 2, 1].map((n) => aTransactionRecord({ id: uuidFor(n), created_at: isoAt(n * 1000), buyer }))

  it('lists a transaction written anew after its batch was read, once, in its newest version', async () => {
    const [c, b, a] = three()
    for (const r of [c!, b!, a!]) await put(r)
    interleave({ 2: () => put(then(b!, { status: 'capture_succeeded' })) })
    expect(await list()).to.deep.equal([
      [c!.id, 0],
      [b!.id, 1],
      [a!.id, 0],
    ])
    expect(finds, 'reads: the batch, the newest versions, the version written meanwhile').to.have.length(3)
  })

  it('lists it once when the version after is written and the one it saw marked meanwhile too', async () => {
    const [c, b, a] = three()
    for (const r of [c!, b!, a!]) await put(r)
    const b1 = then(b!, { status: 'capture_succeeded' })
    const b2 = then(b1, { external_identifier: 'two' })
    interleave({
      2: async () => {
        await put(b1)
        await put(b2)
        await mark(b!.id, 2)
      },
      3: async () => {
        await put(then(b2, { external_identifier: 'three' }))
        await mark(b!.id, 3)
      },
    })
    const listed = await list()
    expect(listed.map(([id]) => id)).to.deep.equal([c!.id, b!.id, a!.id])
    // The newest when the list checked which versions were newest; the next list shows version 3.
    expect(listed[1]).to.deep.equal([b!.id, 2])
    BoundedCollection.prototype.find = find
    expect((await list())[1]).to.deep.equal([b!.id, 3])
  })

  it('leaves out a transaction whose version written meanwhile no longer matches, keeps one that still does', async () => {
    const [c, b, a] = three()
    for (const r of [c!, b!, a!]) await put(r)
    interleave({
      2: async () => {
        await put(then(b!, { status: 'capture_succeeded' }))
        await put(then(a!, { external_identifier: 'still authorized' }))
      },
    })
    expect(await list({ status: ['authorization_succeeded'] })).to.deep.equal([
      [c!.id, 0],
      [a!.id, 1],
    ])
  })

  it('reads twice when nothing was written meanwhile, older versions not yet marked or not', async () => {
    const [c, b, a] = three()
    for (const r of [c!, b!, a!]) await put(r)
    await put(then(b!, { status: 'capture_succeeded' }))
    await put(then(a!, { external_identifier: 'x' }))
    expect(await list()).to.deep.equal([
      [c!.id, 0],
      [b!.id, 1],
      [a!.id, 1],
    ])
    expect(finds).to.have.length(2)
    await mark(b!.id, 1)
    await mark(a!.id, 1)
    expect(await list()).to.have.length(3)
    expect(finds).to.have.length(2)
  })
})
