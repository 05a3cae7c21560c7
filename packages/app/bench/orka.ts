import { randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { MongoClient } from 'mongodb'
import { Bench } from './bench'
import { BenchFailure, freePort, NotMeasured, ORKA_MAIN, Server, startServer } from './processes'

export interface OrkaOptions {
  /** Environment on top of the bench's (port, seed with the bench's key, data dir, the store). */
  readonly env?: Record<string, string>
  /** Records added to the seed file (buyers, ...). */
  readonly seed?: Record<string, unknown>
  /** Default: the servers' CPUs; `null`: not pinned. */
  readonly cpus?: string | null
  readonly readyTimeoutMs?: number
}

let started = 0

/** Orka in its own process (`dist/src/main.js`, default log level: its access log goes to a file). */
export const startOrka = async (bench: Bench, name: string, o: OrkaOptions = {}): Promise<Server> => {
  const dir = join(bench.dir, `orka-${++started}`)
  mkdirSync(dir)
  const seedFile = join(dir, 'seed.json')
  writeFileSync(seedFile, JSON.stringify({ api_key_pairs: [{ public_key_pem: bench.key.publicKeyPem }], ...o.seed }))
  const port = await freePort()
  // Metrics on, as by default, each instance on a port of its own (several may run at once).
  const metricsPort = await freePort()
  return startServer({
    name,
    script: ORKA_MAIN,
    env: {
      MONGODB_URI: '',
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      HOST: '127.0.0.1',
      SEED_FILE: seedFile,
      DATA_DIR: dir,
      ...o.env,
    },
    port,
    cpus: o.cpus === null ? undefined : (o.cpus ?? bench.machine.serverCpus),
    logFile: join(dir, 'orka.log'),
    readyPath: '/readyz',
    readyTimeoutMs: o.readyTimeoutMs ?? 120_000,
  })
}

/** One request that must answer `expect`; its body, as sent. */
export const call = async (
  server: Server,
  method: string,
  path: string,
  expect: number,
  o: { readonly token?: string; readonly body?: string; readonly headers?: Record<string, string> } = {},
): Promise<Buffer> => {
  const r = await fetch(server.url + path, {
    method,
    headers: {
      ...(o.token === undefined ? {} : { authorization: `Bearer ${o.token}` }),
      ...(o.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...o.headers,
    },
    ...(o.body === undefined ? {} : { body: o.body }),
    signal: AbortSignal.timeout(30_000),
  }).catch((e: unknown) => {
    throw new BenchFailure(`${server.name} does not answer ${method} ${path}: ${e instanceof Error ? e.message : String(e)}`)
  })
  const body = Buffer.from(await r.arrayBuffer())
  if (r.status !== expect)
    throw new BenchFailure(
      `${server.name}: ${method} ${path} answered ${r.status}, expected ${expect}: ${body.toString('utf8').slice(0, 300)}`,
    )
  return body
}

/** A database of its own for one MongoDB case, dropped afterwards; NotMeasured without a MongoDB. */
export const withMongoDatabase = async <A>(bench: Bench, use: (uri: string, db: string) => Promise<A>): Promise<A> => {
  if ('missing' in bench.mongo) throw new NotMeasured(bench.mongo.missing)
  const { uri } = bench.mongo
  const db = `orka_bench_${randomBytes(4).toString('hex')}`
  try {
    return await use(uri, db)
  } finally {
    const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 5000 }).catch(() => undefined)
    await client
      ?.db(db)
      .dropDatabase()
      .catch(() => undefined)
    await client?.close()
  }
}

/** Orka on MongoDB: its own database and a fixed VAULT_KEY. */
export const mongoEnv = (uri: string, db: string): Record<string, string> => ({
  MONGODB_URI: uri,
  MONGODB_DATABASE: db,
  VAULT_KEY: randomBytes(32).toString('hex'),
})
