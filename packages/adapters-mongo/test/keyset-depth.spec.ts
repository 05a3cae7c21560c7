import { performance } from 'node:perf_hooks'
import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { Buyer, buyerSortKey, Seek } from '@orka/domain'
import { aBuyer, isoAt, MERCHANT_A, MERCHANT_B, right, uuidFor } from '@orka/domain/testing'
import { BuyerDocument, toBuyerDocument } from '../src/buyer.document'
import { dbOf } from '../src/mongo-database'
import { buyerListRead, MongoBuyerRepository } from '../src/mongo-buyer-repository'
import { COLLECTIONS } from '../src/mongo-schema'
import { freshStore, FreshStore, median, ms, planSummary } from './support'

const N = 100_000
const OTHER_ACCOUNT = 5_000
const BATCH = 5_000
const LIMIT = 20
const RUNS = 7

// Buyer i: four buyers share each created_at, so the id tie-break is exercised at every depth.
// Ids sort as i does, so the list (newest first) is i = N-1, N-2, ..., 0.
const createdAt = (i: number) => isoAt(Math.floor(i / 4) * 1000)
const buyerAt = (i: number): Buyer =>
  aBuyer({ id: uuidFor(i), created_at: createdAt(i), updated_at: createdAt(i), external_identifier: `crm-${i}` })
const ids = (bs: readonly Buyer[]) => bs.map((b) => b.id)
const expectedIds = (from: number, count: number) => Array.from({ length: count }, (_, k) => uuidFor(from - k))

describe('keyset pagination depth: 100,000 buyers in one account', function () {
  this.timeout(15 * 60_000)
  let f: FreshStore | undefined // unset when `freshStore` failed
  let repo: MongoBuyerRepository

  before(async () => {
    const started = performance.now()
    f = await freshStore()
    repo = new MongoBuyerRepository(f.store)
    const buyers = dbOf(f.store).collection<BuyerDocument>(COLLECTIONS.buyers)
    // Written straight through the driver (the repository's document mapping, no claims): the
    // repository's reads are under test here, not its one-by-one creation.
    for (let start = 0; start < N; start += BATCH)
      await buyers.insertMany(
        Array.from({ length: Math.min(BATCH, N - start) }, (_, k) => toBuyerDocument(buyerAt(start + k))),
        { ordered: false },
      )
    // Another account's buyers at the same instants, which the reads must skip.
    await buyers.insertMany(
      Array.from({ length: OTHER_ACCOUNT }, (_, k) =>
        toBuyerDocument(aBuyer({ merchant_account_id: MERCHANT_B, created_at: createdAt(k * 20), updated_at: createdAt(k * 20) })),
      ),
      { ordered: false },
    )
    console.log(
      `      inserted ${N + OTHER_ACCOUNT} buyers in batches of ${BATCH} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    )
  })
  after(async () => f?.teardown())

  const first: Seek = { direction: 'forward', from: O.none, limit: LIMIT }
  // Near the end of the list: the oldest buyers, 99,900 positions in.
  const deepFrom = 100
  const deep: Seek = { direction: 'forward', from: O.some(buyerSortKey(buyerAt(deepFrom))), limit: LIMIT }

  it('reads the right page at any depth, and costs about the same deep as first (timings printed, not asserted)', async () => {
    const time = async (seek: Seek, expected: string[]) => {
      const t0 = performance.now()
      const page = await right(repo.list(MERCHANT_A, {}, seek))
      const elapsed = performance.now() - t0
      expect(ids(page)).to.deep.equal(expected)
      return elapsed
    }
    const firstTimes: number[] = []
    const deepTimes: number[] = []
    // Each read is a full scan on a server without index-backed sorts (FerretDB 1.24): fewer runs there.
    let runs = 3
    for (let i = 0; i < runs; i++) {
      firstTimes.push(await time(first, expectedIds(N - 1, LIMIT)))
      deepTimes.push(await time(deep, expectedIds(deepFrom - 1, LIMIT)))
      if (i === 0 && firstTimes[0]! < 1_000) runs = RUNS
    }
    const [a, b] = [median(firstTimes), median(deepTimes)]
    console.log(`      first page: median ${ms(a)} of ${runs} (${firstTimes.map(ms).join(', ')})`)
    console.log(`      deep page (after position ${N - 1 - deepFrom}): median ${ms(b)} of ${runs} (${deepTimes.map(ms).join(', ')})`)
    console.log(`      deep / first = ${(b / a).toFixed(2)}`)
    for (const [name, seek] of [
      ['first', first],
      ['deep', deep],
    ] as const) {
      const plan = buyerListRead(MERCHANT_A, {}, seek)
      try {
        const explain = await dbOf(f!.store)
          .collection(COLLECTIONS.buyers)
          .find(plan.filter)
          .sort(plan.sort)
          .limit(plan.limit)
          .explain('executionStats')
        console.log(`      ${name} page: ${planSummary(explain)}`)
      } catch (e) {
        console.log(`      ${name} page: explain not available (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`)
      }
    }
  })
})
