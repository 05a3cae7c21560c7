import { ConnectorDefinition } from '@orka/domain'

export const MOCK_GIFT_CARD_DEFINITION_ID = 'mock-gift-card'

export const MOCK_GIFT_CARD_DEFINITION: ConnectorDefinition = {
  id: MOCK_GIFT_CARD_DEFINITION_ID,
  displayName: 'Mock gift cards',
  method: 'gift-card',
  fields: [],
  currencies: [],
  countries: [],
  features: { delayedCapture: false, partialCapture: false, void: true, refunds: true, partialRefunds: true, multipleRefunds: true },
}
