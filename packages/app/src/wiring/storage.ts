/** Wires the storage ports of the set `storage.ts` opened: cached, measured, and registered in one loop. */
import { DependencyContainer } from 'tsyringe'
import { Clock, PaymentServiceRepository, STORAGE_PORT_NAMES, STORAGE_PORT_TOKENS, token } from '@orka/domain'
import { cachedLookups } from '@orka/adapters-node'
import { countingTransactions, timedStoragePorts } from '../metrics'
import { Storage } from '../storage'
import { get, Wiring } from './context'

/**
 * The card services as their management reads them: never from the lookup cache, so that a
 * change is made to what is stored and not to what this instance last saw; written through it,
 * so that this instance routes by the change at once.
 */
export const FreshPaymentServices = token<PaymentServiceRepository>('FreshPaymentServices')

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
  const stored = storage.ports.cardServices
  const routed = ports.cardServices
  c.register(FreshPaymentServices, {
    useValue: {
      findById: (account, id) => stored.findById(account, id),
      listForAccount: (account) => stored.listForAccount(account),
      listAll: () => stored.listAll(),
      write: (record) => routed.write(record),
    } satisfies PaymentServiceRepository,
  })
}
