import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { GiftCardServiceRepository } from '../gift-cards/gift-card.ports'
import { Unavailable } from '../shared/errors'
import { ConnectorCatalogue } from './connector-catalogue.ports'
import { isRoutable, takes } from './payment-service'
import { PaymentOption, PaymentOptionRequest, PaymentOptions } from './payment-option.codecs'
import { PaymentServiceRepository } from './payment-service.ports'

/**
 * What a checkout can offer for a cart (`POST /payment-options`): a card when an active card
 * service of the account takes its currency and country (`can_delay_capture` when one of them
 * captures later), a gift card when the account has a primary gift card service. Cards and gift
 * cards may both be stored (cards on file, stored gift cards).
 */
export const makeListPaymentOptions =
  (deps: {
    readonly cardServices: PaymentServiceRepository
    readonly giftCardServices: GiftCardServiceRepository
    readonly catalogue: ConnectorCatalogue
  }) =>
  (q: { readonly merchantAccountId: string; readonly input: PaymentOptionRequest }): TE.TaskEither<Unavailable, PaymentOptions> =>
  async () => {
    const [services, primary] = await Promise.all([
      deps.cardServices.listForAccount(q.merchantAccountId)(),
      deps.giftCardServices.findPrimary(q.merchantAccountId)(),
    ])
    if (E.isLeft(services)) return services
    if (E.isLeft(primary)) return primary
    const { currency, country } = q.input
    const cards = services.right.filter((s) => isRoutable(s) && takes(s, currency ?? null, country ?? null))
    const delays = cards.some(
      (s) => deps.catalogue.cardDefinitions.find((d) => d.id === s.payment_service_definition_id)?.features.delayedCapture,
    )
    const option = (method: string, label: string, canDelay: boolean): PaymentOption => ({
      type: 'payment-option',
      method,
      icon_url: null,
      mode: method,
      label,
      can_store_payment_method: true,
      can_delay_capture: canDelay,
      context: null,
    })
    return E.right({
      items: [
        ...(cards.length === 0 ? [] : [option('card', 'Card', delays)]),
        ...(O.isSome(primary.right) ? [option('gift-card', 'Gift card', false)] : []),
      ],
    })
  }
