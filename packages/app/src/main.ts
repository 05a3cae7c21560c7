import 'reflect-metadata'
import * as E from 'fp-ts/Either'
import { loadConfig } from './config'
import { createLogger } from './logger'
import { startServer } from './server'

const main = async () => {
  const config = loadConfig(process.env)
  if (E.isLeft(config)) {
    for (const line of config.left) console.error(`configuration error: ${line}`)
    process.exit(1)
  }
  const log = createLogger(config.right.logLevel)
  const server = await startServer(config.right, { logger: log })
  const stop = (signal: string) => {
    log.info({ signal }, `${signal}: finishing requests in flight, then stopping`)
    server.close().then(
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

main().catch((e: unknown) => {
  console.error(`Orka could not start: ${e instanceof Error ? e.message : String(e)}`)
  process.exit(1)
})
