import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Bench } from '../bench'
import { LoadResult, LoadSpec } from '../load-spec'
import { call, startOrka } from '../orka'
import { startOtlpSink } from '../otlp-sink'
import { BENCH_DIR, freePort, runJsonChild, Server, startServer } from '../processes'
import { int, judge, mb, ms, Row } from '../table'
import { alternating, guarded, measure, ROUNDS, using } from './common'

/** The activation of cases 2 and 7: nothing is stored. */
export const ACTIVATION = '{"number":"{{card}}","amount":5000,"currency":"USD","store":false}'

interface Servers {
  readonly orka: Server
  readonly koa: Server
  readonly nodeHttp: Server
  readonly rolesBytes: number
  readonly activationBytes: number
}

/** The references answer with bytes fetched from this Orka: a roles page and an activation. */
const startAll = async (bench: Bench, started: Server[]): Promise<Servers> => {
  const orka = await startOrka(bench, 'Orka (memory)')
  started.push(orka)
  const roles = await call(orka, 'GET', '/roles', 200, { token: bench.token })
  const activation = await call(orka, 'POST', '/gift-cards/activations', 201, {
    token: bench.token,
    body: ACTIVATION.replace('{{card}}', '4123455599999999991'),
  })
  const rolesFile = join(bench.dir, 'roles.json')
  const activationFile = join(bench.dir, 'activation.json')
  writeFileSync(rolesFile, roles)
  writeFileSync(activationFile, activation)
  const reference = async (name: string, script: string, args: string[]) => {
    const port = await freePort()
    const s = await startServer({
      name,
      script: join(BENCH_DIR, script),
      args: [String(port), ...args],
      env: {},
      port,
      cpus: bench.machine.serverCpus,
      logFile: join(bench.dir, `${script}.log`),
      readyPath: '/roles',
    })
    started.push(s)
    return s
  }
  const koa = await reference('bare Koa', 'reference-koa.js', [rolesFile, activationFile])
  const nodeHttp = await reference('bare node:http', 'reference-node-http.js', [rolesFile])
  return { orka, koa, nodeHttp, rolesBytes: roles.length, activationBytes: activation.length }
}

/**
 * Case 1 and its variants (issue 27), each Orka in a process of its own, all run in turn
 * (`alternating`): Orka as shipped (metrics on) against bare Koa; metrics and tracing off (`1m`:
 * row 1 ÷ `1m` is what metrics cost); tracing on, exporting OTLP/HTTP to a sink in the bench's
 * process (`1t`, metrics on too: `1t` ÷ row 1 is what tracing costs).
 */
const rolesRows = async (bench: Bench, setup: Promise<Servers>, roles: (s: Server) => LoadSpec): Promise<Row[]> => {
  let medians: { orka: LoadResult; koa: LoadResult; off: LoadResult; traced: LoadResult } | undefined
  let sent = { exports: 0, bytes: 0 }
  const run = async () => {
    if (medians !== undefined) return medians
    const s = await setup
    const sink = await startOtlpSink()
    try {
      const env = { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }
      return await using(startOrka(bench, 'Orka, metrics off', { env: { METRICS_PORT: '0' } }), (off) =>
        using(startOrka(bench, 'Orka, tracing on', { env }), async (traced) => {
          const [orka, koa, o, t] = await alternating(
            bench,
            [
              { what: 'Orka GET /roles', spec: roles(s.orka) },
              { what: 'bare Koa GET /roles', spec: roles(s.koa) },
              { what: 'Orka GET /roles, metrics off', spec: roles(off) },
              { what: 'Orka GET /roles, tracing on', spec: roles(traced) },
            ],
            { expect: 200 },
          )
          if (orka === undefined || koa === undefined || o === undefined || t === undefined) throw new Error('a run is missing')
          sent = sink.received()
          medians = { orka, koa, off: o, traced: t }
          return medians
        }),
      )
    } finally {
      await sink.stop()
    }
  }
  const figures = (r: LoadResult) => ({ rps: r.rps, p50: r.p50, p99: r.p99 })
  const of = `the median of ${ROUNDS} runs each, run in turn with the other rows'`
  const shipped = await guarded('1', 'GET /roles, reused token, memory', async () => {
    const { orka, koa } = await run()
    const s = await setup
    return {
      ...figures(orka),
      reference: `bare Koa, same ${int(s.rolesBytes)} B: ${int(koa.rps)} req/s`,
      ...judge(orka.rps / koa.rps, { atLeast: 0.6 }),
      notes: [`${of}; bare Koa p50 ${ms(koa.p50)}, p99 ${ms(koa.p99)}`],
    }
  })
  const off = await guarded('1m', 'GET /roles, metrics and tracing off', async () => {
    const { orka, off: r } = await run()
    return {
      ...figures(r),
      reference: `row 1, metrics on: ${int(orka.rps)} req/s`,
      ...judge(orka.rps / r.rps, { atLeast: 0.95 }),
      notes: [`ratio: row 1 (metrics on, the default) ÷ this row; at least 0.95 is metrics costing at most 5 % of the rate; ${of}`],
    }
  })
  const traced = await guarded('1t', 'GET /roles, tracing on (OTLP/HTTP), metrics on', async () => {
    const { orka, traced: r } = await run()
    return {
      ...figures(r),
      reference: `row 1, tracing off: ${int(orka.rps)} req/s`,
      ...judge(r.rps / orka.rps, { atLeast: 0.8 }),
      notes: [
        `every request sampled (the SDK's default), 2 spans each, batched to a local sink (${int(sent.exports)} exports, ${mb(sent.bytes)} in all); ratio: this row ÷ row 1; ${of}`,
      ],
    }
  })
  return [shipped, off, traced]
}

