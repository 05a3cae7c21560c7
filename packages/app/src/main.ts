import 'reflect-metadata'
import * as E from 'fp-ts/Either'
import { loadConfig } from './config'
import { startServer } from './server'

const main = async () => {
  const config = loadConfig(process.env)
  if (E.isLeft(config)) {
    for (const line of config.left) console.error(`configuration error: ${line}`)
    process.exit(1)
  }
  const server = await startServer(config.right)
  const stop = () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
}

main().catch((e: unknown) => {
  console.error(`Orka could not start: ${e instanceof Error ? e.message : String(e)}`)
  process.exit(1)
})
