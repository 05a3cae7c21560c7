import { expect } from 'chai'
import { expectConsistent, right } from '@orka/domain/testing'
import { connectMongo, MongoGiftCardLedger } from '../src'
import { freshStore, FreshStore, MONGODB_URI } from './support'

describe('MongoGiftCardLedger across instances', () => {
  let f: FreshStore
  beforeEach(async () => {
    f = await freshStore()
  })
  afterEach(() => f.teardown())

  it('lets 64 debits of one card from two instances take exactly what its balance covers', async () => {
    const other = await connectMongo(MONGODB_URI, { dbName: f.store.dbName })
    try {
      const ledgers = [new MongoGiftCardLedger(f.store), new MongoGiftCardLedger(other)]
      const opening = 10_000
      const outcomes = await Promise.all(
        Array.from({ length: 64 }, (_, i) => right(ledgers[i % 2]!.debit({ card: 'one-card', opening, amount: 700, reference: `r-${i}` }))),
      )
      const taken = outcomes.filter((o) => o._tag === 'Debited').length
      expect(taken).to.equal(Math.floor(opening / 700))
      const balance = await right(ledgers[1]!.balance('one-card', opening))
      expect(balance).to.equal(opening - taken * 700)
      expectConsistent(await right(ledgers[0]!.entries('one-card')), opening, balance)
    } finally {
      await other.close()
    }
  })
})
