import { randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import { expect } from 'chai'
// Types only: loading the SDK here would break the check that a process without tracing never loads it.
import type { tracing } from '@opentelemetry/sdk-node'
import { createLogger } from '../../src/logger'
import { logSafeIds } from '../../src/trace-ids'

/** A generator that hands out the given ids in turn. */
const scripted = (traceIds: string[], spanIds: string[]): tracing.IdGenerator => ({
  generateTraceId: () => traceIds.shift() ?? 'exhausted',
  generateSpanId: () => spanIds.shift() ?? 'exhausted',
})

/** The first line a logger writes for `record`, parsed. */
const logged = (record: Record<string, unknown>): Promise<Record<string, unknown>> =>
  new Promise((resolve) => {
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        resolve(JSON.parse(chunk.toString('utf8').split('\n')[0] ?? '') as Record<string, unknown>)
        done()
      },
    })
    createLogger('info', stream).info(record)
  })

describe('logSafeIds', () => {
  // Both drawn ids hold twelve decimal digits in a row: the log would mask them.
  const DIGIT_HEAVY_TRACE = '4bf92f3577b341234567890123e4736a'
  const DIGIT_HEAVY_SPAN = '00f0123456789012'

  it('draws again when an id holds a run the log masks as a card number, and keeps the next clean one', async () => {
    expect(await logged({ trace_id: DIGIT_HEAVY_TRACE, span_id: DIGIT_HEAVY_SPAN })).to.include({
      trace_id: '4bf92f3577b###############e4736a',
      span_id: '00f#############',
    })
    const ids = logSafeIds(scripted([DIGIT_HEAVY_TRACE, '4bf92f3577b34da6a3ce929d0e0e4736'], [DIGIT_HEAVY_SPAN, '00f067aa0ba902b7']))
    const traceId = ids.generateTraceId()
    const spanId = ids.generateSpanId()
    expect([traceId, spanId]).to.deep.equal(['4bf92f3577b34da6a3ce929d0e0e4736', '00f067aa0ba902b7'])
    expect(await logged({ trace_id: traceId, span_id: spanId })).to.include({ trace_id: traceId, span_id: spanId })
  })

  it('wraps a random generator: 20,000 ids of the right shape, every one written to the log unchanged', async () => {
    // Uniformly random hex, as the SDK's generator draws: unwrapped, nearly 400 of these would be masked.
    const ids = logSafeIds({ generateTraceId: () => randomBytes(16).toString('hex'), generateSpanId: () => randomBytes(8).toString('hex') })
    const drawn = Array.from({ length: 10_000 }, () => [ids.generateTraceId(), ids.generateSpanId()] as const)
    for (const [t, s] of drawn) {
      expect(t).to.match(/^[0-9a-f]{32}$/)
      expect(s).to.match(/^[0-9a-f]{16}$/)
    }
    // Joined by a character the masking never takes for a separator, so no run spans two ids.
    const all = drawn.flat().join('|')
    expect((await logged({ ids: all })).ids).to.equal(all)
  })
})
