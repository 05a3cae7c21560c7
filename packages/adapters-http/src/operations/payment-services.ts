import * as t from 'io-ts'
import {
  Access,
  boundedString,
  canonicalUuid,
  CardSchemeDefinitions,
  keyActor,
  pageOf,
  PaymentOptionRequest,
  PaymentOptions,
  PaymentService,
  PaymentServiceCreate,
  PaymentServiceDefinition,
  PaymentServiceUpdate,
  VerifiedCredentials,
  VerifyCredentials,
} from '@orka/domain'
import { booleanParam } from '../decode/decode'
import { defineOperation, Tag } from './operation'
import { PAGE_QUERY } from './page'

const PAYMENT_SERVICES: Tag = {
  name: 'Payment services',
  description:
    "The merchant account's card services: which connector, with which settings and credentials, for which currencies and countries, " +
    'tried in `position` order when a card payment is routed.',
}
const DEFINITIONS: Tag = {
  name: 'Payment service definitions',
  description: 'Every connector Orka has: the fields a service of it is configured with and what it really does.',
}
const OPTIONS: Tag = { name: 'Payment options', description: 'What a checkout can offer for a cart.' }
const SCHEMES: Tag = { name: 'Card scheme definitions', description: 'The card schemes Orka recognises from a card number.' }

const SERVICE_ID = { payment_service_id: { codec: canonicalUuid, description: 'The ID of the payment service.' } }
const DEFINITION_ID = {
  payment_service_definition_id: {
    codec: boundedString('payment_service_definition_id', { min: 1, max: 50 }),
    description: 'The ID of the payment service definition, e.g. `mock-card`.',
  },
}
/** What a session request carries depends on the wallet; none is served, so any JSON object is taken and none is kept. */
const SessionRequest = t.record(t.string, t.unknown)

const command = (access: Access) => ({ merchantAccountId: access.merchantAccount.id, actor: keyActor(access.principal.key) })

const SECRETS =
  'Fields the definition marks `secret` (credentials) are stored sealed and never returned: a service shows only its other fields.'

export const createPaymentService = defineOperation({
  method: 'POST',
  path: '/payment-services',
  scope: 'payment-services.write',
  serverOnly: true,
  operationId: 'create_payment_service',
  doc: {
    tag: PAYMENT_SERVICES,
    summary: 'Create payment service',
    description:
      'Adds a card service of a definition Orka has (`GET /payment-service-definitions`), its `fields` checked against the ' +
      'definition: an unknown key, a required field missing or a value outside its set is a `400` naming it. Routed to from the ' +
      `next payment on; \`position\` defaults to after the account's others. ${SECRETS}`,
  },
  body: PaymentServiceCreate,
  success: { status: 201, codec: PaymentService, description: 'The new payment service.' },
  handle: (u) => (req) => u.createPaymentService({ ...command(req.access), input: req.body }),
})

export const listPaymentServices = defineOperation({
  method: 'GET',
  path: '/payment-services',
  scope: 'payment-services.read',
  serverOnly: true,
  operationId: 'list_payment_services',
  doc: {
    tag: PAYMENT_SERVICES,
    summary: 'List payment services',
    description:
      "Lists the merchant account's payment services in routing order (`position`, then oldest first); with `deleted=true`, only " +
      'the deleted ones. A cursor only serves the filters it was issued with.',
  },
  query: {
    ...PAGE_QUERY,
    method: {
      codec: boundedString('method', { min: 1, max: 50 }),
      description: 'Only the services of this method (every payment service is `card`).',
    },
    deleted: { codec: t.boolean, description: 'Only the deleted services (`true`) or only the others.', parse: booleanParam },
  },
  success: { status: 200, codec: pageOf('PaymentServices', PaymentService), description: 'A page of payment services.' },
  handle: (u) => (req) => {
    const { method, deleted, ...page } = req.query
    return u.listPaymentServices({
      merchantAccountId: req.access.merchantAccount.id,
      filter: { ...(method === undefined ? {} : { method }), ...(deleted === undefined ? {} : { deleted }) },
      ...page,
    })
  },
})

