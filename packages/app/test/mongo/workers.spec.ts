import { expect } from 'chai'
import { spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { MongoClient } from 'mongodb'
import { mintToken } from '../../src/mint-token'
import { errorBody, makeFixture } from '../support/harness'
import { call, clusterListening, OrkaCluster, servedBy, spawnOrka } from './cluster-process'
import { freshDatabase, mongoUri } from './support'

const main = join(__dirname, '..', '..', 'src', 'main.js')
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const sorted = (pids: Iterable<number>) => [...new Set(pids)].sort((a, b) => a - b)
const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('WORKERS=2 on MongoDB: one service in several processes', function () {
  this.timeout(120_000)
  let db: ReturnType<typeof freshDatabase>
  let orka: OrkaCluster
  let url: string
  let pids: number[]
  let admin: string
  let fixture: ReturnType<typeof makeFixture>
  let n = 0
  const id = (what: string) => `${what}-${++n}`
  const get = (path: string, requestId = id('get')) =>
    call(url, 'GET', path, { headers: { authorization: `Bearer ${admin}`, 'x-request-id': requestId } })

  beforeEach(async () => {
    db = freshDatabase()
    fixture = makeFixture()
    orka = spawnOrka({
      ...process.env,
      ...db.env,
      WORKERS: '2',
      PORT: '0',
      HOST: '127.0.0.1',
      SEED_FILE: fixture.seedFile,
      DATA_DIR: join(fixture.dir, 'data'),
      LOG_LEVEL: 'info',
    })
    ;({ url, pids } = await clusterListening(orka, 2))
    admin = mintToken(fixture.pems.admin, { scopes: ['*.read', '*.write'], expiresInS: 600 })
  })
  afterEach(async () => {
    if (orka.child.exitCode === null && orka.child.signalCode === null) {
      orka.child.kill('SIGTERM')
      await orka.exited
    }
    await db.drop()
  })

  it('prepares storage once in the primary; two workers serve one port, the access log naming each request’s worker', async () => {
    const lines = orka.lines()
    expect(lines.filter((l) => l.msg === 'seed file applied').map((l) => l.role)).to.deep.equal(['primary'])
    expect(lines.filter((l) => l.msg?.startsWith('storage: ') === true).map((l) => l.role)).to.deep.equal(['primary'])
    expect(pids).to.have.length(2)
    expect(sorted(pids)).to.have.length(2)
    expect(pids).not.to.include(orka.child.pid)
    const ids = Array.from({ length: 10 }, () => id('roles'))
    for (const requestId of ids) expect((await get('/roles?limit=1', requestId)).status).to.equal(200)
    const served = await Promise.all(ids.map((r) => servedBy(orka, r)))
    expect(sorted(served)).to.deep.equal(sorted(pids))
    for (let i = 0; i < 4; i++) {
      const health = await call(url, 'GET', '/healthz')
      expect([health.status, JSON.parse(health.text)]).to.deep.equal([200, { status: 'ok' }])
      const ready = await call(url, 'GET', '/readyz')
      expect([ready.status, JSON.parse(ready.text)]).to.deep.equal([200, { status: 'ready', storage: db.env.MONGODB_DATABASE }])
    }
  })

  it('admits an embed token exactly 50 times in 60 s across the workers: 70 activations, 50 × 201, then 20 × 429', async () => {
    const token = mintToken(fixture.pems.admin, { scopes: ['embed'], expiresInS: 600 })
    const number = (i: number) => `6300000000${String(i).padStart(6, '0')}001`
    const batches: { status: number; requestId: string; retryAfter: unknown }[][] = []
    // Seven rounds of ten at once, each round on ten new connections (both workers).
    for (let b = 0; b < 7; b++)
      batches.push(
        await Promise.all(
          Array.from({ length: 10 }, async (_, j) => {
            const requestId = id('embed')
            const r = await call(url, 'POST', '/gift-cards/activations', {
              headers: { authorization: `Bearer ${token}`, 'x-request-id': requestId },
              body: { number: number(b * 10 + j) },
            })
            return { status: r.status, requestId, retryAfter: r.headers['retry-after'] }
          }),
        ),
      )
    expect(batches.map((round) => round.map((r) => r.status))).to.deep.equal([
      ...Array.from({ length: 5 }, () => Array.from({ length: 10 }, () => 201)),
      ...Array.from({ length: 2 }, () => Array.from({ length: 10 }, () => 429)),
    ])
    for (const r of batches.slice(5).flat()) expect(r.retryAfter).to.match(/^\d+$/)
    const admittedBy = await Promise.all(
      batches
        .slice(0, 5)
        .flat()
        .map((r) => servedBy(orka, r.requestId)),
    )
    expect(sorted(admittedBy)).to.deep.equal(sorted(pids))
  })

  it('runs 20 concurrent activations with one idempotency key once across the workers; the rest are 425 or replays', async () => {
    const body = { number: '6400000000000000009', pin: '2468', store: true } // answers after 2 s: all 20 overlap
    const headers = { authorization: `Bearer ${admin}`, 'idempotency-key': 'workers-key' }
    const ids = Array.from({ length: 20 }, () => id('idem'))
    const replies = await Promise.all(
      ids.map((requestId) => call(url, 'POST', '/gift-cards/activations', { headers: { ...headers, 'x-request-id': requestId }, body })),
    )
    const first = replies.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined)
    expect(first).to.have.length(1)
    for (const r of replies.filter((x) => x !== first[0])) {
      if (r.status === 425) expect(JSON.parse(r.text)).to.deep.equal(errorBody(425))
      else expect([r.status, r.headers['idempotent-replayed'], r.text]).to.deep.equal([201, 'true', first[0]!.text])
    }
    expect(sorted(await Promise.all(ids.map((r) => servedBy(orka, r))))).to.deep.equal(sorted(pids))
    const later = Array.from({ length: 4 }, () => id('replay'))
    for (const requestId of later) {
      const r = await call(url, 'POST', '/gift-cards/activations', { headers: { ...headers, 'x-request-id': requestId }, body })
      expect([r.status, r.headers['idempotent-replayed'], r.text]).to.deep.equal([201, 'true', first[0]!.text])
    }
    expect(sorted(await Promise.all(later.map((r) => servedBy(orka, r))))).to.deep.equal(sorted(pids))
    const client = new MongoClient(mongoUri())
    try {
      await client.connect()
      expect(await client.db(db.env.MONGODB_DATABASE).collection('vaulted_gift_cards').countDocuments()).to.equal(1)
    } finally {
      await client.close()
    }
  })

  it('restarts a worker killed with SIGKILL: the other answers meanwhile, then both serve again', async () => {
    const [victim, survivor] = pids as [number, number]
    process.kill(victim, 'SIGKILL')
    const died = await orka.waitFor((l) => l.role === 'primary' && l.workerPid === victim && 'restartInMs' in l, 'the death of a worker')
    expect(died).to.include({ signal: 'SIGKILL', restartInMs: 500 })
    for (let i = 0; i < 6; i++) expect((await get('/roles?limit=1')).status).to.equal(200)
    const replacement = (await orka.waitFor((l) => l.msg === 'worker listening' && l.restarted === true, 'the replacement listening'))
      .workerPid as number
    expect([victim, survivor]).not.to.include(replacement)
    const ids = Array.from({ length: 10 }, () => id('after'))
    for (const requestId of ids) expect((await get('/roles?limit=1', requestId)).status).to.equal(200)
    expect(sorted(await Promise.all(ids.map((r) => servedBy(orka, r))))).to.deep.equal(sorted([survivor, replacement]))
  })

  it('on SIGTERM finishes the request in flight, stops every worker and exits 0', async () => {
    const client = new MongoClient(mongoUri())
    try {
      await client.connect()
      const records = client.db(db.env.MONGODB_DATABASE).collection('idempotency_records')
      const slow = call(url, 'POST', '/gift-cards/activations', {
        headers: { authorization: `Bearer ${admin}`, 'idempotency-key': 'in-flight-at-sigterm' },
        body: { number: '6500000000000000009' }, // answers after 2 s
      })
      // The key is claimed before the gift card service is asked: the request is then in flight.
      while ((await records.countDocuments()) === 0) await sleep(20)
      orka.child.kill('SIGTERM')
      const answer = await slow
      expect(answer.status).to.equal(201)
      expect(await orka.exited).to.deep.equal({ code: 0, signal: null })
    } finally {
      await client.close()
    }
    for (const pid of pids) expect(isRunning(pid), `worker ${pid}`).to.equal(false)
    const stops = orka.lines().filter((l) => l.msg === 'stopped')
    expect(sorted(stops.map((l) => l.pid!))).to.deep.equal(sorted([...pids, orka.child.pid!]))
  })
})

