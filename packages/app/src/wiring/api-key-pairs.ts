/** Wires API key pairs as a resource of the API, and the batch that writes when each key was last used. */
import * as TE from 'fp-ts/TaskEither'
import { DependencyContainer, instanceCachingFactory } from 'tsyringe'
import {
  ApiKeyPairRepository,
  Clock,
  IdGenerator,
  Mac,
  makeCreateApiKeyPair,
  makeDeleteApiKeyPair,
  makeGetApiKeyPair,
  makeListApiKeyPairs,
  makeUpdateApiKeyPair,
  MerchantAccountRepository,
  RecordAudited,
  RoleRepository,
  token,
} from '@orka/domain'
import { Es512Keys } from '@orka/adapters-http'
import { KeyUsage } from '@orka/adapters-node'
import { PeriodicJob } from '../periodic-job'
import { get, Wiring } from './context'

export const KeyUsageRecorder = token<KeyUsage>('KeyUsageRecorder')
/** Writes `last_used_at`; its last run is at shutdown, so a clean stop loses no use. */
export const KeyUsageFlusher = token<{ start(): void; stop(): Promise<void>; tick(): Promise<void> }>('KeyUsageFlusher')

/** How often the keys used since the last write are written: the lag of `last_used_at`. */
export const KEY_USAGE_FLUSH_EVERY_MS = 60_000

export const wireApiKeyPairs = (c: DependencyContainer, { log }: Wiring): void => {
  c.register(KeyUsageRecorder, {
    useFactory: instanceCachingFactory((c) => new KeyUsage(get(c, ApiKeyPairRepository), get(c, Clock))),
  })
  c.register(KeyUsageFlusher, {
    useFactory: instanceCachingFactory((c) => {
      // Reports 0 written: a busy instance writes every minute, which is no news for the log (a failure still is).
      const flush = () => TE.map(() => 0)(get(c, KeyUsageRecorder).flush())
      const job = new PeriodicJob('API key usage', flush, KEY_USAGE_FLUSH_EVERY_MS, log)
      return {
        start: () => {
          job.start()
        },
        stop: async () => {
          await job.stop()
          await job.tick()
        },
        tick: () => job.tick(),
      }
    }),
  })
}

export const apiKeyPairUseCases = (c: DependencyContainer) => {
  const deps = {
    keys: get(c, ApiKeyPairRepository),
    roles: get(c, RoleRepository),
    merchantAccounts: get(c, MerchantAccountRepository),
    crypto: new Es512Keys(),
    ids: get(c, IdGenerator),
    clock: get(c, Clock),
    mac: get(c, Mac),
    audited: get(c, RecordAudited),
  }
  return {
    createApiKeyPair: makeCreateApiKeyPair(deps),
    listApiKeyPairs: makeListApiKeyPairs(deps),
    getApiKeyPair: makeGetApiKeyPair(deps),
    updateApiKeyPair: makeUpdateApiKeyPair(deps),
    deleteApiKeyPair: makeDeleteApiKeyPair(deps),
  }
}
