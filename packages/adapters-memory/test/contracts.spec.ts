import { storageContracts } from '@orka/domain/testing'
import { makeMemoryAdapters } from '../src'

storageContracts('memory', (o) =>
  Promise.resolve({ port: makeMemoryAdapters({ idempotency: o, rateLimits: o }), teardown: () => Promise.resolve() }),
)
