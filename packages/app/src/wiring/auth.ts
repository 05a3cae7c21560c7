/** Wires who may call what: authorization, the role catalogue, the embed rate limit. */
import { DependencyContainer } from 'tsyringe'
import {
  Clock,
  Mac,
  makeAuthorize,
  makeCheckRateLimit,
  makeListRoles,
  MerchantAccountRepository,
  RateLimitStore,
  RoleRepository,
} from '@orka/domain'
import { get, Wiring } from './context'

export const authUseCases = (c: DependencyContainer, { config }: Wiring) => {
  const roles = get(c, RoleRepository)
  return {
    authorize: makeAuthorize({ merchantAccounts: get(c, MerchantAccountRepository), roles }),
    checkRateLimit: makeCheckRateLimit({
      store: get(c, RateLimitStore),
      clock: get(c, Clock),
      config: { limit: config.embedRateLimit, windowS: config.rateLimitWindowS },
    }),
    listRoles: makeListRoles({ roles, mac: get(c, Mac) }),
  }
}
