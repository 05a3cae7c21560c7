import pino from 'pino'
import pretty from 'pino-pretty'
import { redactJsonLine } from '@orka/adapters-http'

/** Keys whose values are never written, at the top of a line's record or one level down. */
const CENSORED: ReadonlySet<string> = new Set(['authorization', 'token', 'number', 'pin', 'security_code', 'headers', 'body'])
const CENSOR = '[redacted]'

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v)

/**
 * The record with censored keys' values replaced, copied only when one is found. Done by hand
 * rather than with pino's `redact` paths (`key`, `*.key`), which cost about 10 µs on every line
 * here, matching or not: more than the rest of an access line's writing.
 */
const censorKeys = (o: Record<string, unknown>, nested = false): Record<string, unknown> => {
  let out: Record<string, unknown> | undefined
  for (const k of Object.keys(o)) {
    const v = o[k]
    const w = CENSORED.has(k) ? CENSOR : !nested && isRecord(v) ? censorKeys(v, true) : v
    if (w !== v) (out ??= { ...o })[k] = w
  }
  return out ?? o
}

export type LogFormat = 'json' | 'pretty'

/** `LOG_FORMAT`, else readable lines for a person at a terminal and JSON lines for a collector. */
export const logFormatOf = (configured: LogFormat | undefined, isTTY: boolean = process.stdout.isTTY): LogFormat =>
  configured ?? (isTTY ? 'pretty' : 'json')

/**
 * JSON lines on stdout, or (`pretty`) one readable line per event: level, time, message, then
 * the line's other fields. Nothing a client sent is logged by design (the HTTP adapter logs
 * route, status and timing only); the censored keys are a second line of defence, and the
 * card-number masking of every written line the last: pino-pretty formats lines already masked.
 *
 * Written asynchronously and in batches (sonic-boom, `sync: false`, 4 KiB or 250 ms): a request
 * never waits on stdout, and a busy service makes one write for many lines. pino flushes what
 * is pending when the process exits; a `kill -9` can lose the last 250 ms.
 */
export const createLogger = (level: string, destination?: pino.DestinationStream, format: LogFormat = 'json'): pino.Logger =>
  pino(
    {
      level,
      base: { service: 'orka' },
      formatters: { log: format === 'pretty' ? (o) => summarised(censorKeys(o)) : (o) => censorKeys(o) },
      // Last line of defence: a run of 12+ digits (a card number) is masked in every line written.
      hooks: { streamWrite: redactJsonLine },
    },
    format === 'pretty' ? prettyTo(destination) : (destination ?? bufferedStdout()),
  )

/** Where a pretty line carries its access summary, printed after the message. */
const SUMMARY = 'summary'

/** An access line read as one, `request POST /transactions answered 201 in 22.8 ms`: its four fields become the summary (words between them, so no digits run into a path's). */
const summarised = (o: Record<string, unknown>): Record<string, unknown> => {
  const { method, path, status, ms, ...rest } = o
  if (typeof method !== 'string' || typeof path !== 'string' || typeof ms !== 'number') return o
  return { ...rest, [SUMMARY]: `${method} ${path} answered ${String(status)} in ${String(ms)} ms` }
}

/** Through pino-pretty, in this process (no worker thread): coloured only on a terminal. */
const prettyTo = (destination: pino.DestinationStream | undefined): pino.DestinationStream =>
  pretty({
    destination: destination ?? 1,
    colorize: destination === undefined && process.stdout.isTTY,
    translateTime: 'SYS:HH:MM:ss.l',
    messageFormat: `{msg}{if ${SUMMARY}} {${SUMMARY}}{end}`,
    ignore: `pid,hostname,service,${SUMMARY}`,
    singleLine: true,
    sync: destination === undefined ? false : true,
  })

/** Lines are written 4 KiB at a time, and at least every `FLUSH_MS`: one write per many requests. */
const FLUSH_MS = 250
const bufferedStdout = (): pino.DestinationStream => {
  const out = pino.destination({ dest: 1, sync: false, minLength: 4096 })
  setInterval(() => {
    out.flush()
  }, FLUSH_MS).unref()
  return out
}
