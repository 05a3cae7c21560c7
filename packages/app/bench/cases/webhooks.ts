import { join } from 'node:path'
import { Bench } from '../bench'
import { BENCH_DIR, BenchFailure, NotMeasured, runChild } from '../processes'
import { ms, Row } from '../table'
import { guarded } from './common'

const TARGET_P99_MS = 1000

/**
 * Case 8: `npm run bench:webhooks` on MongoDB only, run as a child: the service on the servers'
 * CPUs, the sender and receiver (that script's own process) on the generator's. Its line is parsed.
 */
export const webhooksCase = (bench: Bench): Promise<Row> =>
  guarded('8', 'webhook event to first attempt, idle, MongoDB', async () => {
    if ('missing' in bench.mongo) throw new NotMeasured(bench.mongo.missing)
    const out = await runChild('bench:webhooks', join(BENCH_DIR, 'webhook-latency.js'), [], {
      cpus: bench.machine.generatorCpus,
      env: { MONGODB_URI: bench.mongo.uri, BENCH_WEBHOOK_STORAGES: 'mongodb', BENCH_SERVER_CPUS: bench.machine.serverCpus ?? '' },
      timeoutMs: 300_000,
    })
    const m = /^MongoDB\s+(\d+) events\s+p50\s+([\d.]+) ms\s+p99\s+([\d.]+) ms\s+max\s+([\d.]+) ms/m.exec(out)
    if (m === null) throw new BenchFailure(`bench:webhooks printed no MongoDB line:\n${out.trim()}`)
    const [, events = '', p50 = '', p99 = '', max = ''] = m
    return {
      p50: Number(p50),
      p99: Number(p99),
      reference: `${events} events, one at a time, max ${ms(Number(max))}`,
      target: `p99 <= ${TARGET_P99_MS} ms`,
      result: Number(p99) <= TARGET_P99_MS ? 'met' : 'not met',
    }
  })
