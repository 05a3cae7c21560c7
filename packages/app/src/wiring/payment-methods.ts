/** Wires stored payment methods: their use cases, written like a card (`CardWrites`) and taken from checkout sessions. */
import { DependencyContainer } from 'tsyringe'
import {
  CheckoutSessionStore,
  makeDeletePaymentMethod,
  makeGetPaymentMethod,
  makeListBuyerPaymentMethods,
  makeListPaymentMethods,
  makeStorePaymentMethod,
  makeUpdatePaymentMethod,
  PaymentMethodVault,
} from '@orka/domain'
import { get } from './context'
import { CardWrites } from './gift-cards'

export const paymentMethodUseCases = (c: DependencyContainer) => {
  const methodWrites = { ...get(c, CardWrites), paymentMethods: get(c, PaymentMethodVault), sessions: get(c, CheckoutSessionStore) }
  return {
    storePaymentMethod: makeStorePaymentMethod(methodWrites),
    listPaymentMethods: makeListPaymentMethods(methodWrites),
    getPaymentMethod: makeGetPaymentMethod(methodWrites),
    updatePaymentMethod: makeUpdatePaymentMethod(methodWrites),
    deletePaymentMethod: makeDeletePaymentMethod(methodWrites),
    listBuyerPaymentMethods: makeListBuyerPaymentMethods(methodWrites),
  }
}
