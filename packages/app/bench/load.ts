import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Bench } from './bench'
import { LoadResult, LoadSpec, requestCount } from './load-spec'
import { BENCH_DIR, BenchFailure, runJsonChild } from './processes'
import { runWrk } from './wrk'

let runs = 0

export interface LoadOptions {
  /** The only status every response may have (or the only statuses). */
  readonly expect: number | readonly number[]
  /** Where the generator runs; default the generator's CPUs. `null`: not pinned. */
  readonly cpus?: string | null
}

/**
 * Sends a LoadSpec from the load generator's own process (wrk when the machine has it, else
 * autocannon) and checks the run: every response has the expected status and nothing failed
 * on the wire, else a BenchFailure naming what came back.
 */
export const load = async (bench: Bench, what: string, spec: LoadSpec, o: LoadOptions): Promise<LoadResult> => {
  const id = `${++runs}-${randomBytes(3).toString('hex')}`
  const cpus = o.cpus === null ? undefined : (o.cpus ?? bench.machine.generatorCpus)
  const fixed = requestCount(spec)
  // wrk has no set number of requests, no id file and no body check: autocannon sends those.
  const r =
    bench.wrk && fixed === undefined && spec.ids === undefined && spec.bodyIncludes === undefined
      ? await runWrk(spec, cpus, join(bench.dir, `run-${id}.lua`), `bench-${id}`)
      : await (async () => {
          const file = join(bench.dir, `run-${id}.json`)
          writeFileSync(file, JSON.stringify(spec))
          const timeoutMs = fixed !== undefined ? 900_000 : (spec.seconds + 60) * 1000
          return runJsonChild<LoadResult>('the load generator', join(BENCH_DIR, 'load-generator.js'), [file], { cpus, timeoutMs })
        })()
  const expected: readonly number[] = typeof o.expect === 'number' ? [o.expect] : o.expect
  const unexpected = Object.entries(r.statuses).filter(([code]) => !expected.includes(Number(code)))
  if (unexpected.length > 0 || r.errors > 0 || r.requests === 0) {
    const seen = Object.entries(r.statuses)
      .map(([code, n]) => `${n} x ${code}`)
      .join(', ')
    throw new BenchFailure(
      `${what}: expected only ${expected.join(' or ')}, got ${seen || 'no response'}${r.errors > 0 ? `, ${r.errors} connection errors or timeouts ${JSON.stringify(r.errorKinds ?? {})}` : ''}`,
    )
  }
  if ((r.unexpectedBodies ?? 0) > 0)
    throw new BenchFailure(
      `${what}: ${r.unexpectedBodies} responses without ${JSON.stringify(spec.bodyIncludes)}, the first: ${r.unexpectedBody ?? ''}`,
    )
  if (fixed !== undefined && r.requests !== fixed) throw new BenchFailure(`${what}: ${r.requests} responses for ${fixed} requests`)
  return r
}
