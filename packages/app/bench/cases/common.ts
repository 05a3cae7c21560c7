import { Bench } from '../bench'
import { load, LoadOptions } from '../load'
import { LoadResult, LoadSpec } from '../load-spec'
import { BenchFailure, NotMeasured } from '../processes'
import { Row } from '../table'

/** Seconds of load sent before each measured run, not counted (JIT, pools, caches). */
export const WARM_UP_S = 2

/** A warm-up (same request, own card numbers), then the measured run. */
export const measure = async (
  bench: Bench,
  what: string,
  spec: LoadSpec,
  o: LoadOptions & { readonly warmUp?: LoadSpec },
): Promise<LoadResult> => {
  const warmUp = o.warmUp ?? {
    ...spec,
    seconds: WARM_UP_S,
    ...(spec.cardBase === undefined ? {} : { cardBase: spec.cardBase + 500_000_000 }),
  }
  await load(bench, `${what} (warm-up)`, { ...warmUp, seconds: WARM_UP_S }, o)
  return load(bench, what, spec, o)
}

/** Rounds of `alternating`: each server's median of this many runs. */
export const ROUNDS = 3

/**
 * Runs each spec once to warm up, then all of them in turn, ROUNDS times, and keeps each one's
 * median run by rate: a drift of the machine during the case (other load, frequency) falls on
 * every server alike instead of on whichever ran last.
 */
export const alternating = async (
  bench: Bench,
  runs: readonly { readonly what: string; readonly spec: LoadSpec }[],
  o: LoadOptions,
): Promise<LoadResult[]> => {
  for (const r of runs) await load(bench, `${r.what} (warm-up)`, { ...r.spec, seconds: WARM_UP_S }, o)
  const results: LoadResult[][] = runs.map(() => [])
  for (let round = 0; round < ROUNDS; round++)
    for (const [i, r] of runs.entries()) results[i]?.push(await load(bench, `${r.what} (round ${round + 1})`, r.spec, o))
  return results.map((rs) => {
    const median = [...rs].sort((a, b) => a.rps - b.rps)[Math.floor(rs.length / 2)]
    if (median === undefined) throw new Error('no run to take the median of')
    return median
  })
}

export const failures: string[] = []

/** Runs one case's row; what it throws becomes the row's result (`not measured: ...` or `FAILED: ...`). */
export const guarded = async (id: string, name: string, row: () => Promise<Omit<Row, 'id' | 'name'>>): Promise<Row> => {
  process.stderr.write(`bench: ${id} ${name}\n`)
  try {
    return { id, name, ...(await row()) }
  } catch (e) {
    if (e instanceof NotMeasured) return { id, name, result: `not measured: ${e.message}` }
    const why = e instanceof BenchFailure ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e)
    failures.push(`${id} ${name}: ${why}`)
    return { id, name, result: `FAILED: ${why.split('\n')[0] ?? ''}` }
  }
}

/** Runs `use` with something started by `start`, always stopping it. */
export const using = async <S extends { stop(): Promise<void> }, A>(start: Promise<S>, use: (s: S) => Promise<A>): Promise<A> => {
  const s = await start
  try {
    return await use(s)
  } finally {
    await s.stop()
  }
}
