/** Wires the connectors to the services Orka does not own, every one of the registry's lists, measured when metrics are on. */
import { DependencyContainer } from 'tsyringe'
import { CardConnectors, Clock, GiftCardConnectors, GiftCardLedger, Mac } from '@orka/domain'
import {
  CARD_CONNECTORS,
  cardConnectorRegistry,
  ConnectorContext,
  GIFT_CARD_CONNECTORS,
  giftCardConnectorRegistry,
} from '@orka/adapters-node'
import { instrumentConnectors } from '../metrics'
import { get, Wiring } from './context'

/** Reads the storage ports, the clock and the MAC: wired after them. */
export const wireConnectors = (c: DependencyContainer, { config, metrics }: Wiring): void => {
  const known = [...CARD_CONNECTORS, ...GIFT_CARD_CONNECTORS].map((m) => m.definition.id)
  const unknown = Object.keys(config.connectorEndpoints).filter((id) => !known.includes(id))
  if (unknown.length > 0)
    throw new Error(`CONNECTOR_ENDPOINTS names ${unknown.join(', ')}: Orka has no such connector (it has: ${known.join(', ')})`)
  const context: ConnectorContext = {
    timeoutMs: config.connectorTimeoutMs,
    endpoints: config.connectorEndpoints,
    maxConnections: config.connectorMaxConnections,
    clock: get(c, Clock),
    mac: get(c, Mac),
    giftCardLedger: get(c, GiftCardLedger),
  }
  const giftCardConnectors = giftCardConnectorRegistry(context)
  const cardConnectors = cardConnectorRegistry(context)
  c.register(GiftCardConnectors, {
    useValue: metrics === undefined ? giftCardConnectors : instrumentConnectors(giftCardConnectors, metrics),
  })
  c.register(CardConnectors, { useValue: metrics === undefined ? cardConnectors : instrumentConnectors(cardConnectors, metrics) })
}