/**
 * Cases 1 to 4 on the embedded store: `GET /roles` and activations against bare Koa, the bare
 * Node ceiling, and fresh ES512 tokens against Node's own verification rate.
 */
export const memoryHttpCases = async (bench: Bench, selected: (id: string) => boolean): Promise<Row[]> => {
  const started: Server[] = []
  const setup = startAll(bench, started)
  // Each row reports a failed start-up on its own.
  setup.catch(() => undefined)
  const c = bench.connections
  const roles = (s: Server): LoadSpec => ({
    url: `${s.url}/roles`,
    method: 'GET',
    headers: { authorization: `Bearer ${bench.token}` },
    connections: c,
    seconds: bench.seconds,
  })
  const activations = (s: Server, cardBase: number): LoadSpec => ({
    url: `${s.url}/gift-cards/activations`,
    method: 'POST',
    headers: { authorization: `Bearer ${bench.token}`, 'content-type': 'application/json' },
    body: ACTIVATION,
    cardBase,
    connections: c,
    seconds: bench.seconds,
  })
  const rows: Row[] = []
  try {
    if (selected('1')) rows.push(...(await rolesRows(bench, setup, roles)))
    if (selected('2'))
      rows.push(
        await guarded('2', 'POST activations, store: false, memory', async () => {
          const s = await setup
          const orka = await measure(bench, 'Orka activations', activations(s.orka, 1_000_000), { expect: 201 })
          const koa = await measure(bench, 'bare Koa activations', activations(s.koa, 2_000_000), { expect: 201 })
          return {
            rps: orka.rps,
            p50: orka.p50,
            p99: orka.p99,
            reference: `bare Koa, parses JSON, ${int(s.activationBytes)} B: ${int(koa.rps)} req/s`,
            ...judge(orka.rps / koa.rps, { atLeast: 0.6 }),
          }
        }),
      )
    if (selected('3'))
      rows.push(
        await guarded('3', 'bare node:http, GET /roles bytes: ceiling', async () => {
          const s = await setup
          const r = await measure(bench, 'bare node:http GET /roles', roles(s.nodeHttp), { expect: 200 })
          return { rps: r.rps, p50: r.p50, p99: r.p99, result: 'reference' }
        }),
      )
    const fresh = Math.min(bench.freshTokens.count, bench.freshTokenRun)
    const verifyRate = (cpus: string | undefined) =>
      runJsonChild<{ perSecond: number }>(
        'the ES512 verification reference',
        join(BENCH_DIR, 'reference-es512-verify.js'),
        [bench.freshTokens.file, String(fresh), bench.key.publicKeyFile, '4'],
        { cpus, env: { UV_THREADPOOL_SIZE: String(Math.max(4, bench.machine.cores)) }, timeoutMs: 60_000 },
      )
    if (selected('4'))
      rows.push(
        await guarded('4', 'GET /roles, fresh ES512 token each, memory', async () => {
          const s = await setup
          const orka = await measure(
            bench,
            'Orka GET /roles with fresh tokens',
            { ...roles(s.orka), tokens: { file: bench.freshTokens.file, from: 0, count: fresh } },
            { expect: 200, warmUp: roles(s.orka) },
          )
          const all = await verifyRate(undefined)
          return {
            rps: orka.rps,
            p50: orka.p50,
            p99: orka.p99,
            reference: `async crypto.verify, ${bench.machine.cores} cores: ${int(all.perSecond)}/s`,
            ...judge(orka.rps / all.perSecond, { atLeast: 0.95 }),
            notes: [
              `${int(fresh)} tokens minted beforehand, each sent once; the reference verifies the same tokens in its own process, not pinned` +
                (bench.machine.serverCpus === undefined
                  ? ''
                  : `, while Orka verifies on CPU ${bench.machine.serverCpus} only (row 4r: the same on that CPU)`),
            ],
          }
        }),
      )
    if (selected('4') && bench.machine.serverCpus !== undefined) {
      const cpus = bench.machine.serverCpus
      rows.push(
        await guarded('4r', `async ES512 verify on CPU ${cpus} only`, async () => {
          const r = await verifyRate(cpus)
          return { reference: `${int(r.perSecond)}/s`, result: 'reference' }
        }),
      )
    }
  } finally {
    for (const s of started.reverse()) await s.stop()
  }
  return rows
}
