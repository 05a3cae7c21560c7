import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import * as E from 'fp-ts/Either'
import { Admission, Unavailable } from '@orka/domain'
import { clientOf, connectMongo, dbOf, MongoStore } from '../src/mongo-database'
import { MongoRateLimitStore } from '../src/mongo-rate-limit-store'
import { MONGODB_URI } from './support'

const LIMIT = 50
const MINUTE = 60_000

/** An instance: its own connection to the shared database, counting the commands it sends. */
const instance = async (dbName: string) => {
  const store = await connectMongo(MONGODB_URI, { dbName, operationTimeoutMs: 5000, monitorCommands: true })
  const commands: string[] = []
  clientOf(store).on('commandStarted', (e) => commands.push(e.commandName))
  return { store, commands, limiter: new MongoRateLimitStore(store) }
}

const tally = (results: readonly E.Either<Unavailable, Admission>[]) => ({
  admitted: results.filter((r) => E.isRight(r) && r.right.admitted).length,
  refused: results.filter((r) => E.isRight(r) && !r.right.admitted).length,
  failed: results.filter(E.isLeft).length,
})

/**
 * A flood of one key (a browser token) costs a few storage round trips per instance, not one or
 * more per request: before coalescing, N requests at once cost N² reads and inserts, and most
 * ran into the storage bound (500s).
 */
describe('rate-limit admission under a flood of one key (MongoDB)', function () {
  this.timeout(60_000)
  let dbName: string
  let stores: MongoStore[] = []

  beforeEach(async () => {
    dbName = `orka_test_${randomBytes(6).toString('hex')}`
    const setup = await connectMongo(MONGODB_URI, { dbName })
    await setup.ensureIndexes()
    stores = [setup]
  })

  afterEach(async () => {
    await dbOf(stores[0]!)
      .dropDatabase()
      .catch(() => undefined)
    await Promise.all(stores.map((s) => s.close()))
  })

  it('one instance, 300 at once: exactly 50 admitted, 250 refused, none failed, in a handful of round trips', async () => {
    const a = await instance(dbName)
    stores.push(a.store)
    const now = new Date()
    const results = await Promise.all(Array.from({ length: 300 }, () => a.limiter.admit('embed:flood', LIMIT, MINUTE, now)()))
    expect(tally(results)).to.deep.equal({ admitted: 50, refused: 250, failed: 0 })
    console.log(`      300 asks: ${a.commands.length} commands (${a.commands.join(', ')})`)
    expect(a.commands.length).to.be.at.most(6)
    // Known full: the next ask costs nothing.
    const before = a.commands.length
    expect(await a.limiter.admit('embed:flood', LIMIT, MINUTE, new Date(now.getTime() + 1000))()).to.deep.equal(
      E.right({ admitted: false, remaining: 0, resetMs: MINUTE - 1000 }),
    )
    expect(a.commands.length).to.equal(before)
  })

  it('two instances on one database, 150 at once each: exactly 50 admitted in total, none failed', async () => {
    const [a, b] = await Promise.all([instance(dbName), instance(dbName)])
    stores.push(a.store, b.store)
    const now = new Date()
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? a : b).limiter.admit('embed:flood', LIMIT, MINUTE, now)()),
    )
    expect(tally(results)).to.deep.equal({ admitted: 50, refused: 250, failed: 0 })
    const admissions = await dbOf(stores[0]!).collection('rate_limit_admissions').countDocuments()
    expect(admissions).to.equal(50)
    const total = a.commands.length + b.commands.length
    console.log(
      `      2 x 150 asks: ${a.commands.length} + ${b.commands.length} commands, ` +
        `${(total / 300).toFixed(3)} per ask, ${(total / 50).toFixed(2)} per admission`,
    )
    // Each instance: a few rounds of one read and at most one insert.
    expect(a.commands.length).to.be.at.most(14)
    expect(b.commands.length).to.be.at.most(14)
  })

  it('keeps the limit when the asks arrive in waves across both instances, never failing', async () => {
    const [a, b] = await Promise.all([instance(dbName), instance(dbName)])
    stores.push(a.store, b.store)
    const t0 = Date.now()
    const results: E.Either<Unavailable, Admission>[] = []
    for (let wave = 0; wave < 10; wave++) {
      const at = new Date(t0 + wave * 100)
      results.push(
        ...(await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).limiter.admit('embed:waves', 7, MINUTE, at)()))),
      )
    }
    expect(tally(results)).to.deep.equal({ admitted: 7, refused: 193, failed: 0 })
  })
})
