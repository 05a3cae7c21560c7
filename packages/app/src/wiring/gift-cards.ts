/** Wires gift cards: what a card write needs (shared with stored payment methods), and the gift card use cases. */
import { DependencyContainer, instanceCachingFactory } from 'tsyringe'
import {
  ActivateDeps,
  BuyerRepository,
  Clock,
  GiftCardConnectors,
  GiftCardServiceRepository,
  GiftCardVault,
  IdempotencyStore,
  IdGenerator,
  Mac,
  makeActivateGiftCard,
  makeCheckBalances,
  makeDeleteGiftCard,
  makeGetGiftCard,
  makeListBuyerGiftCards,
  makeListGiftCards,
  makeStoreGiftCard,
  RecordAudited,
  SecretBox,
  token,
  Token,
  WebhookEvents,
} from '@orka/domain'
import { get, idempotencyOf, Wiring } from './context'

/** Activating and storing a card (gift card or payment method) write the same things: one set of dependencies. */
export const CardWrites: Token<ActivateDeps> = token<ActivateDeps>('CardWrites')

export const wireGiftCards = (c: DependencyContainer, { config }: Wiring): void => {
  c.register(CardWrites, {
    useFactory: instanceCachingFactory((c) => ({
      giftCardServices: get(c, GiftCardServiceRepository),
      giftCardConnectors: get(c, GiftCardConnectors),
      giftCardVault: get(c, GiftCardVault),
      buyers: get(c, BuyerRepository),
      idempotency: get(c, IdempotencyStore),
      box: get(c, SecretBox),
      mac: get(c, Mac),
      clock: get(c, Clock),
      ids: get(c, IdGenerator),
      events: get(c, WebhookEvents),
      audited: get(c, RecordAudited),
      config: idempotencyOf(config),
    })),
  })
}

export const giftCardUseCases = (c: DependencyContainer) => {
  const cardWrites = get(c, CardWrites)
  const { giftCardVault, buyers, mac, events, audited } = cardWrites
  return {
    activateGiftCard: makeActivateGiftCard(cardWrites),
    storeGiftCard: makeStoreGiftCard(cardWrites),
    listGiftCards: makeListGiftCards({ giftCardVault, buyers, mac }),
    getGiftCard: makeGetGiftCard({ giftCardVault, buyers }),
    deleteGiftCard: makeDeleteGiftCard({ giftCardVault, buyers, events, audited }),
    checkBalances: makeCheckBalances(cardWrites),
    listBuyerGiftCards: makeListBuyerGiftCards(cardWrites),
  }
}
