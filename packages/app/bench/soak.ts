import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateKeyPair } from '../src/dev-key'
import { mintToken } from '../src/mint-token'
import { Bench } from './bench'
import { load } from './load'
import { describeMachine, machineLine } from './machine'
import { provideMongo } from './mongo'
import { call, mongoEnv, startOrka, withMongoDatabase } from './orka'
import { freePort, rssOf, sleep } from './processes'

/**
 * `npm run bench:soak`: ten minutes of mixed traffic against Orka on MongoDB (`MONGODB_URI`, or
 * the test server started here), with its resident memory sampled every second. Three load
 * generators, each in its own process, run at once: card payments (each with an idempotency key
 * of its own), lists of buyers and `GET /roles`; every payment raises
 * `transaction.authorized`, delivered to a receiver in this process. Prints the payments, reads
 * and deliveries, then RSS after the warm-up, at the end and at most, and the slope of a
 * least-squares line through the samples after the warm-up (MB per minute: no growth is a slope
 * near 0 against the level).
 *
 * BENCH_SOAK_SECONDS (600) and BENCH_SOAK_WARMUP_S (60) set the lengths. The mix is light (2, 1
 * and 2 connections): FerretDB, which serves no query from an index, slows as its tables grow,
 * and a heavier mix measures its limit (storage timeouts after a few minutes) rather than
 * Orka's memory.
 */
const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600)
const WARM_UP_S = Number(process.env.BENCH_SOAK_WARMUP_S ?? 60)
const MB = 1024 * 1024
/**
 * What a soak accepts besides the answer: a storage call past its bound answers 500, and FerretDB
 * slows as its tables grow. They are counted and printed; the soak is about memory.
 */
const STATUSES = (ok: number) => [ok, 500]
const count = (r: { statuses: Readonly<Record<string, number>> }) =>
  Object.entries(r.statuses)
    .map(([code, n]) => `${n} x ${code}`)
    .join(', ')

/** Slope of the least-squares line through (t, y), in y per unit of t. */
export const slope = (points: readonly (readonly [number, number])[]): number => {
  const n = points.length
  if (n < 2) return 0
  const mt = points.reduce((s, [t]) => s + t, 0) / n
  const my = points.reduce((s, [, y]) => s + y, 0) / n
  const num = points.reduce((s, [t, y]) => s + (t - mt) * (y - my), 0)
  const den = points.reduce((s, [t]) => s + (t - mt) ** 2, 0)
  return den === 0 ? 0 : num / den
}

const receiver = async () => {
  let received = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      received++
      res.writeHead(204).end()
    })
  })
  server.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received: () => received,
    close: () =>
      new Promise<void>((r) =>
        server.close(() => {
          r()
        }),
      ),
  }
}

