import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { aBuyer } from '@orka/domain/testing'
import { makeMongoAdapters } from '../src'
import { dbOf, MongoStore } from '../src/mongo-database'
import { StorageTimeout, withinBound } from '../src/storage-bound'
import { storageCalls } from '../src/storage-calls'
import { eventually, FreezingProxy, startProxiedStore } from './freezing-proxy'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length
const never = () => new Promise<never>(() => undefined)

/** Fails the test if a promise rejection goes unhandled while `body` runs (and a little after). */
const noUnhandledRejection = async (body: () => Promise<void>) => {
  const seen: unknown[] = []
  const onUnhandled = (reason: unknown) => seen.push(reason)
  process.on('unhandledRejection', onUnhandled)
  try {
    await body()
    await sleep(20)
  } finally {
    process.off('unhandledRejection', onUnhandled)
  }
  expect(seen, 'unhandled rejections').to.deep.equal([])
}

describe('bounded storage calls (storageCalls)', () => {
  it('passes results and failures through unchanged for a store without a bound', async () => {
    const calls = storageCalls({ operationTimeoutMs: undefined })
    expect(await calls.attempt(() => Promise.resolve(42))()).to.deep.equal(E.right(42))
    const failed = await calls.attempt(() => Promise.reject(new Error('driver said no')))()
    expect(E.isLeft(failed) && failed.left._tag).to.equal('Unavailable')
    expect(E.isLeft(failed) && (failed.left.cause as Error).message).to.equal('driver said no')
    const thrown = await calls.attempt((): Promise<number> => {
      throw new Error('thrown before any promise')
    })()
    expect(E.isLeft(thrown) && (thrown.left.cause as Error).message).to.equal('thrown before any promise')
  })

  const outlivesBoundTitle =
    "turns a call that outlives its store's bound into Unavailable (cause StorageTimeout) at the bound, and clears its timer"
  it(outlivesBoundTitle, async () => {
    const calls = storageCalls({ operationTimeoutMs: 150 })
    await noUnhandledRejection(async () => {
      const started = Date.now()
      const r = await calls.attempt(never)()
      const took = Date.now() - started
      expect(E.isLeft(r) && r.left._tag).to.equal('Unavailable')
      const cause = E.isLeft(r) ? r.left.cause : undefined
      expect(cause).to.be.instanceOf(StorageTimeout)
      expect((cause as StorageTimeout).message).to.equal('storage call timed out after 150 ms')
      expect(took).to.be.within(140, 400)

      // attemptEither too, and an abandoned call that fails later is not an unhandled rejection.
      const late = await calls.attemptEither<'expected', number>(() => sleep(300).then(() => Promise.reject(new Error('too late'))))()
      expect(E.isLeft(late) && late.left !== 'expected' && late.left.cause).to.be.instanceOf(StorageTimeout)
      await sleep(250)
    })
    // A call that finishes in time leaves no timer behind.
    const before = timers()
    expect(await calls.attempt(() => Promise.resolve('quick'))()).to.deep.equal(E.right('quick'))
    expect(await calls.attemptEither(() => Promise.resolve(E.left('expected' as const)))()).to.deep.equal(E.left('expected'))
    expect(timers()).to.equal(before)
  })

  it("applies each store's own bound, whatever other stores are open", async () => {
    const short = storageCalls({ operationTimeoutMs: 100 })
    const long = storageCalls({ operationTimeoutMs: 2000 })
    const unbounded = storageCalls({ operationTimeoutMs: undefined })
    const work = () => sleep(300).then(() => 'done')
    const [a, b, c] = await Promise.all([short.attempt(work)(), long.attempt(work)(), unbounded.attempt(work)()])
    expect(E.isLeft(a) && a.left.cause).to.be.instanceOf(StorageTimeout)
    expect([b, c]).to.deep.equal([E.right('done'), E.right('done')])
  })

  it('withinBound without a bound is the work itself', async () => {
    expect(await withinBound(() => Promise.resolve('x'), undefined)).to.equal('x')
  })
})

