import 'reflect-metadata'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateKeyPair } from '../src/dev-key'
import { mintToken } from '../src/mint-token'
import { Bench } from './bench'
import { memoryDepthCase, mongoDepthCase } from './cases/buyers-depth'
import { failures } from './cases/common'
import { embedFloodCases } from './cases/embed-flood'
import { limiterMemoryCase } from './cases/limiter-memory'
import { memoryHttpCases } from './cases/memory-http'
import { mongoWritesCase } from './cases/mongo-writes'
import {
  CardOnly,
  memoryTransactionsCase,
  mongoCardTransactionsCase,
  mongoSplitTransactionsCase,
  mongoTransactionsCase,
} from './cases/transactions'
import { webhooksCase } from './cases/webhooks'
import { workersCase } from './cases/workers'
import { cpuMark, describeMachine, hasCommand, machineLine, othersShare, pinningLine } from './machine'
import { MongoTarget, provideMongo } from './mongo'
import { BENCH_DIR, ORKA_MAIN, runJsonChild, sleep } from './processes'
import { formatNotes, formatTable, int, Row } from './table'

/**
 * `npm run bench`: every case of issues 13, 22, 23 and 25 in one run, each server (Orka and the references) in
 * its own process, the load from another (autocannon, or wrk when installed), one table at the end.
 *
 * BENCH_SECONDS (8) per measured run; BENCH_FRESH_TOKENS (5000) for case 4; BENCH_LIMITER_TOKENS
 * (30000) for case 7; BENCH_CASES (e.g. `1,4,6`) runs some cases only; BENCH_ORKA measures another
 * build (its `dist/src/main.js`); MONGODB_URI, else
 * scripts/mongo-test-server is started for the MongoDB cases and stopped at the end.
 */
const CONNECTIONS = 32

const positive = (name: string, fallback: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n <= 0) {
    console.error(`${name}: expected a positive integer, got '${raw}'`)
    process.exit(2)
  }
  return n
}

/** Share of the machine's CPU time spent in the second before the run (other work competing with the bench). */
const busyShare = async (): Promise<number> => {
  const sample = () => {
    const f = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number)
    return { idle: (f[3] ?? 0) + (f[4] ?? 0), total: f.reduce((a, b) => a + b, 0) }
  }
  const a = sample()
  await sleep(1000)
  const b = sample()
  return b.total === a.total ? 0 : 1 - (b.idle - a.idle) / (b.total - a.total)
}

/** Embed tokens minted by one process per core (ES512 signing is slow), concatenated in one file. */
const mintPool = async (dir: string, privateKeyFile: string, count: number, cores: number): Promise<number> => {
  const started = performance.now()
  const parts = Math.min(cores, count)
  const files = await Promise.all(
    Array.from({ length: parts }, async (_, k) => {
      const file = join(dir, `tokens-${k}.txt`)
      const n = Math.floor(count / parts) + (k < count % parts ? 1 : 0)
      await runJsonChild('minting tokens', join(BENCH_DIR, 'mint-tokens.js'), [privateKeyFile, String(n), file, '10800'], {
        cpus: undefined,
        timeoutMs: 3_600_000,
      })
      return file
    }),
  )
  writeFileSync(join(dir, 'tokens.txt'), files.map((f) => readFileSync(f, 'utf8')).join('\n'))
  return (performance.now() - started) / 1000
}

