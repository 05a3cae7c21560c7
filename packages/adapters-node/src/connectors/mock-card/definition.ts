import { ConnectorDefinition, MOCK_CARD } from '@orka/domain'

/** The field that makes the sandbox card service misbehave, for failover tests: `down` fails every call, `timeout` answers none but voids. */
export const MOCK_CARD_MODES: readonly string[] = ['down', 'timeout']

/** The API key the sandbox refuses, so that a refused verification can be tried: any other is accepted. */
export const MOCK_CARD_REFUSED_KEY = 'sk_refused'

export const MOCK_CARD_DEFINITION: ConnectorDefinition = {
  id: MOCK_CARD,
  displayName: 'Mock cards',
  method: 'card',
  fields: [
    { key: 'merchant_id', displayName: 'Merchant ID', required: false, secret: false, format: 'text' },
    { key: 'api_key', displayName: 'API key', required: false, secret: true, format: 'text' },
    { key: 'mode', displayName: 'Mode', required: false, secret: false, format: 'text', values: MOCK_CARD_MODES },
  ],
  currencies: [],
  countries: [],
  features: { delayedCapture: true, partialCapture: true, void: true, refunds: true, partialRefunds: true, multipleRefunds: true },
}
