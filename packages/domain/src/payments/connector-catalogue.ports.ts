import { token } from '../shared/token'
import { ConnectorDefinition } from './connector-definition'

/**
 * What Orka says of its connectors through the API (`GET /payment-service-definitions`), and
 * checks a service's settings against: the registry's definitions, in its order.
 */
export interface ConnectorCatalogue {
  readonly cardDefinitions: readonly ConnectorDefinition[]
}
export const ConnectorCatalogue = token<ConnectorCatalogue>('ConnectorCatalogue')