const main = async () => {
  const started = performance.now()
  const machine = describeMachine()
  const seconds = positive('BENCH_SECONDS', 8)
  const freshTokenRun = positive('BENCH_FRESH_TOKENS', 5000)
  const limiterTokenRun = positive('BENCH_LIMITER_TOKENS', 30000)
  const only = (process.env.BENCH_CASES ?? '').split(',').filter((c) => c !== '')
  const selected = (id: string) => only.length === 0 || only.includes(id)
  const wrk = hasCommand('wrk')
  const dir = mkdtempSync(join(tmpdir(), 'orka-bench-'))

  const busy = await busyShare()
  const header = [
    `Orka benchmark: ${machineLine(machine)}`,
    pinningLine(machine),
    `load generator: ${wrk ? 'wrk' : 'autocannon'}, one thread in its own process, ${CONNECTIONS} connections, ${seconds} s per run after a 2 s warm-up` +
      (wrk ? ' (autocannon for the runs that use each token once)' : ''),
    `Orka runs as shipped (${ORKA_MAIN === join(BENCH_DIR, '..', 'src', 'main.js') ? "this build's dist/src/main.js" : ORKA_MAIN}, default settings unless a case says otherwise; LOG_LEVEL info: an access-log line per request, to a file)`,
    `other load on the machine before the run: ${(busy * 100).toFixed(0)} % of all CPU time busy, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  ]
  for (const line of header) process.stderr.write(`bench: ${line}\n`)

  const key = generateKeyPair()
  const privateKeyFile = join(dir, 'key.pem')
  const publicKeyFile = join(dir, 'key.pub.pem')
  writeFileSync(privateKeyFile, key.privateKeyPem)
  writeFileSync(publicKeyFile, key.publicKeyPem)
  const poolSize = Math.max(selected('4') ? freshTokenRun : 0, selected('7') ? limiterTokenRun : 0)
  process.stderr.write(`bench: minting ${int(poolSize)} ES512 tokens in ${Math.min(machine.cores, Math.max(1, poolSize))} processes\n`)
  const mintSeconds = poolSize === 0 ? 0 : await mintPool(dir, privateKeyFile, poolSize, machine.cores)

  const needsMongo = ['5', '6', '8', '9', '10', '12', '13', '14'].some(selected)
  const mongo: MongoTarget = needsMongo ? await provideMongo() : { missing: 'not selected' }
  if (needsMongo) process.stderr.write(`bench: MongoDB: ${'missing' in mongo ? mongo.missing : mongo.description}\n`)

  const bench: Bench = {
    machine,
    seconds,
    connections: CONNECTIONS,
    dir,
    wrk,
    key: { ...key, privateKeyFile, publicKeyFile },
    token: mintToken(key.privateKeyPem, { scopes: ['*.read', '*.write'], expiresInS: 10800 }),
    freshTokens: { file: join(dir, 'tokens.txt'), count: poolSize, mintSeconds },
    freshTokenRun,
    limiterTokenRun,
    mongo: 'missing' in mongo ? mongo : { uri: mongo.uri, description: mongo.description },
  }
  const rows: Row[] = []
  const contention: string[] = []
  /** Runs some cases and notes how much CPU time other processes took meanwhile. */
  const watched = async (ids: string, mongoDb: boolean, run: () => Promise<Row[]>) => {
    const a = cpuMark()
    const done = await run()
    rows.push(...done)
    if (done.every((r) => r.result.startsWith('not measured'))) return
    const share = othersShare(a, cpuMark(), machine.cores)
    contention.push(
      `${ids}: other processes used ${(share * 100).toFixed(0)} % of the machine's CPU time meanwhile` +
        (mongoDb ? ' (the MongoDB server, FerretDB and its PostgreSQL, counts as other)' : ''),
    )
  }
  try {
    if (['1', '2', '3', '4'].some(selected)) await watched('1-4', false, () => memoryHttpCases(bench, selected))
    if (selected('5')) await watched('5', true, async () => [await mongoWritesCase(bench)])
    if (selected('6')) {
      await watched('6a', false, async () => [await memoryDepthCase(bench)])
      await watched('6b', true, async () => [await mongoDepthCase(bench)])
    }
    if (selected('7')) await watched('7', false, async () => [await limiterMemoryCase(bench)])
    if (selected('8')) await watched('8', true, async () => [await webhooksCase(bench)])
    if (selected('9')) await watched('9', true, async () => [await workersCase(bench)])
    if (selected('10')) await watched('10', true, () => embedFloodCases(bench))
    if (selected('11')) await watched('11', false, async () => [await memoryTransactionsCase(bench)])
    if (selected('12')) await watched('12', true, async () => [await mongoTransactionsCase(bench)])
    // Case 14 shows case 13's figures beside its own when both run.
    let cardOnly: CardOnly | undefined
    if (selected('13'))
      await watched('13', true, async () => {
        const r = await mongoCardTransactionsCase(bench)
        cardOnly = r.cardOnly
        return [r.row]
      })
    if (selected('14')) await watched('14', true, async () => [await mongoSplitTransactionsCase(bench, cardOnly)])
  } finally {
    if (!('missing' in mongo)) await mongo.stop()
  }

  const elapsed = (performance.now() - started) / 1000
  const busyAfter = await busyShare()
  const notes = [
    `other load on the machine after the run: ${(busyAfter * 100).toFixed(0)} % of all CPU time busy`,
    `tokens: ${int(poolSize)} minted in ${mintSeconds.toFixed(0)} s before the cases (not counted); MongoDB: ${'missing' in mongo ? mongo.missing : mongo.description}`,
    `whole run: ${Math.floor(elapsed / 60)} min ${Math.round(elapsed % 60)} s`,
  ]
  console.log([...header, '', formatTable(rows), '', ...formatNotes(rows), ...contention, ...notes].join('\n'))
  if (failures.length > 0) {
    console.error(`\nbench FAILED (${failures.length}):\n${[...new Set(failures)].map((f) => `- ${f}`).join('\n')}`)
    process.exitCode = 1
  } else rmSync(dir, { recursive: true, force: true })
}

main().catch((e: unknown) => {
  console.error(`bench FAILED: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`)
  process.exit(1)
})
