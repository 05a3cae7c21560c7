/** Wires the connectors to the services Orka does not own, every one of the registry's lists, measured when metrics are on. */
import { DependencyContainer } from 'tsyringe'
import { CardConnectors, Clock, GiftCardConnectors, GiftCardLedger, Mac } from '@orka/domain'
import { cardConnectorRegistry, ConnectorContext, giftCardConnectorRegistry } from '@orka/adapters-node'
import { instrumentConnectors } from '../metrics'
import { get, Wiring } from './context'

/** Reads the storage ports, the clock and the MAC: wired after them. */
export const wireConnectors = (c: DependencyContainer, { config, metrics }: Wiring): void => {
  const context: ConnectorContext = {
    timeoutMs: config.connectorTimeoutMs,
    // CONNECTOR_ENDPOINTS comes with the first connector to a real provider in the registry (issue 37).
    endpoints: {},
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
