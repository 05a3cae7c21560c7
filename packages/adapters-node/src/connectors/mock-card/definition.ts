import { ConnectorDefinition, MOCK_CARD } from '@orka/domain'

/** The field that makes the sandbox card service misbehave, for failover tests: `down` fails every call, `timeout` answers none but voids. */
export const MOCK_CARD_MODES: readonly string[] = ['down', 'timeout']

export const MOCK_CARD_DEFINITION: ConnectorDefinition = {
  id: MOCK_CARD,
  displayName: 'Mock cards',
  method: 'card',
  fields: [{ key: 'mode', displayName: 'Mode', required: false, secret: false, format: 'text', values: MOCK_CARD_MODES }],
  currencies: [],
  countries: [],
  features: { delayedCapture: true, partialCapture: true, void: true, refunds: true, partialRefunds: true, multipleRefunds: true },
}
