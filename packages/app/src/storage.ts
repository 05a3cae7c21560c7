import { StoragePorts } from '@orka/domain'
import { makeMemoryAdapters } from '@orka/adapters-memory'
import { connectMongo, makeMongoAdapters, MongoCommandDone } from '@orka/adapters-mongo'
import { Config } from './config'

export interface Storage {
  /** For the start-up log: which adapters run, and where. */
  readonly description: string
  /** Whether data outlives the process (then keys derived from it must too). */
  readonly persistent: boolean
  readonly ports: StoragePorts
  /** Throws when the storage cannot serve (MongoDB: within `STORAGE_TIMEOUT_MS`); the message names the database. */
  ready(): Promise<string>
  close(): Promise<void>
}

export const memoryStorage = (): Storage => ({
  description: 'embedded in-memory adapters (data is lost on exit)',
  persistent: false,
  ports: makeMemoryAdapters(),
  ready: () => Promise.resolve('memory'),
  close: () => Promise.resolve(),
})

/**
 * MongoDB when `MONGODB_URI` is set (indexes created before the first request, unless
 * `indexes` is false: a cluster's primary made them before forking), else memory.
 */
export const openStorage = async (
  config: Config,
  o: { readonly indexes?: boolean; readonly onCommand?: (c: MongoCommandDone) => void } = {},
): Promise<Storage> => {
  if (config.mongodbUri === undefined) return memoryStorage()
  const store = await connectMongo(config.mongodbUri, {
    ...(config.mongodbDatabase ? { dbName: config.mongodbDatabase } : {}),
    writeConcern: config.mongodbWriteConcern === 'majority' ? 'majority' : Number(config.mongodbWriteConcern),
    readConcern: config.mongodbReadConcern,
    maxPoolSize: config.mongodbMaxPoolSize,
    connectTimeoutMS: config.mongodbTimeoutMs,
    serverSelectionTimeoutMS: config.mongodbTimeoutMs,
    // Every storage call (and the readiness ping) fails as Unavailable after this: 500 with Retry-After.
    operationTimeoutMs: config.storageTimeoutMs,
    // Metrics: every command's name and duration (the driver's command monitoring).
    ...(o.onCommand === undefined ? {} : { onCommand: o.onCommand }),
  })
  if (o.indexes ?? true) await store.ensureIndexes()
  return {
    description: `MongoDB adapters (database ${store.dbName})`,
    persistent: true,
    ports: makeMongoAdapters(store),
    ready: () => store.ping(),
    close: () => store.close(),
  }
}
