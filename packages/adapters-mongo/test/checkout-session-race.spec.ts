import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { aCheckoutSessionRecord, aSessionCard, dateAt, MERCHANT_A, right } from '@orka/domain/testing'
import { connectMongo, MongoCheckoutSessionStore } from '../src'
import { checkoutSessionUseId } from '../src/checkout-session.document'
import { dbOf } from '../src/mongo-database'
import { COLLECTIONS } from '../src/mongo-schema'
import { freshStore, FreshStore, MONGODB_URI } from './support'

describe('MongoCheckoutSessionStore.takeCard across instances', () => {
  let f: FreshStore
  beforeEach(async () => {
    f = await freshStore()
  })
  afterEach(() => f.teardown())

  it('hands each card to exactly one of the takers of two instances racing on one database', async () => {
    const other = await connectMongo(MONGODB_URI, { dbName: f.store.dbName })
    try {
      const stores = [new MongoCheckoutSessionStore(f.store), new MongoCheckoutSessionStore(other)]
      const sessions = Array.from({ length: 10 }, () => aCheckoutSessionRecord({ card: aSessionCard() }))
      for (const s of sessions) await right(stores[0]!.create(s))
      // One session at a time, six takers at once: PostgreSQL under FerretDB has few connections to spare.
      const taken: string[] = []
      for (const s of sessions) {
        const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => right(stores[i % 2]!.takeCard(MERCHANT_A, s.id, dateAt(0)))))
        for (const a of answers) if (O.isSome(a)) taken.push(a.value.id)
      }
      expect(taken).to.deep.equal(sessions.map((s) => s.id))
    } finally {
      await other.close()
    }
  })

  it('never hands out a card whose use another taker recorded', async () => {
    const store = new MongoCheckoutSessionStore(f.store)
    const s = aCheckoutSessionRecord({ card: aSessionCard() })
    await right(store.create(s))
    const doc = await dbOf(f.store).collection<{ _id: string; card_nonce?: string }>(COLLECTIONS.checkoutSessions).findOne({ _id: s.id })
    // The use a taker that read the same card records (on FerretDB two takers may both read it).
    await dbOf(f.store)
      .collection<{ _id: string; expiresAt: Date }>(COLLECTIONS.checkoutSessionUses)
      .insertOne({ _id: checkoutSessionUseId(s.id, doc?.card_nonce ?? ''), expiresAt: new Date(s.expires_at) })
    expect(await right(store.takeCard(MERCHANT_A, s.id, dateAt(0)))).to.deep.equal(O.none)
    // A card put afterwards is a new card, to be taken once.
    const next = aSessionCard()
    await right(store.putCard(s.id, next, s.expires_at, dateAt(0)))
    expect(await right(store.takeCard(MERCHANT_A, s.id, dateAt(0)))).to.deep.equal(O.some({ ...s, card: next }))
    // The sweep reclaims the uses with the sessions.
    expect(await right(store.sweep(new Date(s.expires_at)))).to.equal(1)
    expect(await dbOf(f.store).collection(COLLECTIONS.checkoutSessionUses).countDocuments({})).to.equal(0)
  })
})
