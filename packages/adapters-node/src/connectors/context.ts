import { CardConnector, Clock, ConnectorModule, GiftCardConnector, GiftCardLedger, Mac } from '@orka/domain'

/**
 * What the host gives a connector module to make its connector: the bound on every call, and
 * what the sandbox connectors keep their state in (a gift card's balance lives in Orka's own
 * storage, so that every instance sees one).
 */
export interface ConnectorContext {
  readonly timeoutMs: number
  /** Base URLs the operator points connectors at instead of their providers' (`CONNECTOR_ENDPOINTS`), by definition id. */
  readonly endpoints: Readonly<Record<string, string>>
  /** Calls in flight to one provider at most, per connector (`CONNECTOR_MAX_CONNECTIONS`); unset: `DEFAULT_MAX_CONNECTIONS`. */
  readonly maxConnections?: number
  readonly clock: Clock
  readonly mac: Mac
  readonly giftCardLedger: GiftCardLedger
}

export type CardConnectorModule = ConnectorModule<ConnectorContext, CardConnector>
export type GiftCardConnectorModule = ConnectorModule<ConnectorContext, GiftCardConnector>
