import { expect } from 'chai'
import { CardSchemeDefinition, PaymentService, PaymentServiceCreate, PaymentServiceDefinition } from '@gr4vy/sdk/models/components'
import { Gr4vyError } from '@gr4vy/sdk/models/errors'
import { CARD_SCHEME_DEFINITIONS } from '@orka/domain'
import { UUID_RE } from '../support/harness'
import { onBothStores } from './transactions-support'

/**
 * The original API SDK's own end-to-end case for payment services
 * (`tests/backoffice/payment-services.test.ts`: the six cases, their calls and checks as they
 * are, with its `reaches` and `rejectsClientError`), ported to Orka on both stores. After each
 * of its checks, this one checks the whole answer the SDK parsed (its schemas validate every
 * answer) and, where the SDK's case only asks that a request reached the server, what Orka
 * answered.
 */

/** The SDK's `reaches`: a 2xx, or a clean 4xx; a 5xx or a call that never reached the server fails. */
const reaches = async (action: () => Promise<unknown>, description: string): Promise<unknown> => {
  try {
    return await action()
  } catch (error) {
    if (error instanceof Gr4vyError) {
      if (error.statusCode >= 500)
        throw new Error(`[reach] ${description}: server error (${error.statusCode}): ${error.message}`, { cause: error })
      return error
    }
    throw new Error(`[reach] ${description}: the call failed before reaching the server: ${(error as Error).message}`, { cause: error })
  }
}

/** The SDK's `rejectsClientError`: the server must answer a 4xx. Answers the error, for the checks that follow. */
const rejectsClientError = async (action: () => Promise<unknown>, description: string): Promise<Gr4vyError> => {
  try {
    await action()
  } catch (error) {
    if (error instanceof Gr4vyError && error.statusCode >= 400 && error.statusCode < 500) return error
    throw new Error(`[reject] ${description}: expected a 4xx, got ${String(error)}`, { cause: error })
  }
  throw new Error(`[reject] ${description}: expected the API to reject this, but it succeeded.`)
}

const mockCardService = (overrides: Partial<PaymentServiceCreate> = {}): PaymentServiceCreate => ({
  displayName: 'Mock card service',
  paymentServiceDefinitionId: 'mock-card',
  acceptedCurrencies: ['USD'],
  acceptedCountries: ['US'],
  fields: [{ key: 'merchant_id', value: 'test' }],
  ...overrides,
})

/** The whole PaymentService the SDK parses for `mockCardService()`, the values only Orka knows taken from `s`. */
const expectedService = (s: PaymentService, o: Partial<PaymentService> = {}): PaymentService => ({
  type: 'payment-service',
  id: s.id,
  merchantAccountId: 'default',
  paymentServiceDefinitionId: 'mock-card',
  active: true,
  method: 'card',
  displayName: 'Mock card service',
  position: s.position,
  status: 'created',
  acceptedCurrencies: ['USD'],
  acceptedCountries: ['US'],
  paymentMethodTokenizationEnabled: false,
  networkTokensEnabled: false,
  openLoop: false,
  settlementReportingEnabled: false,
  threeDSecureEnabled: false,
  merchantProfile: null,
  webhookUrl: null,
  fields: [{ key: 'merchant_id', value: 'test' }],
  reportingFields: [],
  isDeleted: false,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
  ...o,
})

const MOCK_CARD_DEFINITION: PaymentServiceDefinition = {
  id: 'mock-card',
  type: 'payment-service-definition',
  displayName: 'Mock cards',
  method: 'card',
  fields: [
    { key: 'merchant_id', displayName: 'Merchant ID', required: false, format: 'text', secret: false },
    { key: 'api_key', displayName: 'API key', required: false, format: 'text', secret: true },
    { key: 'mode', displayName: 'Mode', required: false, format: 'text', secret: false },
  ],
  reportingFields: [],
  supportedCurrencies: [],
  supportedCountries: [],
  mode: 'card',
  iconUrl: null,
  supportedFeatures: {
    delayed_capture: true,
    partial_capture: true,
    void: true,
    refunds: true,
    partial_refunds: true,
    multiple_refunds: true,
  },
  requiredCheckoutFields: [],
  configuration: {
    approvalUiTarget: 'any',
    approvalUiHeight: '',
    approvalUiWidth: '',
    cartItemsLimit: 249,
    cartItemsRequired: false,
    cartItemsShouldMatchAmount: false,
  },
  supportedIntegrationClients: null,
}

/** Stripe's definition: the same shape, its own fields, and the same features. */
const STRIPE_CARD_DEFINITION: PaymentServiceDefinition = {
  ...MOCK_CARD_DEFINITION,
  id: 'stripe-card',
  displayName: 'Stripe',
  fields: [
    { key: 'secret_key', displayName: 'Secret key', required: true, format: 'text', secret: true },
    { key: 'webhook_secret', displayName: 'Webhook signing secret', required: false, format: 'text', secret: true },
  ],
}

