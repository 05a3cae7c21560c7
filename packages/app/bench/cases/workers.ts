import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Bench } from '../bench'
import { LoadSpec } from '../load-spec'
import { mongoEnv, startOrka, withMongoDatabase } from '../orka'
import { BenchFailure, NotMeasured, ORKA_MAIN } from '../processes'
import { int, judge, Row } from '../table'
import { guarded, measure, using } from './common'

/** Processes whose parent is `pid` (/proc/<n>/stat, 4th field). */
const childrenOf = (pid: number): number => {
  let n = 0
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) n++
    } catch {
      // gone meanwhile
    }
  }
  return n
}

/**
 * Case 9: `WORKERS=2` against `WORKERS=1`, `GET /roles` with a reused token, Orka on MongoDB. Not
 * pinned: the two workers and the load generator share every core, as they would on a 2-core host.
 */
export const workersCase = (bench: Bench): Promise<Row> =>
  guarded('9', 'WORKERS=2 vs 1, GET /roles, MongoDB, not pinned', async () => {
    const config = readFileSync(join(ORKA_MAIN, '..', 'config.js'), 'utf8')
    if (!/\bWORKERS\b/.test(config)) throw new NotMeasured('WORKERS not supported by this build')
    return withMongoDatabase(bench, async (uri, db) => {
      const env = mongoEnv(uri, db)
      const run = async (workers: number) => {
        const start = startOrka(bench, `Orka (MongoDB, WORKERS=${workers})`, {
          env: { ...env, WORKERS: String(workers) },
          cpus: null,
        }).catch((e: unknown) => {
          if (workers > 1 && e instanceof BenchFailure && e.message.includes('exited'))
            throw new NotMeasured(`WORKERS=${workers} refused: ${e.message.split('\n').slice(1).join(' ').slice(0, 200)}`)
          throw e
        })
        return using(start, async (orka) => {
          const spec: LoadSpec = {
            url: `${orka.url}/roles`,
            method: 'GET',
            headers: { authorization: `Bearer ${bench.token}` },
            connections: bench.connections,
            seconds: bench.seconds,
          }
          const r = await measure(bench, `Orka WORKERS=${workers}`, spec, { expect: 200, cpus: null })
          return { r, processes: 1 + childrenOf(orka.pid) }
        })
      }
      const two = await run(2)
      const one = await run(1)
      return {
        rps: two.r.rps,
        p50: two.r.p50,
        p99: two.r.p99,
        reference: `WORKERS=1: ${int(one.r.rps)} req/s (processes: ${one.processes} and ${two.processes})`,
        ...judge(two.r.rps / one.r.rps, { atLeast: 1.3 }),
      }
    })
  })
