import { ChildProcessByStdio, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { MongoClient } from 'mongodb'
import { COLLECTIONS } from '@orka/adapters-mongo'
import { mintToken } from '../../src/mint-token'
import { ManualClock } from '@orka/domain/testing'
import { Fixture, Harness, makeFixture, startHarness } from '../support/harness'

/** The server the README's test command started (scripts/mongo-test-server), or a given one. */
export const mongoUri = (): string => {
  const uri = process.env.MONGODB_URI
  if (!uri) throw new Error('MONGODB_URI is not set: run the tests with `npm test`, which starts scripts/mongo-test-server')
  return uri
}

/** A fresh database name and the env that points instances at it; `drop` removes it. */
export const freshDatabase = () => {
  const name = `orka_app_${randomBytes(4).toString('hex')}`
  return {
    env: { MONGODB_URI: mongoUri(), MONGODB_DATABASE: name, VAULT_KEY: randomBytes(32).toString('hex') },
    drop: async () => {
      const client = new MongoClient(mongoUri())
      try {
        await client.connect()
        await client.db(name).dropDatabase()
      } finally {
        await client.close()
      }
    },
  }
}

/** Two instances on one fresh database, with the same keys, seed and clock: what a race across instances runs on. */
export interface TwoInstances {
  readonly a: Harness
  readonly b: Harness
  readonly database: string
  /** Stops both and drops the database. */
  close(): Promise<void>
}

export const twoInstances = async (env: Record<string, string> = {}): Promise<TwoInstances> => {
  const db = freshDatabase()
  const fixture = makeFixture()
  const clock = new ManualClock(new Date())
  const both = { ...db.env, ...env }
  const a = await startHarness({ fixture, clock, env: both })
  const b = await startHarness({ fixture, clock, env: both })
  return {
    a,
    b,
    database: db.env.MONGODB_DATABASE,
    close: async () => {
      await Promise.all([a.close(), b.close()])
      await db.drop()
    },
  }
}

export interface OrkaProcess {
  readonly child: ChildProcessByStdio<null, Readable, Readable>
  readonly url: string
  /** When it said it was listening. */
  readonly readyAt: number
  /** Everything it printed so far, stdout and stderr. */
  out(): string
}

/** `main.js` as its own process (for kill -9 tests), resolved once it listens. */
export const startOrkaProcess = async (env: NodeJS.ProcessEnv): Promise<OrkaProcess> => {
  const child = spawn(process.execPath, [join(__dirname, '..', '..', 'src', 'main.js')], {
    env: { METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += String(d)))
  child.stderr.on('data', (d: Buffer) => (out += String(d)))
  while (!out.includes('Orka listening')) {
    if (child.exitCode !== null) throw new Error(`orka exited: ${out}`)
    await once(child.stdout, 'data')
  }
  return { child, url: /Orka listening on (\S+)"/.exec(out)![1]!, readyAt: Date.now(), out: () => out }
}

/** An HTTP answer as the crash tests keep it. */
export interface Answer {
  readonly status: number
  readonly text: string
  readonly retryAfterS: number
}

/** Calls Orka at `url` with `headers` (and `extra`) on every request; a body is sent as JSON. */
export const caller =
  (headers: Record<string, string>) =>
  async (url: string, method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<Answer> => {
    const r = await fetch(`${url}${path}`, {
      method,
      headers: { ...headers, ...extra },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    return { status: r.status, text: await r.text(), retryAfterS: Number(r.headers.get('retry-after') ?? '1') }
  }

/** Every transaction's newest version in `database`, as stored (its record parsed as `R`), by transaction id. */
export const storedTransactions = async <R>(client: MongoClient, database: string): Promise<Map<string, R>> => {
  const versions = client
    .db(database)
    .collection<{ transaction_id: string; version: number; record: string }>(COLLECTIONS.transactionVersions)
  const newest = new Map<string, { version: number; record: R }>()
  for (const d of await versions.find({}, { projection: { transaction_id: 1, version: 1, record: 1 } }).toArray()) {
    const was = newest.get(d.transaction_id)
    if (was === undefined || was.version < d.version)
      newest.set(d.transaction_id, { version: d.version, record: JSON.parse(d.record) as R })
  }
  return new Map([...newest].map(([id, v]) => [id, v.record]))
}

/**
 * What a kill -9 test's Orka processes run with (on `database`'s env, with the fixture's keys
 * and seed), and an administrator's headers for every call.
 */
export const crashTestSetup = (database: Record<string, string>, fixture: Fixture) => ({
  env: {
    ...process.env,
    ...database,
    PORT: '0',
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    SEED_FILE: fixture.seedFile,
    DATA_DIR: join(fixture.dir, 'data'),
    IDEMPOTENCY_LEASE_S: '5',
    // Long enough that an unanswered call is still open at the kill; short enough that the recovery bound stays 60 s.
    CONNECTOR_TIMEOUT_MS: '15000',
    LOG_LEVEL: 'info',
  },
  headers: {
    authorization: `Bearer ${mintToken(fixture.pems.admin, { scopes: ['*.read', '*.write'], expiresInS: 900, now: new Date() })}`,
    'content-type': 'application/json',
  },
})