describe('a store with operationTimeoutMs, on a server that freezes or goes down (through a proxy)', function () {
  this.timeout(60_000)
  const BOUND = 500
  const POOL = 4
  // Set in `before`, which skips the suite when there is no server to proxy: the `after` hooks check.
  let proxy: FreezingProxy | undefined
  let store: MongoStore | undefined
  let dbName: string

  before(async function () {
    ;({ proxy, store, dbName } = await startProxiedStore(this, { operationTimeoutMs: BOUND, maxPoolSize: POOL, connectTimeoutMS: 2000 }))
  })

  // A failed test must not leave the next one frozen.
  afterEach(() => {
    proxy?.thaw()
  })

  after(async () => {
    proxy?.thaw()
    if (proxy !== undefined && proxy.port !== 0 && store !== undefined) {
      if (
        !(await store.ping().then(
          () => true,
          () => false,
        ))
      )
        await proxy.start(proxy.port).catch(() => undefined)
      await dbOf(store)
        .dropDatabase()
        .catch(() => undefined)
      await store.close()
    }
    await proxy?.stop()
  })

  it('knows its bound', () => {
    expect(store!.operationTimeoutMs).to.equal(BOUND)
  })

  const frozenTitle =
    'frozen: every call fails as Unavailable within the bound, connections stay within the pool, and calls succeed again after the thaw'
  it(frozenTitle, async () => {
    const { buyers } = makeMongoAdapters(store!)
    const b = aBuyer({ merchant_account_id: 'default' })
    const id = b.id
    expect(E.isRight(await buyers.create(b)())).to.equal(true)

    proxy!.freeze()
    const acceptedBefore = proxy!.accepted
    const started = Date.now()
    // Many more calls than the pool has connections, in waves while frozen.
    const results: [number, E.Either<unknown, unknown>][] = []
    for (let wave = 0; wave < 3; wave++) {
      const t0 = Date.now()
      const wave_ = await Promise.all(
        Array.from({ length: 20 }, () =>
          buyers
            .findById('default', id)()
            .then((r) => [Date.now() - t0, r] as [number, E.Either<unknown, unknown>]),
        ),
      )
      results.push(...wave_)
    }
    const ping = Date.now()
    const pinged = await store!.ping().then(
      () => 'answered',
      (e: unknown) => (e as Error).message,
    )
    const pingMs = Date.now() - ping
    const frozenFor = Date.now() - started
    for (const [ms, r] of results) {
      expect(E.isLeft(r), 'a call succeeded while frozen').to.equal(true)
      expect(ms).to.be.below(BOUND + 300)
    }
    // Our bound, or the driver's verdict when it came first (a timed-out handshake clears the pool).
    expect(pinged).to.match(new RegExp(`^MongoDB database ${dbName} at 127\\.0\\.0\\.1:\\d+ does not answer: .*(timed out|cleared)`))
    expect(pingMs).to.be.below(BOUND + 300)
    // The driver's own bounds (waitQueueTimeoutMS, socketTimeoutMS) keep it from opening a
    // connection per abandoned call: at most the pool, the monitor and its RTT pinger, and a
    // pool refill after a timed-out handshake.
    const opened = proxy!.accepted - acceptedBefore
    expect(opened, 'connections opened while frozen').to.be.at.most(2 * POOL + 2)

    proxy!.thaw()
    const recovered = await eventually('reads after the thaw', 15_000, async () => {
      const r = await buyers.findById('default', id)()
      return E.isRight(r) && O.isSome(r.right)
    })
    await eventually('the readiness ping after the thaw', 5000, () =>
      store!.ping().then(
        () => true,
        () => false,
      ),
    )
    console.log(
      `      frozen ${frozenFor} ms: ${results.length} calls failed in at most ${Math.max(...results.map(([ms]) => ms))} ms, ` +
        `ping in ${pingMs} ms, ` +
        `${opened} connections opened; reads again ${recovered} ms after the thaw`,
    )
  })

  const downTitle =
    'down (connections reset, then refused): calls fail within the bound, and succeed again once the server is back on the same address'
  it(downTitle, async () => {
    const { buyers } = makeMongoAdapters(store!)
    const port = proxy!.port
    await proxy!.down()
    const t0 = Date.now()
    const results = await Promise.all(
      Array.from({ length: 10 }, () => buyers.list('default', {}, { direction: 'forward', from: O.none, limit: 5 })()),
    )
    const took = Date.now() - t0
    for (const r of results) expect(E.isLeft(r)).to.equal(true)
    expect(took).to.be.below(BOUND + 300)
    const pingStarted = Date.now()
    expect(
      await store!.ping().then(
        () => 'answered',
        () => 'failed',
      ),
    ).to.equal('failed')
    expect(Date.now() - pingStarted).to.be.below(BOUND + 300)

    await proxy!.start(port)
    const back = await eventually('reads after the server came back', 15_000, async () =>
      E.isRight(await buyers.list('default', {}, { direction: 'forward', from: O.none, limit: 5 })()),
    )
    console.log(`      down: 10 calls failed within ${took} ms; reads again ${back} ms after the server came back`)
  })
})
