import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { MongoClient } from 'mongodb'
import { percentile } from './load-spec'

/**
 * Reference: the raw driver writing to the same server as Orka, with Orka's client settings
 * (write concern majority, journaled; pool of 20): `insertOne` of one document per operation,
 * `inFlight` at once, for `seconds`. argv: a JSON file {uri, db, seconds, inFlight, document}.
 * Prints one JSON line.
 */
interface Spec {
  readonly uri: string
  readonly db: string
  readonly seconds: number
  readonly inFlight: number
  readonly document: Record<string, unknown>
}
const spec = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as Spec

const main = async () => {
  const client = await MongoClient.connect(spec.uri, {
    appName: 'orka-bench',
    writeConcern: { w: 'majority', journal: true },
    readConcern: { level: 'majority' },
    retryWrites: true,
    ignoreUndefined: true,
    maxPoolSize: 20,
  })
  const collection = client.db(spec.db).collection<{ _id: string }>('bench_inserts')
  const latencies: number[] = []
  // Warm the pool before the clock starts.
  await Promise.all(Array.from({ length: spec.inFlight }, () => collection.insertOne({ ...spec.document, _id: randomUUID() })))
  const started = performance.now()
  const end = started + spec.seconds * 1000
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now()
      await collection.insertOne({ ...spec.document, _id: randomUUID() })
      latencies.push(performance.now() - t0)
    }
  }
  await Promise.all(Array.from({ length: spec.inFlight }, worker))
  const seconds = (performance.now() - started) / 1000
  await client.close()
  latencies.sort((a, b) => a - b)
  console.log(
    JSON.stringify({
      inserts: latencies.length,
      seconds,
      perSecond: latencies.length / seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
    }),
  )
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e))
  process.exit(1)
})
