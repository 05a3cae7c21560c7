/** Wires buyers: their use cases, a deletion taking the buyer's gift cards and payment methods with it. */
import { DependencyContainer } from 'tsyringe'
import {
  BuyerRepository,
  Clock,
  deleteBuyersGiftCards,
  deleteBuyersPaymentMethods,
  GiftCardVault,
  IdGenerator,
  Mac,
  makeCreateBuyer,
  makeDeleteBuyer,
  makeGetBuyer,
  makeListBuyers,
  makeUpdateBuyer,
  PaymentMethodVault,
  RecordAudited,
  WebhookEvents,
} from '@orka/domain'
import { get } from './context'

export const buyerUseCases = (c: DependencyContainer) => {
  const buyers = get(c, BuyerRepository)
  const clock = get(c, Clock)
  const mac = get(c, Mac)
  const events = get(c, WebhookEvents)
  const audited = get(c, RecordAudited)
  return {
    createBuyer: makeCreateBuyer({ buyers, clock, ids: get(c, IdGenerator), events, audited }),
    listBuyers: makeListBuyers({ buyers, mac }),
    getBuyer: makeGetBuyer({ buyers }),
    updateBuyer: makeUpdateBuyer({ buyers, clock, events, audited, mac }),
    deleteBuyer: makeDeleteBuyer({
      buyers,
      events,
      audited,
      cascade: [deleteBuyersGiftCards(get(c, GiftCardVault)), deleteBuyersPaymentMethods(get(c, PaymentMethodVault))],
    }),
  }
}
