import { storageContracts } from '@orka/domain/testing'
import { makeMemoryAdapters } from '../src'

storageContracts('memory', async (o) => ({ port: makeMemoryAdapters({ idempotency: o, rateLimits: o }), teardown: async () => {} }))
