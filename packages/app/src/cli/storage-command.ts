import * as E from 'fp-ts/Either'
import { Config, loadConfig } from '../config'
import { openStorage, Storage } from '../storage'
import { CommandError } from './usage'

export const configFromEnv = (): Config => {
  const config = loadConfig(process.env)
  if (E.isLeft(config)) throw new CommandError(`configuration error: ${config.left.join('; ')}`)
  return config.right
}

/**
 * Runs a command against the configured storage. Commands that change provisioning need
 * MongoDB: the embedded store lives inside the server process, out of the CLI's reach.
 */
export const withStorage = async <A>(what: string, run: (s: Storage, c: Config) => Promise<A>): Promise<A> => {
  const config = configFromEnv()
  if (config.mongodbUri === undefined)
    throw new CommandError(`${what} needs MONGODB_URI: the embedded store lives inside the server process (provision it with SEED_FILE)`)
  let storage: Storage
  try {
    storage = await openStorage(config)
  } catch (e) {
    throw new CommandError((e as Error).message)
  }
  try {
    return await run(storage, config)
  } finally {
    await storage.close()
  }
}
