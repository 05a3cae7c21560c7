import { randomBytes } from 'node:crypto'
import { connectMongo, dbOf, MongoConnectOptions, MongoStore } from '../src/mongo-database'

const uri = process.env.MONGODB_URI
if (uri === undefined || uri === '')
  throw new Error(
    'MONGODB_URI is not set. Run these tests through the README test command, which starts scripts/mongo-test-server ' +
      '(FerretDB) and sets it, or set MONGODB_URI to a MongoDB server where the tests may create and drop orka_test_* databases.',
  )
export const MONGODB_URI: string = uri

// A root hook (this module is loaded once, outside any describe): says once per run which
// server every suite here runs against, from its `hello` and `buildInfo`.
before(async function () {
  this.timeout(30_000)
  const store = await connectMongo(MONGODB_URI, { serverSelectionTimeoutMS: 10_000 })
  try {
    const info = await store.serverInfo()
    console.log(`  adapters-mongo tests against ${info.summary}`)
  } finally {
    await store.close()
  }
})

export interface FreshStore {
  readonly store: MongoStore
  /** Drops the database and closes the connection. */
  readonly teardown: () => Promise<void>
}

/** A store on a database of its own (`orka_test_<random>`), indexes created, dropped in teardown. */
export const freshStore = async (options: MongoConnectOptions = {}): Promise<FreshStore> => {
  const store = await connectMongo(MONGODB_URI, {
    dbName: `orka_test_${randomBytes(6).toString('hex')}`,
    serverSelectionTimeoutMS: 5000,
    ...options,
  })
  try {
    await store.ensureIndexes()
  } catch (e) {
    await store.close()
    throw e
  }
  return {
    store,
    teardown: async () => {
      try {
        await dbOf(store).dropDatabase()
      } finally {
        await store.close()
      }
    },
  }
}

/** Median of some timings. */
export const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2
}

export const ms = (x: number) => `${x.toFixed(1)} ms`
/** A value of the explain output as a template literal would write it. */
const text = (v: unknown): string => String(v)

/** The plan in a line: MongoDB's winning plan and work counts, or FerretDB's PostgreSQL plan and pushdowns. */
export const planSummary = (explain: Record<string, unknown>): string => {
  const qp = (explain.queryPlanner ?? {}) as Record<string, unknown>
  if (qp.winningPlan !== undefined) {
    const stages: string[] = []
    const walk = (p: Record<string, unknown> | undefined): void => {
      if (p === undefined) return
      stages.push(p.indexName ? `${text(p.stage)}(${text(p.indexName)})` : String(p.stage))
      walk(p.inputStage as Record<string, unknown> | undefined)
      for (const s of (p.inputStages as Record<string, unknown>[] | undefined) ?? []) walk(s)
    }
    walk(
      ((qp.winningPlan as Record<string, unknown>).queryPlan as Record<string, unknown> | undefined) ??
        (qp.winningPlan as Record<string, unknown>),
    )
    const st = (explain.executionStats ?? {}) as Record<string, unknown>
    return (
      `MongoDB plan ${stages.join(' < ')}; keys examined ${text(st.totalKeysExamined)}, ` +
      `documents examined ${text(st.totalDocsExamined)}, returned ${text(st.nReturned)}`
    )
  }
  if (qp.Plan !== undefined) {
    const nodes: string[] = []
    for (
      let p = qp.Plan as Record<string, unknown> | undefined;
      p !== undefined;
      p = (p.Plans as Record<string, unknown>[] | undefined)?.[0]
    )
      nodes.push(
        text(p['Node Type']) +
          (p['Relation Name'] ? ` on ${text(p['Relation Name'])}` : '') +
          (p['Index Name'] ? ` using ${text(p['Index Name'])}` : '') +
          (p.Filter ? ` [filter ${text(p.Filter)}]` : ''),
      )
    const pushdown = ['filterPushdown', 'sortPushdown', 'limitPushdown'].map((k) => `${k} ${text(explain[k])}`).join(', ')
    return `FerretDB: PostgreSQL plan ${nodes.join(' > ')}; ${pushdown}`
  }
  return `unrecognised explain output: ${JSON.stringify(explain).slice(0, 300)}`
}
