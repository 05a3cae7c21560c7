import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import { GIFT_CARD_SLOT, LoadResult, LoadSpec, numbersIn, percentile, requestCount } from './load-spec'

/**
 * The load generator's own process (autocannon, one thread): reads a LoadSpec (JSON file named
 * by argv[2]), sends it, prints a LoadResult as one JSON line. Latency is taken from every
 * response (autocannon's own histogram keeps whole milliseconds of 2xx only).
 */
const spec = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as LoadSpec

/** Lines `from` to `from + count` of a file (tokens, ids), all of them there. */
const linesOf = (what: string, part: { readonly file: string; readonly from: number; readonly count: number } | undefined) => {
  if (part === undefined) return undefined
  const lines = readFileSync(part.file, 'utf8')
    .split('\n')
    .slice(part.from, part.from + part.count)
  if (lines.length !== part.count) throw new Error(`${part.file} holds ${lines.length} ${what} from ${part.from}, not ${part.count}`)
  return lines
}
const tokens = linesOf('tokens', spec.tokens)
const ids = linesOf('ids', spec.ids)

let n = 0
const perRequest =
  spec.tokens !== undefined ||
  ids !== undefined ||
  spec.idempotencyKeys === true ||
  spec.body?.includes('{{card}}') === true ||
  (spec.body !== undefined && new RegExp(GIFT_CARD_SLOT.source).test(spec.body))
const setupRequest = (req: autocannon.Request): autocannon.Request => {
  const i = n++
  const headers: Record<string, string> = { ...spec.headers }
  if (tokens) headers.authorization = `Bearer ${tokens[i] ?? ''}`
  if (spec.idempotencyKeys) headers['idempotency-key'] = randomUUID()
  let body = spec.body === undefined ? undefined : numbersIn(spec.body, spec.cardBase ?? 0, i)
  if (ids) body = body?.replace('{{id}}', ids[i % ids.length] ?? '')
  return { ...req, headers, ...(body === undefined ? {} : { body }) }
}
let unexpectedBodies = 0
let unexpectedBody: string | undefined
const { bodyIncludes } = spec
const onResponse =
  bodyIncludes === undefined
    ? undefined
    : (_status: number, body: string) => {
        if (body.includes(bodyIncludes)) return
        unexpectedBodies++
        unexpectedBody ??= body.slice(0, 300)
      }
const fixed = requestCount(spec)

let latencies = new Float64Array(1 << 16)
let count = 0
const started = process.hrtime.bigint()
let lastResponse = started
const instance = autocannon(
  {
    url: spec.url,
    method: spec.method,
    connections: spec.connections,
    headers: spec.headers,
    ...(spec.body === undefined ? {} : { body: spec.body }),
    ...(fixed !== undefined ? { amount: fixed } : { duration: spec.seconds }),
    ...(perRequest || onResponse ? { requests: [{ ...(perRequest ? { setupRequest } : {}), ...(onResponse ? { onResponse } : {}) }] } : {}),
    timeout: 30,
  },
  (err, r) => {
    if (err) {
      console.error(err)
      process.exit(1)
    }
    // A run of a set number of requests ends at its last response: autocannon only notices on its
    // next 1 s tick, which made 2,000 payments at 1,900/s read as 2 s.
    const seconds = Number((fixed === undefined ? process.hrtime.bigint() : lastResponse) - started) / 1e9
    const sorted = latencies.subarray(0, count).sort()
    const statuses: Record<string, number> = {}
    for (const [code, s] of Object.entries(r.statusCodeStats ?? {})) statuses[code] = s.count ?? 0
    const result: LoadResult = {
      requests: count,
      seconds,
      rps: count / seconds,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      statuses,
      errors: r.errors,
      errorKinds,
      ...(bodyIncludes === undefined ? {} : { unexpectedBodies, ...(unexpectedBody === undefined ? {} : { unexpectedBody }) }),
    }
    console.log(JSON.stringify(result))
  },
)
const errorKinds: Record<string, number> = {}
instance.on('reqError', (e: Error & { code?: string }) => {
  const kind = e.code ?? e.message
  errorKinds[kind] = (errorKinds[kind] ?? 0) + 1
})
instance.on('response', (_client, _status, _bytes, ms) => {
  if (count === latencies.length) {
    const bigger = new Float64Array(latencies.length * 2)
    bigger.set(latencies)
    latencies = bigger
  }
  latencies[count++] = ms
  lastResponse = process.hrtime.bigint()
})