const main = async () => {
  const machine = describeMachine()
  const dir = mkdtempSync(join(tmpdir(), 'orka-soak-'))
  const key = generateKeyPair()
  const [privateKeyFile, publicKeyFile] = [join(dir, 'key.pem'), join(dir, 'key.pub.pem')]
  writeFileSync(privateKeyFile, key.privateKeyPem)
  writeFileSync(publicKeyFile, key.publicKeyPem)
  const mongo = await provideMongo()
  if ('missing' in mongo) throw new Error(`bench:soak needs MongoDB: ${mongo.missing}`)
  const bench: Bench = {
    machine,
    seconds: SECONDS,
    connections: 32,
    dir,
    wrk: false,
    key: { ...key, privateKeyFile, publicKeyFile },
    token: mintToken(key.privateKeyPem, { scopes: ['*.read', '*.write'], expiresInS: SECONDS + 3600 }),
    freshTokens: { file: join(dir, 'tokens.txt'), count: 0, mintSeconds: 0 },
    freshTokenRun: 0,
    limiterTokenRun: 0,
    mongo: { uri: mongo.uri, description: mongo.description },
  }
  process.stderr.write(`soak: ${machineLine(machine)}; MongoDB: ${mongo.description}; ${SECONDS} s, warm-up ${WARM_UP_S} s\n`)
  const hooks = await receiver()
  try {
    await withMongoDatabase(bench, async (uri, db) => {
      const metricsPort = await freePort()
      const orka = await startOrka(bench, 'orka', {
        env: { ...mongoEnv(uri, db), WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true', METRICS_PORT: String(metricsPort) },
      })
      /** The V8 heap in use, from Orka's own metrics (`nodejs_heap_size_used_bytes`). */
      const heapUsed = async (): Promise<number | undefined> => {
        const text = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { signal: AbortSignal.timeout(2000) })
          .then((r) => r.text())
          .catch(() => '')
        const m = /^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text)
        return m?.[1] === undefined ? undefined : Number(m[1])
      }
      try {
        const auth = { authorization: `Bearer ${bench.token}`, 'content-type': 'application/json' }
        await call(orka, 'POST', '/webhook-subscriptions', 201, { token: bench.token, body: JSON.stringify({ url: hooks.url }) })
        const samples: [number, number][] = []
        const heap: [number, number][] = []
        const started = performance.now()
        let ticks = 0
        const sample = () => {
          const t = (performance.now() - started) / 1000
          // The process gone (a failed run stops it), the run's own error says why.
          if (existsSync(`/proc/${orka.pid}`)) samples.push([t, rssOf(orka.pid)])
          if (ticks++ % 5 === 0) void heapUsed().then((h) => h !== undefined && heap.push([t, h]))
        }
        sample()
        const sampler = setInterval(sample, 1000)
        const spec = { headers: auth, seconds: SECONDS }
        const runs = Promise.all([
          load(
            bench,
            'soak payments',
            {
              ...spec,
              url: `${orka.url}/transactions`,
              method: 'POST',
              body: '{"amount":1299,"currency":"USD","payment_method":{"method":"card","number":"4111111111111111","expiration_date":"12/35","security_code":"123"}}',
              idempotencyKeys: true,
              connections: 2,
            },
            { expect: STATUSES(201) },
          ),
          load(
            bench,
            'soak lists',
            { ...spec, url: `${orka.url}/buyers?limit=20`, method: 'GET', connections: 1 },
            { expect: STATUSES(200) },
          ),
          load(bench, 'soak reads', { ...spec, url: `${orka.url}/roles`, method: 'GET', connections: 2 }, { expect: STATUSES(200) }),
        ]).finally(() => {
          clearInterval(sampler)
        })
        const [pay, list, roles] = await runs
        await sleep(3000)
        const after = samples.filter(([t]) => t >= WARM_UP_S)
        const at = (t: number) => after.find(([s]) => s >= t)?.[1] ?? 0
        const perMin = slope(after.map(([t, y]) => [t / 60, y / MB]))
        // The heap after each minute's lowest point (a collection just ran): what stays reachable.
        const byMinute = new Map<number, [number, number][]>()
        for (const [t, y] of heap.filter(([x]) => x >= WARM_UP_S))
          byMinute.set(Math.floor(t / 60), [...(byMinute.get(Math.floor(t / 60)) ?? []), [t, y]])
        // Whole minutes only (a sample every 5 s): a last, partial one may hold no collection.
        const floors = [...byMinute.values()].filter((m) => m.length >= 10).map((m) => m.reduce((low, p) => (p[1] < low[1] ? p : low)))
        const heapPerMin = slope(floors.map(([t, y]) => [t / 60, y / MB]))
        const mb = (b: number) => `${(b / MB).toFixed(1)} MB`
        const lines = [
          `payments ${count(pay)} (${pay.rps.toFixed(0)}/s, p50 ${pay.p50.toFixed(0)} ms, p99 ${pay.p99.toFixed(0)} ms); buyer lists ${count(list)}; GET /roles ${count(roles)}; webhooks received ${hooks.received()}`,
          `RSS after warm-up ${mb(at(WARM_UP_S))}, at the end ${mb(after.at(-1)?.[1] ?? 0)}, at most ${mb(Math.max(...after.map(([, y]) => y)))}; ${after.length} samples`,
          `RSS slope after warm-up ${perMin >= 0 ? '+' : ''}${perMin.toFixed(3)} MB/min (${((perMin / (at(WARM_UP_S) / MB)) * 100).toFixed(3)} % of the level per minute)`,
          `V8 heap in use, each minute's lowest: ${floors.map(([, y]) => (y / MB).toFixed(1)).join(', ')} MB; slope ${heapPerMin >= 0 ? '+' : ''}${heapPerMin.toFixed(3)} MB/min`,
        ]
        for (const l of lines) process.stdout.write(`soak: ${l}\n`)
      } finally {
        await orka.stop()
      }
    })
  } finally {
    await hooks.close()
    await mongo.stop()
  }
}

if (require.main === module)
  main().catch((e: unknown) => {
    process.stderr.write(`soak failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`)
    process.exit(1)
  })
