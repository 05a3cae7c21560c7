/** Wires the storage ports of the set `storage.ts` opened: cached, measured, and registered in one loop. */
import { DependencyContainer } from 'tsyringe'
import { Clock, STORAGE_PORT_NAMES, STORAGE_PORT_TOKENS } from '@orka/domain'
import { cachedLookups } from '@orka/adapters-node'
import { countingTransactions, timedStoragePorts } from '../metrics'
import { Storage } from '../storage'
import { get, Wiring } from './context'

export const wireStorage = (c: DependencyContainer, storage: Storage, { config, metrics }: Wiring): void => {
  // In memory a lookup is already a map read; in MongoDB it is a round trip, three per request.
  const cached =
    storage.persistent && config.lookupCacheMs > 0
      ? cachedLookups(storage.ports, { clock: get(c, Clock), ttlMs: config.lookupCacheMs })
      : storage.ports
  // MongoDB's commands are measured by the driver's command monitoring (storage.ts); the embedded store's calls here.
  const timed = metrics === undefined || storage.persistent ? cached : timedStoragePorts(cached, metrics)
  const ports = metrics === undefined ? timed : { ...timed, transactions: countingTransactions(timed.transactions, metrics) }
  for (const name of STORAGE_PORT_NAMES) c.register(STORAGE_PORT_TOKENS[name], { useValue: ports[name] })
}
