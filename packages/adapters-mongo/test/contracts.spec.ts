import { storageContracts } from '@orka/domain/testing'
import { makeMongoAdapters } from '../src'
import { freshStore } from './support'

// The Mac and SecretBox suites test crypto, not storage: they run in adapters-node.
storageContracts('mongo', async (o) => {
  const { store, teardown } = await freshStore()
  return { port: makeMongoAdapters(store, { idempotency: o, rateLimits: o }), teardown }
})
