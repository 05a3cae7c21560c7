/** Wires the connectors to the services Orka does not own (the sandbox mocks), measured when metrics are on. */
import { DependencyContainer } from 'tsyringe'
import { CardConnectors, Clock, GiftCardConnectors, GiftCardLedger, Mac } from '@orka/domain'
import { MockCardConnectors, MockGiftCardConnectors } from '@orka/adapters-node'
import { instrumentConnectors } from '../metrics'
import { get, Wiring } from './context'

/** Reads the storage ports, the clock and the MAC: wired after them. */
export const wireConnectors = (c: DependencyContainer, { config, metrics }: Wiring): void => {
  const giftCardConnectors = new MockGiftCardConnectors({
    clock: get(c, Clock),
    ledger: get(c, GiftCardLedger),
    mac: get(c, Mac),
    timeoutMs: config.connectorTimeoutMs,
  })
  const cardConnectors = new MockCardConnectors({ timeoutMs: config.connectorTimeoutMs })
  c.register(GiftCardConnectors, {
    useValue: metrics === undefined ? giftCardConnectors : instrumentConnectors(giftCardConnectors, metrics),
  })
  c.register(CardConnectors, { useValue: metrics === undefined ? cardConnectors : instrumentConnectors(cardConnectors, metrics) })
}