export const getPaymentService = defineOperation({
  method: 'GET',
  path: '/payment-services/{payment_service_id}',
  scope: 'payment-services.read',
  serverOnly: true,
  operationId: 'get_payment_service',
  doc: {
    tag: PAYMENT_SERVICES,
    summary: 'Get payment service',
    description: `Reads one payment service. Unknown, deleted and another account's services are \`404\`. ${SECRETS}`,
  },
  params: SERVICE_ID,
  success: { status: 200, codec: PaymentService, description: 'The payment service.' },
  handle: (u) => (req) => u.getPaymentService({ merchantAccountId: req.access.merchantAccount.id, id: req.params.payment_service_id }),
})

export const updatePaymentService = defineOperation({
  method: 'PUT',
  path: '/payment-services/{payment_service_id}',
  scope: 'payment-services.write',
  serverOnly: true,
  operationId: 'update_payment_service',
  doc: {
    tag: PAYMENT_SERVICES,
    summary: 'Update payment service',
    description:
      'Changes what the body names; the rest is kept. A field sent replaces that key (an empty `value` removes it), a field not ' +
      'sent is kept, a secret one too: rotating a credential is sending it. This instance routes by the change from the next ' +
      'payment on, every other instance within `LOOKUP_CACHE_MS`; a payment already routed keeps its service. A deleted ' +
      'service is a `404`. Two changes sent at once both take effect, one after the other; a service that keeps changing ' +
      'under this one is a `409` (`concurrent_update`), nothing changed.',
  },
  params: SERVICE_ID,
  body: PaymentServiceUpdate,
  success: { status: 200, codec: PaymentService, description: 'The payment service as changed.' },
  handle: (u) => (req) => u.updatePaymentService({ ...command(req.access), id: req.params.payment_service_id, input: req.body }),
})

export const deletePaymentService = defineOperation({
  method: 'DELETE',
  path: '/payment-services/{payment_service_id}',
  scope: 'payment-services.write',
  serverOnly: true,
  operationId: 'delete_payment_service',
  doc: {
    tag: PAYMENT_SERVICES,
    summary: 'Delete payment service',
    description:
      'Stops routing to the service: it reads as a `404` from then on (`GET /payment-services?deleted=true` still lists it). The ' +
      'transactions routed to it still show it, and their captures, voids and refunds still reach it.',
  },
  params: SERVICE_ID,
  success: { status: 204, description: 'Deleted; no body.' },
  handle: (u) => (req) => u.deletePaymentService({ ...command(req.access), id: req.params.payment_service_id }),
})

export const verifyPaymentServiceCredentials = defineOperation({
  method: 'POST',
  path: '/payment-services/verify',
  scope: 'payment-services.write',
  serverOnly: true,
  operationId: 'verify_payment_service_credentials',
  doc: {
    tag: PAYMENT_SERVICES,
    summary: 'Verify payment service credentials',
    description:
      "Asks the definition's connector whether its provider accepts these fields; with `payment_service_id`, over that service's " +
      'stored fields (its secrets included). `200 {"verified": true}` when accepted; a refusal is a `400` naming the field and ' +
      'the reason the connector gives, never a value. Nothing is stored.',
  },
  body: VerifyCredentials,
  success: { status: 200, codec: VerifiedCredentials, description: 'The connector accepted the credentials.' },
  handle: (u) => (req) => u.verifyPaymentServiceCredentials({ merchantAccountId: req.access.merchantAccount.id, input: req.body }),
})

export const createPaymentServiceSession = defineOperation({
  method: 'POST',
  path: '/payment-services/{payment_service_id}/sessions',
  scope: 'payment-services.write',
  serverOnly: true,
  operationId: 'create_payment_service_session',
  doc: {
    tag: PAYMENT_SERVICES,
    summary: 'Create payment service session',
    description: 'Opens a wallet session, which no connector Orka has does: a `400` that says so (a `404` for no such service).',
  },
  params: SERVICE_ID,
  body: SessionRequest,
  optionalBody: true,
  errorsOnly: true,
  success: { status: 200, description: 'Never answered.' },
  handle: (u) => (req) => u.paymentServiceSession({ merchantAccountId: req.access.merchantAccount.id, id: req.params.payment_service_id }),
})

