import * as O from 'fp-ts/Option'
import {
  CardConnector,
  CardConnectors,
  ConnectorCatalogue,
  ConnectorDefinition,
  ConnectorModule,
  GiftCardConnector,
  GiftCardConnectors,
} from '@orka/domain'
import { CardConnectorModule, ConnectorContext, GiftCardConnectorModule } from './context'
import { mockCard } from './mock-card'
import { mockGiftCard } from './mock-gift-card'
import { stripeCard } from './stripe-card'
import { adyenCard } from './adyen-card'

/**
 * Every connector Orka has: the one list that routing, the API's definitions, seed and CLI
 * validation read. A new connector is a module of its own (its definition, its factory) added
 * here, and nothing else.
 */
export const CARD_CONNECTORS: readonly CardConnectorModule[] = [mockCard, stripeCard, adyenCard]
export const GIFT_CARD_CONNECTORS: readonly GiftCardConnectorModule[] = [mockGiftCard]

/** A module's definition by id, if Orka has that connector. */
export const definitionOf = (modules: readonly { readonly definition: ConnectorDefinition }[], id: string): O.Option<ConnectorDefinition> =>
  O.fromNullable(modules.find((m) => m.definition.id === id)?.definition)

/** The connectors, made once each, by definition id: what routing asks (`forDefinition`). */
const byDefinition = <C>(modules: readonly ConnectorModule<ConnectorContext, C>[], context: ConnectorContext) => {
  const made = new Map(modules.map((m) => [m.definition.id, m.create(context)]))
  return { forDefinition: (definitionId: string): O.Option<C> => O.fromNullable(made.get(definitionId)) }
}

export const cardConnectorRegistry = (
  context: ConnectorContext,
  modules: readonly CardConnectorModule[] = CARD_CONNECTORS,
): CardConnectors => byDefinition<CardConnector>(modules, context)

export const giftCardConnectorRegistry = (
  context: ConnectorContext,
  modules: readonly GiftCardConnectorModule[] = GIFT_CARD_CONNECTORS,
): GiftCardConnectors => byDefinition<GiftCardConnector>(modules, context)

/** What the API says of the card connectors (`GET /payment-service-definitions`) and checks a service's settings against. */
export const connectorCatalogue = (modules: readonly CardConnectorModule[] = CARD_CONNECTORS): ConnectorCatalogue => ({
  cardDefinitions: modules.map((m) => m.definition),
})
