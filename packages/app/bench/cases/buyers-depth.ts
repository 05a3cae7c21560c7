import { randomBytes } from 'node:crypto'
import { Buyer, buyerSortKey, encodeCursor, reconciliationId } from '@orka/domain'
import { HmacMac } from '@orka/adapters-node'
import { BuyerDocument, toBuyerDocument } from '@orka/adapters-mongo/dist/src/buyer.document'
import { COLLECTIONS } from '@orka/adapters-mongo'
import { MongoClient } from 'mongodb'
import { deriveKey } from '../../src/wiring/derived-keys'
import { DEFAULT_MERCHANT_ACCOUNT_ID } from '../../src/provision'
import { Bench } from '../bench'
import { LoadSpec } from '../load-spec'
import { call, startOrka, withMongoDatabase } from '../orka'
import { BenchFailure, Server } from '../processes'
import { int, judge, ms, Row } from '../table'
import { guarded, using } from './common'
import { load } from '../load'

const N = 100_000
const LIMIT = 100
/** The deep page follows buyer DEEP (position N - LIMIT of the list): it holds the last LIMIT buyers. */
const DEEP = LIMIT
const BATCH = 5_000
const STORAGE_TIMEOUT_MS = 120_000

/** Ids sort as i does; with created_at never decreasing in i, the list (newest first) is i = N-1, ..., 0. */
const idOf = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`

interface Page {
  readonly items: readonly Buyer[]
  readonly next_cursor: string | null
}

const pageOf = (bytes: Buffer): Page => JSON.parse(bytes.toString('utf8')) as Page

/**
 * A cursor Orka accepts for the page after `key`: its own encoding and MAC (keyed from the
 * VAULT_KEY the bench gave it) over the list's scope. Checked against the cursor Orka itself
 * answers for the first page before it is used, so a change in the format fails loudly.
 */
const cursorAfter = (vaultKey: Buffer, key: readonly [string, string]) =>
  encodeCursor(new HmacMac(deriveKey(vaultKey, 'mac')), `buyers\u0000${DEFAULT_MERCHANT_ACCOUNT_ID}\u0000${JSON.stringify([null])}`, {
    direction: 'forward',
    key: [key[0], key[1]],
  })

const timed = async <A>(f: () => Promise<A>): Promise<[A, number]> => {
  const t0 = performance.now()
  const a = await f()
  return [a, performance.now() - t0]
}

/**
 * First page against the page after position N - LIMIT, one request at a time; the ratio is of
 * the medians. As many requests per page as fit in BENCH_SECONDS at the speed of a first probe
 * (5 to 200), so that a slow store still gets a few samples.
 */
const depthRow = async (bench: Bench, storage: string, orka: Server, vaultKey: Buffer) => {
  const [first, firstMs] = await timed(async () => pageOf(await call(orka, 'GET', `/buyers?limit=${LIMIT}`, 200, { token: bench.token })))
  const last = first.items[first.items.length - 1]
  if (first.items.length !== LIMIT || first.items[0]?.id !== idOf(N - 1) || last === undefined)
    throw new BenchFailure(`${storage}: the first page is not buyers ${N - 1} down to ${N - LIMIT}`)
  const [createdAt, lastId] = buyerSortKey(last)
  if (first.next_cursor !== cursorAfter(vaultKey, [createdAt, lastId]))
    throw new BenchFailure(`${storage}: Orka's cursors are no longer built as this bench builds them (buyers-depth.ts)`)
  const deepCreatedAt = storage === 'MongoDB' ? createdAtOf(DEEP) : createdAt
  const deepPath = `/buyers?limit=${LIMIT}&cursor=${encodeURIComponent(cursorAfter(vaultKey, [deepCreatedAt, idOf(DEEP)]))}`
  const [deep, deepMs] = await timed(async () => pageOf(await call(orka, 'GET', deepPath, 200, { token: bench.token })))
  if (deep.items.length !== LIMIT || deep.items[0]?.id !== idOf(DEEP - 1) || deep.next_cursor !== null)
    throw new BenchFailure(`${storage}: the deep page is not the last ${LIMIT} buyers`)
  const samples = Math.min(200, Math.max(3, Math.floor((bench.seconds * 1000) / Math.max(firstMs, deepMs))))
  const spec = (path: string): LoadSpec => ({
    url: orka.url + path,
    method: 'GET',
    headers: { authorization: `Bearer ${bench.token}` },
    connections: 1,
    amount: samples,
    seconds: bench.seconds,
  })
  // The probes above warm both pages up; a fast store gets a tenth more, not counted.
  const warmUps = Math.floor(samples / 10)
  const run = async (what: string, path: string) => {
    if (warmUps > 0) await load(bench, `${what} (warm-up)`, { ...spec(path), amount: warmUps }, { expect: 200 })
    return load(bench, what, spec(path), { expect: 200 })
  }
  const a = await run(`${storage} first buyers page`, `/buyers?limit=${LIMIT}`)
  const b = await run(`${storage} deep buyers page`, deepPath)
  return {
    row: {
      rps: b.rps,
      p50: b.p50,
      p99: b.p99,
      reference: `first page p50 ${ms(a.p50)}, p99 ${ms(a.p99)}`,
      ...judge(b.p50 / a.p50, { atMost: 1.5 }),
    },
    note: `${int(N)} buyers; the page after the ${int(N - LIMIT)}th (the last ${LIMIT}) against the first, limit=${LIMIT}, ${samples} requests each, one at a time, after ${warmUps + 1} not counted; latency ratio of the medians`,
    slowestMs: Math.max(a.p99, b.p99),
  }
}

