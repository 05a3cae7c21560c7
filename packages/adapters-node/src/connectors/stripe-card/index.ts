import { CardConnectorModule } from '../context'
import { StripeCardConnector } from './connector'
import { STRIPE_BASE_URL, STRIPE_CARD, STRIPE_CARD_DEFINITION } from './definition'

/** Cards through Stripe's PaymentIntents API. */
export const stripeCard: CardConnectorModule = {
  definition: STRIPE_CARD_DEFINITION,
  create: (context) =>
    new StripeCardConnector({
      baseUrl: context.endpoints[STRIPE_CARD] ?? STRIPE_BASE_URL,
      timeoutMs: context.timeoutMs,
      ...(context.maxConnections === undefined ? {} : { maxConnections: context.maxConnections }),
    }),
}
