import { performance } from 'node:perf_hooks'
import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { GiftCard, GiftCardFilter, giftCardSortKey, Seek } from '@orka/domain'
import { aBuyer, aVaultedCard, isoAt, MERCHANT_A, right, uuidFor } from '@orka/domain/testing'
import { dbOf } from '../src/mongo-database'
import { giftCardListRead, MongoGiftCardVault } from '../src/mongo-gift-card-vault'
import { COLLECTIONS } from '../src/mongo-schema'
import { toVaultedGiftCardDocument, VaultedGiftCardDocument } from '../src/vaulted-gift-card.document'
import { freshStore, FreshStore, median, ms, planSummary } from './support'

const N = 5_000
const OTHERS = 1_000
const BATCH = 5_000
const LIMIT = 20
const RUNS = 3

// Smaller than the buyers' depth test: on FerretDB every read sorts the account's cards in full (timings show it).
// Card i of the buyer: two cards share each created_at (the id breaks the tie); ids sort as i.
const buyer = aBuyer({ merchant_account_id: MERCHANT_A })
const createdAt = (i: number) => isoAt(Math.floor(i / 2) * 1000)
const cardAt = (i: number) => aVaultedCard({ card: { id: uuidFor(i), buyer, created_at: createdAt(i), updated_at: createdAt(i) } })
const expectedIds = (from: number, count: number) => Array.from({ length: count }, (_, k) => uuidFor(from - k))
const ids = (cs: readonly GiftCard[]) => cs.map((c) => c.id)

describe(`keyset pagination depth: ${N.toLocaleString('en')} stored cards of one buyer`, function () {
  this.timeout(10 * 60_000)
  let f: FreshStore | undefined
  let vault: MongoGiftCardVault

  before(async () => {
    const started = performance.now()
    f = await freshStore()
    vault = new MongoGiftCardVault(f.store)
    const col = dbOf(f.store).collection<VaultedGiftCardDocument>(COLLECTIONS.vaultedGiftCards)
    for (let start = 0; start < N; start += BATCH)
      await col.insertMany(
        Array.from({ length: Math.min(BATCH, N - start) }, (_, k) => toVaultedGiftCardDocument(cardAt(start + k))),
        { ordered: false },
      )
    // The account's other cards (no buyer, other buyers) at the same instants, which the buyer's reads must skip.
    await col.insertMany(
      Array.from({ length: OTHERS }, (_, k) =>
        toVaultedGiftCardDocument(aVaultedCard({ card: { buyer: k % 2 === 0 ? null : aBuyer(), created_at: createdAt(k * 4) } })),
      ),
      { ordered: false },
    )
    console.log(`      inserted ${N + OTHERS} cards in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  })
  after(async () => f?.teardown())

  it('reads the right page of the buyer’s cards at any depth, and its newest cards for balances (timings and plans printed)', async () => {
    const filter: GiftCardFilter = { buyer_id: buyer.id }
    const first: Seek = { direction: 'forward', from: O.none, limit: LIMIT }
    const deep: Seek = { direction: 'forward', from: O.some(giftCardSortKey(cardAt(100).card)), limit: LIMIT }
    const time = async (read: () => Promise<readonly GiftCard[]>, expected: string[]) => {
      const t0 = performance.now()
      expect(ids(await read())).to.deep.equal(expected)
      return performance.now() - t0
    }
    const reads = {
      first: () => time(() => right(vault.list(MERCHANT_A, filter, first)), expectedIds(N - 1, LIMIT)),
      deep: () => time(() => right(vault.list(MERCHANT_A, filter, deep)), expectedIds(99, LIMIT)),
      forBuyer: () => time(async () => (await right(vault.forBuyer(MERCHANT_A, buyer.id, 50))).map((v) => v.card), expectedIds(N - 1, 50)),
    }
    for (const [name, read] of Object.entries(reads)) {
      const times: number[] = []
      for (let i = 0; i < RUNS; i++) times.push(await read())
      console.log(`      ${name}: median ${ms(median(times))} of ${RUNS} (${times.map(ms).join(', ')})`)
    }
    for (const [name, seek] of [
      ['first page', first],
      ['deep page', deep],
    ] as const) {
      const plan = giftCardListRead(MERCHANT_A, filter, seek)
      try {
        const explain = await dbOf(f!.store)
          .collection(COLLECTIONS.vaultedGiftCards)
          .find(plan.filter)
          .sort(plan.sort)
          .limit(plan.limit)
          .explain('executionStats')
        console.log(`      ${name}: ${planSummary(explain)}`)
      } catch (e) {
        console.log(`      ${name}: explain not available (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`)
      }
    }
  })
})