describe('WORKERS=2: start-up failures end the primary', function () {
  this.timeout(60_000)

  it('a worker that cannot listen (the port is taken): the primary exits 1 with its reason, once', async () => {
    const db = freshDatabase()
    const taken = createServer()
    taken.listen(0, '127.0.0.1')
    await once(taken, 'listening')
    try {
      const fixture = makeFixture()
      const orka = spawnOrka({
        ...process.env,
        ...db.env,
        WORKERS: '2',
        PORT: String((taken.address() as AddressInfo).port),
        HOST: '127.0.0.1',
        DATA_DIR: join(fixture.dir, 'data'),
      })
      expect(await orka.exited).to.deep.equal({ code: 1, signal: null })
      const reasons = orka.out().match(/^Orka could not start: .*$/gm)
      expect(reasons).to.have.length(1)
      expect(reasons![0]).to.match(/EADDRINUSE/)
      expect(orka.out()).not.to.include('Orka listening')
    } finally {
      taken.close()
      await db.drop()
    }
  })

  it('MongoDB unreachable: the primary exits 1 with one line before forking anything', () => {
    const r = spawnSync(process.execPath, [main], {
      env: { ...process.env, MONGODB_URI: 'mongodb://127.0.0.1:1/', MONGODB_TIMEOUT_MS: '500', WORKERS: '2', PORT: '0', METRICS_PORT: '0' },
      encoding: 'utf8',
      timeout: 30_000,
    })
    expect(r.status).to.equal(1)
    expect(r.stderr).to.match(/^Orka could not start: [^\n]*127\.0\.0\.1:1[^\n]*\n$/)
    expect(r.stdout).not.to.include('starting 2 workers')
  })

  it('the embedded store refuses WORKERS=2 with one line saying why; WORKERS=0 is a configuration error', () => {
    const run = (env: Record<string, string>) =>
      spawnSync(process.execPath, [main], {
        env: { ...process.env, MONGODB_URI: '', PORT: '0', METRICS_PORT: '0', ...env },
        encoding: 'utf8',
        timeout: 30_000,
      })
    const two = run({ WORKERS: '2' })
    expect([two.status, two.stderr]).to.deep.equal([
      1,
      'configuration error: WORKERS: more than 1 needs MONGODB_URI: the embedded store lives inside each process, so every worker would have its own data, rate limits and idempotency keys\n',
    ])
    const zero = run({ WORKERS: '0' })
    expect([zero.status, zero.stderr]).to.deep.equal([1, "configuration error: WORKERS: expected an integer from 1 to 64, got '0'\n"])
  })
})
