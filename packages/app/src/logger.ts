import pino from 'pino'
import { redactJsonLine } from '@orka/adapters-http'

/**
 * JSON lines on stdout. Nothing a client sent is logged by design (the HTTP adapter logs
 * route, status and timing only); the redaction list is a second line of defence.
 *
 * Written asynchronously and in batches (sonic-boom, `sync: false`, 4 KiB or 250 ms): a request
 * never waits on stdout, and a busy service makes one write for many lines. pino flushes what
 * is pending when the process exits; a `kill -9` can lose the last 250 ms.
 */
export const createLogger = (level: string, destination?: pino.DestinationStream): pino.Logger =>
  pino(
    {
      level,
      base: { service: 'orka' },
      redact: {
        paths: [
          'authorization',
          'token',
          'number',
          'pin',
          '*.authorization',
          '*.token',
          '*.number',
          '*.pin',
          'headers',
          '*.headers',
          'body',
          '*.body',
        ],
        censor: '[redacted]',
      },
      // Last line of defence: a run of 12+ digits (a card number) is masked in every line written.
      hooks: { streamWrite: redactJsonLine },
    },
    destination ?? bufferedStdout(),
  )

/** Lines are written 4 KiB at a time, and at least every `FLUSH_MS`: one write per many requests. */
const FLUSH_MS = 250
const bufferedStdout = (): pino.DestinationStream => {
  const out = pino.destination({ dest: 1, sync: false, minLength: 4096 })
  setInterval(() => {
    out.flush()
  }, FLUSH_MS).unref()
  return out
}
