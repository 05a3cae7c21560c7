/** Wires buyers and their shipping details: a buyer's deletion takes its gift cards, payment methods and shipping details with it. */
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
  makeCreateShippingDetails,
  makeDeleteShippingDetails,
  makeGetShippingDetails,
  makeListShippingDetails,
  makeUpdateShippingDetails,
  makeDeleteBuyer,
  makeGetBuyer,
  makeListBuyers,
  makeUpdateBuyer,
  PaymentMethodVault,
  RecordAudited,
  ShippingDetailsRepository,
  shippingDetailsCascade,
  WebhookEvents,
} from '@orka/domain'
import { get } from './context'

export const buyerUseCases = (c: DependencyContainer) => {
  const buyers = get(c, BuyerRepository)
  const clock = get(c, Clock)
  const mac = get(c, Mac)
  const events = get(c, WebhookEvents)
  const audited = get(c, RecordAudited)
  const shipping = { buyers, shippingDetails: get(c, ShippingDetailsRepository), clock, ids: get(c, IdGenerator), mac, audited }
  return {
    createBuyer: makeCreateBuyer({ buyers, clock, ids: get(c, IdGenerator), events, audited }),
    listBuyers: makeListBuyers({ buyers, mac }),
    getBuyer: makeGetBuyer({ buyers }),
    updateBuyer: makeUpdateBuyer({ buyers, clock, events, audited, mac }),
    deleteBuyer: makeDeleteBuyer({
      buyers,
      events,
      audited,
      cascade: [
        deleteBuyersGiftCards(get(c, GiftCardVault)),
        deleteBuyersPaymentMethods(get(c, PaymentMethodVault)),
        shippingDetailsCascade(shipping),
      ],
    }),
    createShippingDetails: makeCreateShippingDetails(shipping),
    listShippingDetails: makeListShippingDetails(shipping),
    getShippingDetails: makeGetShippingDetails(shipping),
    updateShippingDetails: makeUpdateShippingDetails(shipping),
    deleteShippingDetails: makeDeleteShippingDetails(shipping),
  }
}
