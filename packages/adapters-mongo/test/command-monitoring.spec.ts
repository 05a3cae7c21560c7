import { expect } from 'chai'
import { MongoCommandDone } from '../src'
import { dbOf } from '../src/mongo-database'
import { freshStore } from './support'

describe('connectMongo onCommand (metrics)', () => {
  it('reports every command the driver completes: its name, duration and whether it succeeded', async () => {
    const seen: MongoCommandDone[] = []
    const { store, teardown } = await freshStore({ onCommand: (c) => seen.push(c) })
    try {
      // connectMongo's own ping, and the index builds on their own client, come before.
      seen.length = 0
      await dbOf(store).collection('monitored').insertOne({ a: 1 })
      await dbOf(store).collection('monitored').find({ a: 1 }).toArray()
      await dbOf(store)
        .command({ noSuchCommand: 1 })
        .catch(() => undefined)
      expect(seen.map((c) => [c.commandName, c.ok])).to.deep.equal([
        ['insert', true],
        ['find', true],
        ['noSuchCommand', false],
      ])
      for (const c of seen) expect(c.durationMs).to.be.a('number').and.at.least(0)
    } finally {
      await teardown()
    }
  })
})
