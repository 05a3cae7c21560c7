import { GiftCardConnectorModule } from '../context'
import { MockGiftCardConnector } from './connector'
import { MOCK_GIFT_CARD_DEFINITION } from './definition'

/** The sandbox gift card provider: test numbers answer by their last four digits; balances live in Orka's ledger. */
export const mockGiftCard: GiftCardConnectorModule = {
  definition: MOCK_GIFT_CARD_DEFINITION,
  create: (context) =>
    new MockGiftCardConnector({ clock: context.clock, ledger: context.giftCardLedger, mac: context.mac, timeoutMs: context.timeoutMs }),
}
