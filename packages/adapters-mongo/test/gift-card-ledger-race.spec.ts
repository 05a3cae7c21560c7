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

  it('moves a card on from what another instance wrote, though it keeps the latest entry it saw: no debit past the balance, no refusal the balance covers', async () => {
    const other = await connectMongo(MONGODB_URI, { dbName: f.store.dbName })
    try {
      const [a, b] = [new MongoGiftCardLedger(f.store), new MongoGiftCardLedger(other)]
      const move = async (l: MongoGiftCardLedger, amount: number, reference: string): Promise<unknown> =>
        amount < 0
          ? right(l.debit({ card: 'c', opening: 1000, amount: -amount, reference }))
          : right(l.credit({ card: 'c', opening: 1000, amount, reference }))
      expect(await move(a, -1000, 'a-1')).to.deep.equal({
        _tag: 'Debited',
        entry: { card: 'c', seq: 1, reference: 'a-1', amount: -1000, balance: 0 },
      })
      // A keeps balance 0 at seq 1; B credits 600, so A's kept entry is stale both ways.
      expect(await move(b, 600, 'b-1')).to.deep.equal({ card: 'c', seq: 2, reference: 'b-1', amount: 600, balance: 600 })
      expect(await move(a, -500, 'a-2'), 'covered by what B credited').to.deep.equal({
        _tag: 'Debited',
        entry: { card: 'c', seq: 3, reference: 'a-2', amount: -500, balance: 100 },
      })
      // B keeps balance 600 at seq 2: its debit of 500 is not covered any more.
      expect(await move(b, -500, 'b-2')).to.deep.equal({ _tag: 'Insufficient', balance: 100 })
      expect(await move(b, 50, 'b-3')).to.deep.equal({ card: 'c', seq: 4, reference: 'b-3', amount: 50, balance: 150 })
      // A replay on a stale instance answers the entry its reference has.
      expect(await move(a, -500, 'a-2')).to.deep.equal({
        _tag: 'Debited',
        entry: { card: 'c', seq: 3, reference: 'a-2', amount: -500, balance: 100 },
      })
      expect(await move(a, -150, 'a-3')).to.deep.equal({
        _tag: 'Debited',
        entry: { card: 'c', seq: 5, reference: 'a-3', amount: -150, balance: 0 },
      })
      expectConsistent(await right(b.entries('c')), 1000, 0)
    } finally {
      await other.close()
    }
  })
})
