import { CardConnectorModule } from '../context'
import { AdyenCardConnector } from './connector'
import { ADYEN_CARD, ADYEN_CARD_DEFINITION } from './definition'

/** Cards through Adyen's Checkout API. */
export const adyenCard: CardConnectorModule = {
  definition: ADYEN_CARD_DEFINITION,
  create: (context) =>
    new AdyenCardConnector({
      baseUrl: context.endpoints[ADYEN_CARD],
      timeoutMs: context.timeoutMs,
      ...(context.maxConnections === undefined ? {} : { maxConnections: context.maxConnections }),
    }),
}
