import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { Seek, TransactionRecord } from '@orka/domain'
import { aTransactionRecord, dateAt, isoAt, MERCHANT_A, right, uuidFor } from '@orka/domain/testing'
import { MongoTransactionStore } from '../src'
import { clientOf, dbOf } from '../src/mongo-database'
import { COLLECTIONS } from '../src/mongo-schema'
import { MARK_EVERY_MS } from '../src/superseded-marks'
import { toTransactionVersionDocument, TransactionVersionDocument } from '../src/transaction-version.document'
import { freshStore, FreshStore } from './support'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const FIRST: Seek = { direction: 'forward', from: O.none, limit: 100 }
const then = (r: TransactionRecord, o: Partial<TransactionRecord>): TransactionRecord => ({ ...r, version: r.version + 1, ...o })

/**
 * Versions are marked superseded in batches, off the writers' path: lists and recovery must be
 * right whether a mark has landed yet or never will (a process that stopped first).
 */
describe('MongoTransactionStore: versions not yet marked superseded', () => {
  let f: FreshStore
  let store: MongoTransactionStore
  const updates: string[] = []
  beforeEach(async () => {
    f = await freshStore({ monitorCommands: true })
    store = new MongoTransactionStore(f.store)
    updates.length = 0
    clientOf(f.store).on('commandStarted', (e) => {
      if (e.commandName === 'update') updates.push(e.commandName)
    })
  })
  afterEach(() => f.teardown())

  /** Versions written as a process that stopped before marking leaves them. */
  const unmarked = async (...rs: TransactionRecord[]) => {
    await dbOf(f.store)
      .collection<TransactionVersionDocument>(COLLECTIONS.transactionVersions)
      .insertMany(rs.map((r) => toTransactionVersionDocument(r)))
  }
  const list = async (filter: Parameters<MongoTransactionStore['list']>[1], seek = FIRST) =>
    (await right(store.list(MERCHANT_A, filter, seek))).map((r) => [r.id, r.version])

  it('lists each transaction once, as its newest version, whatever the filter', async () => {
    const v0 = aTransactionRecord({ status: 'processing', pending: true })
    const v1 = then(v0, { status: 'authorization_succeeded', pending: false })
    const v2 = then(v1, { status: 'capture_succeeded' })
    await unmarked(v0, v1, v2)
    expect(await list({})).to.deep.equal([[v0.id, 2]])
    expect(await list({ status: ['processing'] })).to.deep.equal([])
    expect(await list({ status: ['authorization_succeeded'] })).to.deep.equal([])
    expect(await list({ status: ['capture_succeeded', 'processing'] })).to.deep.equal([[v0.id, 2]])
  })

  it('reads on when one transaction’s versions fill a batch, and pages through them', async () => {
    const newer = aTransactionRecord({ id: uuidFor(2), created_at: isoAt(1000) })
    const versions = [newer]
    for (let i = 0; i < 6; i++) versions.push(then(versions.at(-1)!, { external_identifier: `v${i + 1}` }))
    const older = aTransactionRecord({ id: uuidFor(1), created_at: isoAt(0) })
    await unmarked(...versions, older, then(older, {}))
    // A limit of 1 reads 4 versions a batch: the first batch is all `newer`'s.
    const first = await list({}, { direction: 'forward', from: O.none, limit: 1 })
    expect(first).to.deep.equal([[newer.id, 6]])
    expect(await list({}, { direction: 'forward', from: O.some([isoAt(1000), newer.id]), limit: 1 })).to.deep.equal([[older.id, 1]])
    expect(await list({}, { direction: 'backward', from: O.some([isoAt(0), older.id]), limit: 1 })).to.deep.equal([[newer.id, 6]])
    expect(await list({}, { direction: 'forward', from: O.none, limit: 2 })).to.deep.equal([
      [newer.id, 6],
      [older.id, 1],
    ])
  })

  it('leaves out of recovery a pending version a newer one superseded, and marks it then', async () => {
    const stuck = aTransactionRecord({ status: 'processing', pending: true, updated_at: isoAt(0) })
    const settled = aTransactionRecord({ status: 'processing', pending: true, updated_at: isoAt(0) })
    await unmarked(stuck, settled, then(settled, { status: 'authorization_failed', pending: false, updated_at: isoAt(1) }))
    expect((await right(store.stale(dateAt(60_000), 10))).map((r) => r.id)).to.deep.equal([stuck.id])
    await sleep(MARK_EVERY_MS + 300)
    const marked = await dbOf(f.store)
      .collection<TransactionVersionDocument>(COLLECTIONS.transactionVersions)
      .find({ superseded: true }, { projection: { transaction_id: 1, version: 1 } })
      .toArray()
    expect(marked.map((d) => [d.transaction_id, d.version])).to.deep.equal([[settled.id, 0]])
  })

  it('marks the versions written meanwhile in one command, off the writers’ path', async () => {
    const rs = Array.from({ length: 5 }, () => aTransactionRecord({ status: 'processing', pending: true }))
    for (const r of rs) {
      await right(store.put(r))
      await right(store.put(then(r, { status: 'authorization_succeeded', pending: false })))
    }
    expect(updates).to.deep.equal([])
    await sleep(MARK_EVERY_MS + 300)
    expect(updates).to.deep.equal(['update'])
    const docs = await dbOf(f.store)
      .collection<TransactionVersionDocument>(COLLECTIONS.transactionVersions)
      .find({}, { projection: { version: 1, superseded: 1 } })
      .toArray()
    expect(docs.map((d) => [d.version, d.superseded]).sort()).to.deep.equal(
      [...rs.map(() => [0, true]), ...rs.map(() => [1, false])].sort(),
    )
  })
})
