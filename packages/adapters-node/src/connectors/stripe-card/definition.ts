import { ConnectorDefinition } from '@orka/domain'

export const STRIPE_CARD = 'stripe-card'

/** Stripe's API, unless the operator points the connector elsewhere (`CONNECTOR_ENDPOINTS`). */
export const STRIPE_BASE_URL = 'https://api.stripe.com'

export const STRIPE_CARD_DEFINITION: ConnectorDefinition = {
  id: STRIPE_CARD,
  displayName: 'Stripe',
  method: 'card',
  fields: [
    { key: 'secret_key', displayName: 'Secret key', required: true, secret: true, format: 'text' },
    { key: 'webhook_secret', displayName: 'Webhook signing secret', required: false, secret: true, format: 'text' },
  ],
  currencies: [],
  countries: [],
  features: { delayedCapture: true, partialCapture: true, void: true, refunds: true, partialRefunds: true, multipleRefunds: true },
  webhooks: true,
}
