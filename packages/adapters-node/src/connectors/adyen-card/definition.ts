import { ConnectorDefinition, fieldOf, PaymentServiceField } from '@orka/domain'

export const ADYEN_CARD = 'adyen-card'

/** Adyen's test Checkout API (v71: what the requests and the parsing are written against). */
export const ADYEN_TEST_URL = 'https://checkout-test.adyen.com/v71'

/**
 * A live URL prefix as Adyen gives them (`[random]-[company name]`): letters, digits and hyphens,
 * short enough that `{prefix}-checkout-live` stays one DNS label. No dot, slash or anything else
 * can get through, so whoever sets the field can only ever name a host under Adyen's domain.
 */
const LIVE_PREFIX = /^[A-Za-z0-9][A-Za-z0-9-]{0,48}$/

export const ADYEN_CARD_DEFINITION: ConnectorDefinition = {
  id: ADYEN_CARD,
  displayName: 'Adyen',
  method: 'card',
  fields: [
    { key: 'api_key', displayName: 'API key', required: true, secret: true, format: 'text' },
    { key: 'hmac_key', displayName: 'HMAC key (webhooks)', required: false, secret: true, format: 'text' },
    { key: 'merchant_account', displayName: 'Merchant account', required: true, secret: false, format: 'text' },
    {
      key: 'live_url_prefix',
      displayName: 'Live URL prefix',
      required: false,
      secret: false,
      format: 'text',
      pattern: { test: LIVE_PREFIX, description: 'a live URL prefix as Adyen gives them: letters, digits and hyphens' },
    },
  ],
  currencies: [],
  countries: [],
  features: { delayedCapture: true, partialCapture: true, void: true, refunds: true, partialRefunds: true, multipleRefunds: true },
  webhooks: true,
}

/**
 * The Checkout API a service's calls go to: the operator's stand-in when set
 * (`CONNECTOR_ENDPOINTS`), Adyen's live endpoint for the service's prefix when it has one, else
 * Adyen's test endpoint; undefined for a prefix that is not one Adyen gives.
 */
export const adyenBaseUrl = (fields: readonly PaymentServiceField[], override: string | undefined): string | undefined => {
  if (override !== undefined) return override
  const prefix = fieldOf({ fields }, 'live_url_prefix') ?? ''
  if (prefix === '') return ADYEN_TEST_URL
  return LIVE_PREFIX.test(prefix) ? `https://${prefix}-checkout-live.adyenpayments.com/checkout/v71` : undefined
}
