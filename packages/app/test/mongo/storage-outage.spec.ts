import { expect } from 'chai'
import { ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { errorBody, Harness, startHarness } from '../support/harness'

/**
 * STORAGE_TIMEOUT_MS end to end, against a FerretDB of this suite's own (never the shared test
 * server): frozen with SIGSTOP, then resumed with SIGCONT; and down (its process killed), then
 * started again on the same address and database. While storage is frozen or down, requests
 * answer `500` with `Retry-After` within the bound and `/readyz` answers `503` within 2 s; once
 * it is back, both answer `200` again without restarting Orka.
 */

const ROOT = join(__dirname, '..', '..', '..', '..', '..')
const STORAGE_TIMEOUT_MS = 1000
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** Waits for `p`, at most `ms`; the timer goes as soon as `p` settles, so it holds nothing open. */
const atMost = async (p: Promise<unknown>, ms: number): Promise<void> => {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([p, new Promise((r) => (timer = setTimeout(r, ms)))])
  clearTimeout(timer)
}

const alive = (pid: number): boolean => {
  try {
    // A zombie (killed, not yet reaped by its stopped parent) no longer serves.
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}
const signal = (pid: number | undefined, sig: NodeJS.Signals) => {
  if (pid === undefined) return
  try {
    process.kill(pid, sig)
  } catch {
    // already gone
  }
}

/**
 * Stops the process and waits until every one of its threads is stopped: a thread busy in the
 * kernel stops only when it comes back, and meanwhile it may still answer a request (seen once,
 * a `/readyz` 200 just after `SIGSTOP` on a loaded CI machine).
 */
const freeze = async (pid: number) => {
  signal(pid, 'SIGSTOP')
  const stateOf = (stat: string) => stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[0]
  const stopped = () =>
    readdirSync(`/proc/${pid}/task`).every((t) => ['T', 't'].includes(stateOf(readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8')) ?? ''))
  for (let i = 0; i < 200 && !stopped(); i++) await sleep(5)
  expect(stopped(), 'every thread of FerretDB stopped').to.equal(true)
}

/** `scripts/mongo-test-server` as a child: its URI, its own pid and the FerretDB binary's (its child). */
const startFerret = async () => {
  const script = spawn(process.execPath, [join(ROOT, 'scripts', 'mongo-test-server')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  script.stdout.on('data', (d: Buffer) => (out += String(d)))
  script.stderr.on('data', (d: Buffer) => (err += String(d)))
  const deadline = Date.now() + 120_000
  while (!/^MONGODB_URI=\S+$/m.test(out)) {
    if (script.exitCode !== null) throw new Error(`mongo-test-server exited with ${script.exitCode}: ${err.slice(-2000)}`)
    if (Date.now() > deadline) throw new Error(`mongo-test-server printed no URI in 120 s: ${err.slice(-2000)}`)
    await sleep(100)
  }
  const uri = /^MONGODB_URI=(\S+)$/m.exec(out)![1]!
  const children = execFileSync('pgrep', ['-P', String(script.pid)], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter(Boolean)
    .map(Number)
  if (children.length !== 1) throw new Error(`expected one child of mongo-test-server, found ${children.length}`)
  const ferretPid = children[0]!
  // What started it, to start it again on the same address and PostgreSQL database.
  const argv = readFileSync(`/proc/${ferretPid}/cmdline`, 'utf8')
    .split('\0')
    .filter((a) => a !== '')
  if (!existsSync(argv[0]!)) throw new Error(`cannot find the FerretDB binary at ${argv[0]}`)
  return { script, uri, ferretPid, argv }
}

/** Should this process end abruptly: nothing frozen or running is left behind, and the script drops its database. */
const leaveNothingBehind = (ferret: { script: ChildProcess; ferretPid: number }, respawned: () => ChildProcess | undefined) => () => {
  signal(ferret.ferretPid, 'SIGCONT')
  signal(respawned()?.pid, 'SIGKILL')
  signal(ferret.script.pid, 'SIGTERM')
  signal(ferret.script.pid, 'SIGCONT')
}

interface Timed {
  readonly status: number
  readonly ms: number
  readonly body: unknown
  readonly retryAfter: string | null
}

describe('storage frozen or down (own FerretDB, STORAGE_TIMEOUT_MS=1000)', function () {
  this.timeout(120_000)
  let ferret: Awaited<ReturnType<typeof startFerret>>
  let respawned: ChildProcess | undefined
  let onExit: (() => void) | undefined
  let h: Harness
  let token: string
  const vaultKey = randomBytes(32).toString('hex')
  const figures: string[] = []

  const call = async (path: string): Promise<Timed> => {
    const started = Date.now()
    const res = await fetch(h.url + path, { headers: path === '/readyz' ? {} : { authorization: `Bearer ${token}` } })
    const text = await res.text()
    return {
      status: res.status,
      ms: Date.now() - started,
      body: text === '' ? undefined : JSON.parse(text),
      retryAfter: res.headers.get('retry-after'),
    }
  }

  /** Polls both routes until they answer 200; how long that took. */
  const recovery = async (limitMs: number): Promise<number> => {
    const started = Date.now()
    for (;;) {
      const [buyers, ready] = await Promise.all([call('/buyers'), call('/readyz')])
      if (buyers.status === 200 && ready.status === 200) {
        expect(ready.body).to.deep.equal({ status: 'ready', storage: 'orka_outage' })
        return Date.now() - started
      }
      if (Date.now() - started > limitMs) throw new Error(`still ${buyers.status} / ${ready.status} after ${limitMs} ms`)
      await sleep(100)
    }
  }

  /** What every request and probe must answer while storage does not. */
  const expectUnavailable = async (what: string) => {
    // Several at once, as traffic would be: each answers within the bound (plus 1 s of slack).
    const replies = await Promise.all([
      call('/buyers'),
      call('/buyers'),
      call('/buyers?limit=5'),
      call('/roles'),
      call('/webhook-subscriptions'),
    ])
    for (const r of replies) {
      expect(r.status, what).to.equal(500)
      expect(r.body, what).to.deep.equal(errorBody(500))
      expect(r.retryAfter, what).to.equal('1')
      expect(r.ms, what).to.be.below(STORAGE_TIMEOUT_MS + 1000)
    }
    const ready = await call('/readyz')
    expect([ready.status, ready.body], what).to.deep.equal([503, { status: 'unavailable' }])
    expect(ready.ms, what).to.be.below(2500)
    // A second round: the first one's abandoned work must not slow it down.
    const again = await call('/buyers')
    expect([again.status, again.retryAfter]).to.deep.equal([500, '1'])
    expect(again.ms).to.be.below(STORAGE_TIMEOUT_MS + 1000)
    figures.push(
      `${what}: 500 in ${Math.min(...replies.map((r) => r.ms))}-${Math.max(...replies.map((r) => r.ms))} ms, then ${again.ms} ms; /readyz 503 in ${ready.ms} ms`,
    )
  }

  before(async function () {
    ferret = await startFerret()
    onExit = leaveNothingBehind(ferret, () => respawned)
    process.once('exit', onExit)
    h = await startHarness({
      env: {
        MONGODB_URI: ferret.uri,
        MONGODB_DATABASE: 'orka_outage',
        VAULT_KEY: vaultKey,
        STORAGE_TIMEOUT_MS: String(STORAGE_TIMEOUT_MS),
      },
    })
    token = h.token()
  })

  after(async function () {
    this.timeout(60_000)
    // before may have failed before setting these.
    const set: Partial<{ ferret: typeof ferret; h: Harness }> = { ferret, h }
    signal(set.ferret?.ferretPid, 'SIGCONT')
    await set.h?.close()
    if (respawned?.exitCode === null) {
      respawned.kill('SIGTERM')
      await atMost(once(respawned, 'exit'), 5000)
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the process may have exited during the await
      if (respawned.exitCode === null) respawned.kill('SIGKILL')
    }
    if (set.ferret !== undefined) {
      const ferret = set.ferret
      const exited = ferret.script.exitCode !== null ? Promise.resolve() : once(ferret.script, 'exit')
      // SIGTERM: the script stops its FerretDB (if still its own) and drops the database.
      signal(ferret.script.pid, 'SIGTERM')
      signal(ferret.script.pid, 'SIGCONT')
      await atMost(exited, 20_000)
      if (onExit !== undefined) process.off('exit', onExit)
    }
    if (figures.length > 0) console.log(figures.map((f) => `      ${f}`).join('\n'))
  })

  it('serves normally to begin with', async () => {
    expect((await call('/buyers')).status).to.equal(200)
    expect((await call('/readyz')).status).to.equal(200)
  })

  it('frozen (SIGSTOP) for 12 s under traffic: 500 with Retry-After within the bound throughout, /readyz 503 within 2 s; after SIGCONT, 200 again without a restart', async () => {
    await freeze(ferret.ferretPid)
    const frozenAt = Date.now()
    try {
      await expectUnavailable('frozen')
      // Longer than MONGODB_TIMEOUT_MS (10 s, the driver's connect timeout): its monitor gives the
      // server up and clears the pool, so recovery has to come from the driver's own reconnection.
      let calls = 0
      let slowest = 0
      while (Date.now() - frozenAt < 12_000) {
        const replies = await Promise.all([call('/buyers'), call('/buyers'), call('/readyz')])
        for (const r of replies) {
          expect(r.status).to.be.oneOf([500, 503])
          expect(r.ms).to.be.below(STORAGE_TIMEOUT_MS + 1000)
          slowest = Math.max(slowest, r.ms)
        }
        calls += replies.length
      }
      figures.push(`frozen: ${calls} more requests over ${Date.now() - frozenAt} ms of freeze, the slowest answered in ${slowest} ms`)
    } finally {
      signal(ferret.ferretPid, 'SIGCONT')
    }
    const back = await recovery(10_000)
    figures.push(`frozen: 200 again ${back} ms after SIGCONT`)
    expect(h.logs.join('\n')).to.include('storage call timed out after 1000 ms')
  })

  it('frozen, with the default STORAGE_TIMEOUT_MS (5000): /readyz still answers 503 within 2 s', async () => {
    // A second instance on the same database (the first stays as it is).
    const slow = await startHarness({
      env: { MONGODB_URI: ferret.uri, MONGODB_DATABASE: 'orka_outage', VAULT_KEY: vaultKey },
    })
    try {
      expect((await fetch(`${slow.url}/readyz`)).status).to.equal(200)
      await freeze(ferret.ferretPid)
      try {
        const started = Date.now()
        const ready = await fetch(`${slow.url}/readyz`)
        const ms = Date.now() - started
        expect([ready.status, await ready.json()]).to.deep.equal([503, { status: 'unavailable' }])
        expect(ms).to.be.within(1900, 2500)
        figures.push(`frozen, STORAGE_TIMEOUT_MS=5000: /readyz 503 in ${ms} ms`)
      } finally {
        signal(ferret.ferretPid, 'SIGCONT')
      }
      const started = Date.now()
      while ((await fetch(`${slow.url}/readyz`)).status !== 200) {
        if (Date.now() - started > 10_000) throw new Error('/readyz not ready again within 10 s of SIGCONT')
        await sleep(100)
      }
    } finally {
      await slow.close()
    }
  })

  it('down (killed): the same; once started again on the same address, 200 again without a restart', async () => {
    // Hold the script still, so that it neither notices its FerretDB die nor drops the database.
    signal(ferret.script.pid, 'SIGSTOP')
    signal(ferret.ferretPid, 'SIGKILL')
    for (let i = 0; i < 50 && alive(ferret.ferretPid); i++) await sleep(100)
    expect(alive(ferret.ferretPid), 'FerretDB still running').to.equal(false)

    await expectUnavailable('down')

    respawned = spawn(ferret.argv[0]!, ferret.argv.slice(1), { stdio: 'ignore' })
    const started = Date.now()
    const back = await recovery(20_000)
    figures.push(`down: 200 again ${back} ms after FerretDB was started again (${Date.now() - started} ms in all)`)
    expect(respawned.exitCode, 'the new FerretDB exited').to.equal(null)
  })
})