const ADYEN_CARD_DEFINITION: PaymentServiceDefinition = {
  ...MOCK_CARD_DEFINITION,
  id: 'adyen-card',
  displayName: 'Adyen',
  fields: [
    { key: 'api_key', displayName: 'API key', required: true, format: 'text', secret: true },
    { key: 'hmac_key', displayName: 'HMAC key (webhooks)', required: false, format: 'text', secret: true },
    { key: 'merchant_account', displayName: 'Merchant account', required: true, format: 'text', secret: false },
    { key: 'live_url_prefix', displayName: 'Live URL prefix', required: false, format: 'text', secret: false },
  ],
}

onBothStores("the original API SDK's payment services against Orka", (world) => {
  it('create → get → list → update (partial) → delete', async () => {
    const { sdk } = world()
    const created = await sdk.paymentServices.create(mockCardService())
    expect(created.id).to.not.equal(undefined)
    expect(created.id).to.match(UUID_RE)
    expect(created).to.deep.equal(expectedService(created))

    const fetched = await sdk.paymentServices.get(created.id)
    expect(fetched.id).to.equal(created.id)
    expect(fetched).to.deep.equal(created)

    const page = await sdk.paymentServices.list({})
    expect(page).to.not.equal(undefined)
    expect(page.result.items.filter((s) => s.id === created.id)).to.deep.equal([created])

    // Partial update: change only the display name.
    const updated = await sdk.paymentServices.update({ displayName: 'Renamed service' }, created.id)
    expect(updated.displayName).to.equal('Renamed service')
    expect(updated).to.deep.equal(expectedService(created, { displayName: 'Renamed service', updatedAt: updated.updatedAt }))

    await sdk.paymentServices.delete(created.id)
    const gone = await rejectsClientError(() => sdk.paymentServices.get(created.id), 'paymentServices.get after delete')
    expect(gone.statusCode).to.equal(404)
    const deleted = await sdk.paymentServices.list({ deleted: true })
    expect(deleted.result.items.filter((s) => s.id === created.id)).to.deep.equal([{ ...updated, isDeleted: true }])
  })

  // The vendor's mock-card answers verify with a body that is not JSON and refuses sessions; Orka
  // answers verify with JSON and sessions with a 400 that says why: both are checked whole.
  it('verify is exercised at the request level', async () => {
    const { sdk } = world()
    const answer = await reaches(
      () => sdk.paymentServices.verify({ paymentServiceDefinitionId: 'mock-card', fields: [{ key: 'merchant_id', value: 'test' }] }),
      'paymentServices.verify',
    )
    expect(answer).to.deep.equal({ verified: true })
  })

  it('create a session is exercised at the request level', async () => {
    const { sdk } = world()
    const created = await sdk.paymentServices.create(mockCardService())
    const refused = await reaches(() => sdk.paymentServices.session({}, created.id), 'paymentServices.session')
    expect(refused).to.be.instanceOf(Gr4vyError)
    expect((refused as Gr4vyError).statusCode).to.equal(400)
    expect(JSON.parse((refused as Gr4vyError).body)).to.deep.include({ type: 'error', code: 'bad_request', status: 400 })
  })

  describe('definitions, options and card schemes', () => {
    it('list and get payment service definitions', async () => {
      const { sdk } = world()
      const page = await sdk.paymentServiceDefinitions.list()
      expect(page).to.not.equal(undefined)
      expect(page.result).to.deep.equal({
        items: [ADYEN_CARD_DEFINITION, MOCK_CARD_DEFINITION, STRIPE_CARD_DEFINITION],
        limit: 20,
        nextCursor: null,
        previousCursor: null,
      })

      const definition = await sdk.paymentServiceDefinitions.get('mock-card')
      expect(definition.id).to.equal('mock-card')
      expect(definition).to.deep.equal(MOCK_CARD_DEFINITION)
    })

    it('create a session for a definition is exercised at the request level', async () => {
      const { sdk } = world()
      // Session creation is not supported for the mock-card definition.
      const refused = await reaches(() => sdk.paymentServiceDefinitions.session({}, 'mock-card'), 'paymentServiceDefinitions.session')
      expect((refused as Gr4vyError).statusCode).to.equal(400)
    })

    it('list payment options for a cart', async () => {
      const { sdk } = world()
      const options = await sdk.paymentOptions.list({ country: 'US', currency: 'USD', amount: 1299 })
      expect(options).to.not.equal(undefined)
      const option = (method: string, label: string, canDelayCapture: boolean) => ({
        type: 'payment-option' as const,
        method,
        iconUrl: null,
        mode: method,
        label,
        canStorePaymentMethod: true,
        canDelayCapture,
        context: null,
      })
      expect(options).to.deep.equal({ items: [option('card', 'Card', true), option('gift-card', 'Gift card', false)] })
    })

    it('list card scheme definitions', async () => {
      const { sdk } = world()
      const schemes = await sdk.cardSchemeDefinitions.list()
      expect(schemes).to.not.equal(undefined)
      const expected: CardSchemeDefinition[] = CARD_SCHEME_DEFINITIONS.items.map((s) => ({
        type: 'card-scheme-definition',
        id: s.id,
        iconUrl: s.icon_url,
        displayName: s.display_name,
      }))
      expect(schemes.items).to.deep.equal(expected)
      expect(schemes.items.map((s) => s.id)).to.include.members(['visa', 'mastercard', 'amex'])
    })
  })
})
