import 'reflect-metadata'
import cluster from 'node:cluster'
import * as E from 'fp-ts/Either'
import type pino from 'pino'
import { isOrkaWorker, tellPrimary } from './cluster-worker'
import { Config, loadConfig } from './config'
import { createLogger, logFormatOf } from './logger'
import { startTracing, tracingRequested } from './tracing'

/**
 * One process serving HTTP: the whole service (WORKERS=1), or one of the primary's workers.
 * Tracing, when asked for, starts before the server module (and through it the MongoDB driver,
 * whose `require` its instrumentation hooks) is loaded.
 */
const serve = async (config: Config, log: pino.Logger, worker: boolean) => {
  const stopTracing = tracingRequested(config) ? await startTracing(config.otelServiceName) : () => Promise.resolve()
  const { startServer } = await import('./server.js')
  const server = await startServer(config, { logger: log, prepared: worker, metricsToPrimary: worker })
  if (worker) await tellPrimary({ orka: 'listening', url: server.url })
  let stopping = false
  const stop = (signal: string) => {
    // A worker may get both the terminal's SIGINT and the primary's SIGTERM.
    if (stopping) return
    stopping = true
    log.info({ signal }, `${signal}: finishing requests in flight, then stopping`)
    // The spans of the last requests are exported before the process exits.
    server
      .close()
      .then(stopTracing)
      .then(
        () => {
          log.info('stopped')
          process.exit(0)
        },
        (e: unknown) => {
          log.error({ err: e instanceof Error ? e.message : String(e) }, 'could not stop cleanly')
          process.exit(1)
        },
      )
  }
  process.once('SIGTERM', () => {
    stop('SIGTERM')
  })
  process.once('SIGINT', () => {
    stop('SIGINT')
  })
}

const main = async () => {
  const config = loadConfig(process.env)
  if (E.isLeft(config)) {
    for (const line of config.left) console.error(`configuration error: ${line}`)
    process.exit(1)
  }
  const log = createLogger(config.right.logLevel, undefined, logFormatOf(config.right.logFormat))
  if (isOrkaWorker()) return serve(config.right, log.child({ role: 'worker', worker: cluster.worker?.id, pid: process.pid }), true)
  if (config.right.workers > 1) {
    if (!cluster.isPrimary)
      throw new Error('WORKERS: this process is a cluster worker of another program already; set WORKERS=1 and let it fork')
    const { runPrimary } = await import('./cluster.js')
    return runPrimary(config.right, log.child({ role: 'primary', pid: process.pid }))
  }
  return serve(config.right, log, false)
}

main().catch(async (e: unknown) => {
  const reason = e instanceof Error ? e.message : String(e)
  // A worker's reason is the primary's to report, once.
  if (isOrkaWorker()) await tellPrimary({ orka: 'start-failed', reason })
  else console.error(`Orka could not start: ${reason}`)
  process.exit(1)
})