const NAME = `GET /buyers at depth ${int(N)} vs first page`

/** Case 6, memory: the buyers come from a SEED_FILE (all created at the seed's instant; ids give the order). */
export const memoryDepthCase = (bench: Bench): Promise<Row> =>
  guarded('6a', `${NAME}, memory`, async () => {
    const vaultKey = randomBytes(32)
    const buyers = Array.from({ length: N }, (_, i) => ({ id: idOf(i), merchant_account_id: DEFAULT_MERCHANT_ACCOUNT_ID }))
    return using(
      startOrka(bench, 'Orka (memory, 100,000 buyers)', {
        env: { VAULT_KEY: vaultKey.toString('hex') },
        seed: { buyers },
        readyTimeoutMs: 300_000,
      }),
      async (orka) => {
        const { row, note } = await depthRow(bench, 'memory', orka, vaultKey)
        return { ...row, notes: [`buyers from a SEED_FILE; ${note}`] }
      },
    )
  })

const BASE_MS = Date.parse('2025-01-15T10:00:00.000Z')
/** Four buyers per instant, so the id tie-break is exercised at every depth. */
const createdAtOf = (i: number) => new Date(BASE_MS + Math.floor(i / 4) * 1000).toISOString()

const buyerAt = (i: number): Buyer => ({
  type: 'buyer',
  id: idOf(i),
  reconciliation_id: reconciliationId(idOf(i)),
  merchant_account_id: DEFAULT_MERCHANT_ACCOUNT_ID,
  display_name: null,
  external_identifier: null,
  billing_details: null,
  account_number: null,
  created_at: createdAtOf(i),
  updated_at: createdAtOf(i),
})

/** Case 6, MongoDB: the buyers written straight through the driver with the adapter's document mapping. */
export const mongoDepthCase = (bench: Bench): Promise<Row> =>
  guarded('6b', `${NAME}, MongoDB`, () =>
    withMongoDatabase(bench, async (uri, db) => {
      const vaultKey = randomBytes(32)
      // A page costs a full sort on servers without index-backed sorts (FerretDB): more than the default 5 s bound.
      const env = {
        MONGODB_URI: uri,
        MONGODB_DATABASE: db,
        VAULT_KEY: vaultKey.toString('hex'),
        STORAGE_TIMEOUT_MS: String(STORAGE_TIMEOUT_MS),
      }
      return using(startOrka(bench, 'Orka (MongoDB)', { env }), async (orka) => {
        const client = await MongoClient.connect(uri)
        try {
          const buyers = client.db(db).collection<BuyerDocument>(COLLECTIONS.buyers)
          for (let start = 0; start < N; start += BATCH)
            await buyers.insertMany(
              Array.from({ length: Math.min(BATCH, N - start) }, (_, k) => toBuyerDocument(buyerAt(start + k))),
              { ordered: false },
            )
        } finally {
          await client.close()
        }
        const { row, note, slowestMs } = await depthRow(bench, 'MongoDB', orka, vaultKey)
        return {
          ...row,
          notes: [
            `buyers inserted with the driver (the adapter's document mapping); ${note}`,
            `STORAGE_TIMEOUT_MS=${STORAGE_TIMEOUT_MS} for this case (default 5000): ` +
              (slowestMs > 5000
                ? `pages took up to ${ms(slowestMs)}, so with the default bound they answer 500`
                : 'no page took more than 5 s'),
          ],
        }
      })
    }),
  )
