import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { aBuyer, anIdempotencyRecord } from '@orka/domain/testing'
import { makeMongoAdapters } from '../src'
import { storedCollection } from '../src/mongo-collection'
import { clientOf, dbOf, MongoStore } from '../src/mongo-database'
import { Doc } from '../src/document-decoder'
import { StorageTimeout } from '../src/storage-bound'
import { storageCalls } from '../src/storage-calls'
import { FreezingProxy, startProxiedStore } from './freezing-proxy'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const causeOf = (r: E.Either<unknown, unknown>): unknown => (E.isLeft(r) ? (r.left as { cause?: unknown }).cause : undefined)

/**
 * When a storage call overruns its bound it is answered (Unavailable), and nothing keeps
 * running for it: no command of it starts after the answer, whether it was looping, waiting
 * for a connection, or in flight. Counted with the driver's command monitoring.
 */
describe('a bound stops the work it bounds (commands counted by the driver)', function () {
  this.timeout(60_000)
  const BOUND = 400
  let proxy: FreezingProxy | undefined
  let store: MongoStore | undefined
  const started: { readonly at: number; readonly name: string }[] = []
  const startedAfter = (t: number) => started.filter((c) => c.at > t).map((c) => c.name)

  before(async function () {
    ;({ proxy, store } = await startProxiedStore(this, { operationTimeoutMs: BOUND, maxPoolSize: 2, monitorCommands: true }))
    clientOf(store).on('commandStarted', (e) => started.push({ at: Date.now(), name: e.commandName }))
  })

  afterEach(() => {
    proxy?.thaw()
  })

  after(async () => {
    proxy?.thaw()
    if (store !== undefined) {
      await dbOf(store)
        .dropDatabase()
        .catch(() => undefined)
      await store.close()
    }
    await proxy?.stop()
  })

  it('a call looping over commands issues none after its answer', async () => {
    const calls = storageCalls(store!)
    const col = storedCollection<Doc>(store!, 'loop')
    let issued = 0
    const r = await calls.attempt(async (signal) => {
      for (;;) {
        await col.within(signal).findOne({ _id: 'x' })
        issued++
      }
    })()
    const answeredAt = Date.now()
    expect(causeOf(r)).to.be.instanceOf(StorageTimeout)
    await sleep(2 * BOUND)
    expect(issued, 'commands the loop completed within its bound').to.be.above(2)
    expect(startedAfter(answeredAt)).to.deep.equal([])
  })

  it('calls in flight or waiting for a connection behind a frozen server send nothing after their answer, even once it thaws', async () => {
    const { buyers, idempotency, rateLimits, giftCardVault: vault } = makeMongoAdapters(store!)
    proxy!.freeze()
    // Reads, inserts, multi-step claims and an admission: far more than the pool's 2 connections.
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => [
        buyers.create(aBuyer({ external_identifier: `frozen-${i}` }))(),
        buyers.findById('default', aBuyer().id)(),
        idempotency.claim(anIdempotencyRecord(), new Date())(),
        rateLimits.admit(`frozen-${i}`, 5, 60_000, new Date())(),
        vault.findByFingerprint('default', `fp-${i}`)(),
      ]).flat(),
    )
    const answeredAt = Date.now()
    for (const r of results) expect(causeOf(r)).to.be.instanceOf(StorageTimeout)
    // Thawed at once: a command still queued, or the next step of one in flight, would go now.
    proxy!.thaw()
    await sleep(1500)
    expect(startedAfter(answeredAt)).to.deep.equal([])
    // The store itself serves again.
    expect(E.isRight(await buyers.findById('default', aBuyer().id)())).to.equal(true)
  })
})
