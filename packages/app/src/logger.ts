import pino from 'pino'
import { redactJsonLine } from '@orka/adapters-http'

/**
 * JSON lines on stdout. Nothing a client sent is logged by design (the HTTP adapter logs
 * route, status and timing only); the redaction list is a second line of defence.
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
    destination,
  )
