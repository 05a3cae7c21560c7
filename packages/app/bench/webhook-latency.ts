import { ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { AddressInfo } from 'node:net'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { MongoClient } from 'mongodb'
import { generateKeyPair } from '../src/dev-key'
import { mintToken } from '../src/mint-token'
import { nodeCommand, ORKA_MAIN } from './processes'

/**
 * From the `201` that creates an event to the first delivery attempt reaching the receiver, on
 * an idle service: the service runs in its own process (embedded store, then MongoDB when
 * `MONGODB_URI` is set), this process sends one `POST /buyers` at a time and receives the
 * webhooks. Prints p50/p99/max against the 1 s target; `BENCH_EVENTS` (default 200) per storage.
 * `BENCH_WEBHOOK_STORAGES` (`memory,mongodb` by default) picks the storages; `BENCH_SERVER_CPUS`
 * pins the service with `taskset -c` (`npm run bench` sets both for its case 8).
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 200)
const STORAGES = (process.env.BENCH_WEBHOOK_STORAGES ?? 'memory,mongodb').split(',')
const SERVER_CPUS = process.env.BENCH_SERVER_CPUS === '' ? undefined : process.env.BENCH_SERVER_CPUS
const TARGET_MS = 1000
const main = ORKA_MAIN

const receiver = async () => {
  const arrivals = new Map<string, number>()
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const at = performance.now()
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { target: { id: string } }
      if (!arrivals.has(event.target.id)) arrivals.set(event.target.id, at)
      res.writeHead(204).end()
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrivals, close: () => server.close() }
}

const startService = async (env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> => {
  const [cmd, args] = nodeCommand(main, [], SERVER_CPUS)
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  const collect = (d: Buffer) => (out += d.toString())
  child.stdout.on('data', collect)
  while (!out.includes('Orka listening')) {
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode})`)
    await once(child.stdout, 'data')
  }
  // The rest of its log is read and dropped, so the pipe never fills.
  child.stdout.off('data', collect).resume()
  const url = /Orka listening on (\S+)"/.exec(out)?.[1]
  if (url === undefined) throw new Error(`the service logged no URL: ${out}`)
  return { child, url }
}

const percentile = (sorted: number[], p: number) => {
  const v = sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
  if (v === undefined) throw new Error('no samples')
  return v
}

const measure = async (storage: string, extraEnv: Record<string, string>) => {
  const dir = mkdtempSync(join(tmpdir(), 'orka-bench-wh-'))
  const key = generateKeyPair()
  writeFileSync(join(dir, 'seed.json'), JSON.stringify({ api_key_pairs: [{ public_key_pem: key.publicKeyPem }] }))
  const rx = await receiver()
  const service = await startService({
    PORT: '0',
    HOST: '127.0.0.1',
    SEED_FILE: join(dir, 'seed.json'),
    DATA_DIR: dir,
    LOG_LEVEL: 'info',
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
    ...extraEnv,
  })
  try {
    const headers = {
      authorization: `Bearer ${mintToken(key.privateKeyPem, { scopes: ['*.read', '*.write'], expiresInS: 3600 })}`,
      'content-type': 'application/json',
    }
    const post = async (path: string, body: unknown) => {
      const r = await fetch(service.url + path, { method: 'POST', headers, body: JSON.stringify(body) })
      const json = (await r.json()) as { id: string }
      if (r.status !== 201) throw new Error(`POST ${path} answered ${r.status}: ${JSON.stringify(json)}`)
      return json
    }
    await post('/webhook-subscriptions', { url: `${rx.url}/hook` })
    const sent = new Map<string, number>()
    for (let i = 0; i < EVENTS; i++) {
      const buyer = await post('/buyers', { external_identifier: `bench-${i}` })
      sent.set(buyer.id, performance.now())
      // Idle between events: each one is measured alone.
      await new Promise((r) => setTimeout(r, 50))
    }
    const deadline = Date.now() + 10_000
    while (rx.arrivals.size < EVENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    if (rx.arrivals.size < EVENTS) throw new Error(`${storage}: only ${rx.arrivals.size} of ${EVENTS} events arrived`)
    const ms = [...sent]
      .map(([id, at]) => {
        const arrived = rx.arrivals.get(id)
        if (arrived === undefined) throw new Error(`${storage}: the event of buyer ${id} did not arrive`)
        return arrived - at
      })
      .sort((a, b) => a - b)
    const p99 = percentile(ms, 99)
    console.log(
      `${storage.padEnd(10)} ${String(EVENTS).padStart(5)} events   p50 ${percentile(ms, 50).toFixed(1).padStart(7)} ms   ` +
        `p99 ${p99.toFixed(1).padStart(7)} ms   max ${percentile(ms, 100).toFixed(1).padStart(7)} ms   ` +
        `target p99 <= ${TARGET_MS} ms: ${p99 <= TARGET_MS ? 'met' : 'MISSED'}`,
    )
  } finally {
    service.child.kill('SIGTERM')
    await once(service.child, 'exit')
    rx.close()
  }
}

const run = async () => {
  console.log(
    `Webhook event to first delivery attempt, idle service (${cpus().length} cores, Node ${process.version}); the 201 is the start`,
  )
  if (STORAGES.includes('memory')) await measure('memory', { MONGODB_URI: '' })
  const uri = process.env.MONGODB_URI
  if (!STORAGES.includes('mongodb')) return
  if (uri) {
    const db = `orka_bench_${randomBytes(4).toString('hex')}`
    try {
      await measure('MongoDB', { MONGODB_DATABASE: db, VAULT_KEY: randomBytes(32).toString('hex') })
    } finally {
      const client = await MongoClient.connect(uri)
      await client.db(db).dropDatabase()
      await client.close()
    }
  } else console.log('MongoDB    not measured: set MONGODB_URI (for instance from scripts/mongo-test-server)')
}

run().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e))
  process.exit(1)
})
