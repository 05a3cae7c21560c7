import { randomBytes } from 'node:crypto'
import { MongoClient } from 'mongodb'

/** The server the README's test command started (scripts/mongo-test-server), or a given one. */
export const mongoUri = (): string => {
  const uri = process.env.MONGODB_URI
  if (!uri) throw new Error('MONGODB_URI is not set: run the tests with `npm test`, which starts scripts/mongo-test-server')
  return uri
}

/** A fresh database name and the env that points instances at it; `drop` removes it. */
export const freshDatabase = () => {
  const name = `orka_app_${randomBytes(4).toString('hex')}`
  return {
    env: { MONGODB_URI: mongoUri(), MONGODB_DATABASE: name, VAULT_KEY: randomBytes(32).toString('hex') },
    drop: async () => {
      const client = new MongoClient(mongoUri())
      try {
        await client.connect()
        await client.db(name).dropDatabase()
      } finally {
        await client.close()
      }
    },
  }
}