export const listPaymentServiceDefinitions = defineOperation({
  method: 'GET',
  path: '/payment-service-definitions',
  scope: 'payment-service-definitions.read',
  serverOnly: true,
  operationId: 'list_payment_service_definitions',
  doc: {
    tag: DEFINITIONS,
    summary: 'List payment service definitions',
    description: 'Every card connector Orka has, by id: the same for every merchant account.',
  },
  query: PAGE_QUERY,
  success: {
    status: 200,
    codec: pageOf('PaymentServiceDefinitions', PaymentServiceDefinition),
    description: 'A page of payment service definitions.',
  },
  handle: (u) => (req) => u.listPaymentServiceDefinitions(req.query),
})

export const getPaymentServiceDefinition = defineOperation({
  method: 'GET',
  path: '/payment-service-definitions/{payment_service_definition_id}',
  scope: 'payment-service-definitions.read',
  serverOnly: true,
  operationId: 'get_payment_service_definition',
  doc: { tag: DEFINITIONS, summary: 'Get payment service definition', description: 'One connector; one Orka does not have is a `404`.' },
  params: DEFINITION_ID,
  success: { status: 200, codec: PaymentServiceDefinition, description: 'The payment service definition.' },
  handle: (u) => (req) => u.getPaymentServiceDefinition(req.params.payment_service_definition_id),
})

export const createPaymentServiceDefinitionSession = defineOperation({
  method: 'POST',
  path: '/payment-service-definitions/{payment_service_definition_id}/sessions',
  scope: 'payment-service-definitions.read',
  serverOnly: true,
  operationId: 'create_payment_service_definition_session',
  doc: {
    tag: DEFINITIONS,
    summary: 'Create payment service definition session',
    description:
      'Opens a wallet session, which no connector Orka has does: a `400` that says so (a `404` for a connector Orka does not have).',
  },
  params: DEFINITION_ID,
  body: SessionRequest,
  optionalBody: true,
  errorsOnly: true,
  success: { status: 200, description: 'Never answered.' },
  handle: (u) => (req) => u.paymentServiceDefinitionSession(req.params.payment_service_definition_id),
})

export const listPaymentOptions = defineOperation({
  method: 'POST',
  path: '/payment-options',
  scope: 'payment-options.read',
  operationId: 'list_payment_options',
  doc: {
    tag: OPTIONS,
    summary: 'List payment options',
    description:
      'What a checkout can offer for this cart: `card` when an active payment service of the account takes its currency and ' +
      'country, `gift-card` when the account has a gift card service. Every property of the body is optional. An `embed` token ' +
      'may call it.',
  },
  body: PaymentOptionRequest,
  optionalBody: true,
  success: { status: 200, codec: PaymentOptions, description: 'The payment options.' },
  handle: (u) => (req) => u.listPaymentOptions({ merchantAccountId: req.access.merchantAccount.id, input: req.body }),
})

export const listCardSchemeDefinitions = defineOperation({
  method: 'GET',
  path: '/card-scheme-definitions',
  scope: 'card-scheme-definitions.read',
  serverOnly: true,
  operationId: 'list_card_scheme_definitions',
  doc: {
    tag: SCHEMES,
    summary: 'List card scheme definitions',
    description: 'The card schemes Orka recognises from a card number, with a display name and an icon (a data URL).',
  },
  success: { status: 200, codec: CardSchemeDefinitions, description: 'The card schemes.' },
  handle: (u) => () => u.listCardSchemeDefinitions(),
})

export const PAYMENT_SERVICE_OPERATIONS = [
  // Before `/payment-services/{payment_service_id}` is tried with `verify` for an id.
  verifyPaymentServiceCredentials,
  createPaymentService,
  listPaymentServices,
  getPaymentService,
  updatePaymentService,
  deletePaymentService,
  createPaymentServiceSession,
  listPaymentServiceDefinitions,
  getPaymentServiceDefinition,
  createPaymentServiceDefinitionSession,
  listPaymentOptions,
  listCardSchemeDefinitions,
]
