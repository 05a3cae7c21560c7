import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { LoadResult, LoadSpec } from './load-spec'
import { BenchFailure } from './processes'

/**
 * The same LoadSpec sent by wrk (one thread) when the machine has it. A Lua script builds each
 * request (card numbers, idempotency keys), counts statuses and prints one JSON line at the end.
 * Runs of a set number of requests (each token once, say) have no wrk form (wrk cannot stop after N
 * requests): autocannon sends them.
 */
const lua = (spec: LoadSpec, runId: string): string => {
  const headers = Object.entries(spec.headers)
    .map(([k, v]) => `[${JSON.stringify(k)}] = ${JSON.stringify(v)}`)
    .join(', ')
  return `
local n = 0
-- A global: done() reads each thread's copy with thread:get.
statuses = {}
local headers = { ${headers} }
local body = ${spec.body === undefined ? 'nil' : JSON.stringify(spec.body)}
function request()
  n = n + 1
  local h = {}
  for k, v in pairs(headers) do h[k] = v end
  ${spec.idempotencyKeys ? `h["idempotency-key"] = string.format("${runId}-%d", n)` : ''}
  local b = body
  if b ~= nil then
    b = string.gsub(b, "{{card}}", string.format("41234555%010d1", ${spec.cardBase ?? 0} + n), 1)
    b = string.gsub(b, "{{gift:([1-9])}}", function(k) return string.format("720000%s%011d1", k, ${spec.cardBase ?? 0} + n) end)
  end
  return wrk.format(${JSON.stringify(spec.method)}, nil, h, b)
end
function response(status, hs, b)
  statuses[status] = (statuses[status] or 0) + 1
end
local threads = {}
function setup(thread) table.insert(threads, thread) end
function done(summary, latency, requests)
  local all = {}
  for _, t in ipairs(threads) do
    for code, c in pairs(t:get("statuses")) do all[code] = (all[code] or 0) + c end
  end
  local parts = {}
  for code, c in pairs(all) do table.insert(parts, string.format('"%d":%d', code, c)) end
  local e = summary.errors
  io.write(string.format('\\n{"requests":%d,"us":%d,"p50us":%d,"p99us":%d,"errors":%d,"statuses":{%s}}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.timeout, table.concat(parts, ",")))
end
`
}

export const runWrk = async (spec: LoadSpec, cpus: string | undefined, scriptFile: string, runId: string): Promise<LoadResult> => {
  if (spec.tokens || spec.amount !== undefined) throw new Error('wrk cannot send a set number of requests')
  writeFileSync(scriptFile, lua(spec, runId))
  const args = ['-t1', `-c${spec.connections}`, `-d${spec.seconds}s`, '--timeout', '30s', '-s', scriptFile, spec.url]
  const child = cpus === undefined ? spawn('wrk', args) : spawn('taskset', ['-c', cpus, 'wrk', ...args])
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (out += d.toString()))
  const [code] = (await once(child, 'close')) as [number | null]
  const line = out.split('\n').find((l) => l.startsWith('{"requests"'))
  if (code !== 0 || line === undefined) throw new BenchFailure(`wrk failed (exit ${code}): ${out.trim()}`)
  const r = JSON.parse(line) as {
    requests: number
    us: number
    p50us: number
    p99us: number
    errors: number
    statuses: Record<string, number>
  }
  const seconds = r.us / 1e6
  return {
    requests: r.requests,
    seconds,
    rps: r.requests / seconds,
    p50: r.p50us / 1000,
    p99: r.p99us / 1000,
    statuses: r.statuses,
    errors: r.errors,
  }
}
