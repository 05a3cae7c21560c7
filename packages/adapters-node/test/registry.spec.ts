import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { fieldsProblem, GiftCardLedger, MOCK_CARD } from '@orka/domain'
import { fakeMac, ManualClock } from '@orka/domain/testing'
import {
  CARD_CONNECTORS,
  cardConnectorRegistry,
  ConnectorContext,
  definitionOf,
  GIFT_CARD_CONNECTORS,
  giftCardConnectorRegistry,
  MOCK_CARD_DEFINITION,
  MOCK_GIFT_CARD_DEFINITION_ID,
  MockCardConnector,
  MockGiftCardConnector,
  StripeCardConnector,
} from '../src'
import { AdyenCardConnector } from '../src/connectors/adyen-card/connector'

const context: ConnectorContext = {
  timeoutMs: 100,
  endpoints: {},
  clock: new ManualClock(new Date('2026-01-01T00:00:00Z')),
  mac: fakeMac(),
  // Only made, never called here: a connector reads its ledger when asked about a card.
  giftCardLedger: new Proxy({} as GiftCardLedger, {
    get: () => {
      throw new Error('the registry test asks no gift card')
    },
  }),
}

describe('the connector registry', () => {
  it('lists each connector once, card connectors as card and gift card connectors as gift card, the mocks first', () => {
    const ids = [...CARD_CONNECTORS, ...GIFT_CARD_CONNECTORS].map((m) => m.definition.id)
    expect(new Set(ids).size).to.equal(ids.length)
    expect(CARD_CONNECTORS.map((m) => [m.definition.id, m.definition.method])).to.deep.equal([
      [MOCK_CARD, 'card'],
      ['stripe-card', 'card'],
      ['adyen-card', 'card'],
    ])
    expect(GIFT_CARD_CONNECTORS.map((m) => [m.definition.id, m.definition.method])).to.deep.equal([
      [MOCK_GIFT_CARD_DEFINITION_ID, 'gift-card'],
    ])
  })

  it('makes one connector per definition, found by its id; an unknown id has none', () => {
    const cards = cardConnectorRegistry(context)
    const card = cards.forDefinition(MOCK_CARD)
    expect(O.isSome(card) && card.value).to.be.instanceOf(MockCardConnector)
    expect(cards.forDefinition(MOCK_CARD)).to.deep.equal(card)
    const stripe = cards.forDefinition('stripe-card')
    expect(O.isSome(stripe) && stripe.value).to.be.instanceOf(StripeCardConnector)
    const adyen = cards.forDefinition('adyen-card')
    expect(O.isSome(adyen) && adyen.value).to.be.instanceOf(AdyenCardConnector)
    expect(cards.forDefinition('worldpay-card')).to.deep.equal(O.none)
    const giftCards = giftCardConnectorRegistry(context)
    const giftCard = giftCards.forDefinition(MOCK_GIFT_CARD_DEFINITION_ID)
    expect(O.isSome(giftCard) && giftCard.value).to.be.instanceOf(MockGiftCardConnector)
    for (const other of [MOCK_CARD, 'qwikcilver-gift-card', 'valuelink-gift-card', 'unknown'])
      expect(giftCards.forDefinition(other), other).to.deep.equal(O.none)
  })

  it('finds a definition by id, and checks a service’s fields against it', () => {
    expect(definitionOf(CARD_CONNECTORS, MOCK_CARD)).to.deep.equal(O.some(MOCK_CARD_DEFINITION))
    expect(definitionOf(CARD_CONNECTORS, MOCK_GIFT_CARD_DEFINITION_ID)).to.deep.equal(O.none)
    expect(fieldsProblem(MOCK_CARD_DEFINITION, [])).to.equal(undefined)
    expect(fieldsProblem(MOCK_CARD_DEFINITION, [{ key: 'mode', value: 'down' }])).to.equal(undefined)
    expect(fieldsProblem(MOCK_CARD_DEFINITION, [{ key: 'mode', value: 'sideways' }])).to.equal(
      "mock-card field mode 'sideways' is not one of: down, timeout",
    )
    const secret = {
      ...MOCK_CARD_DEFINITION,
      fields: [{ key: 'api_key', displayName: 'API key', required: true, secret: true, format: 'text' as const, values: ['k1'] }],
    }
    expect(fieldsProblem(secret, [])).to.equal('mock-card needs the field api_key')
    expect(fieldsProblem(secret, [{ key: 'api_key', value: '' }])).to.equal('mock-card needs the field api_key')
    expect(fieldsProblem(secret, [{ key: 'api_key', value: 'sk_live_123' }]), 'a secret value is never quoted').to.equal(
      'mock-card field api_key is not one of: k1',
    )
  })
})
