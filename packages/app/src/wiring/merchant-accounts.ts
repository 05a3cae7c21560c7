/** Wires merchant accounts as a resource of the API: a new one starts with the sandbox services the `default` account has. */
import { DependencyContainer } from 'tsyringe'
import {
  Clock,
  GiftCardServiceRepository,
  Mac,
  makeCreateMerchantAccount,
  makeGetMerchantAccount,
  makeListMerchantAccounts,
  makeUpdateMerchantAccount,
  MerchantAccountRepository,
  RecordAudited,
  SecretBox,
} from '@orka/domain'
import { onboardMerchantAccount } from '../card-services'
import { get } from './context'
import { paymentServiceDeps } from './payment-services'

export const merchantAccountUseCases = (c: DependencyContainer) => {
  const deps = {
    merchantAccounts: get(c, MerchantAccountRepository),
    onboard: onboardMerchantAccount({ ...paymentServiceDeps(c), giftCardServices: get(c, GiftCardServiceRepository) }),
    clock: get(c, Clock),
    box: get(c, SecretBox),
    mac: get(c, Mac),
    audited: get(c, RecordAudited),
  }
  return {
    createMerchantAccount: makeCreateMerchantAccount(deps),
    listMerchantAccounts: makeListMerchantAccounts(deps),
    getMerchantAccount: makeGetMerchantAccount(deps),
    updateMerchantAccount: makeUpdateMerchantAccount(deps),
  }
}
