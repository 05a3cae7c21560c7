import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { Page } from '../pagination/page'
import { paginate, PageQuery } from '../pagination/paginate'
import { seekIn } from '../pagination/seek-in'
import { Mac } from '../shared/crypto.ports'
import { InvalidRequest, NotFound, notFound } from '../shared/errors'
import { ConnectorCatalogue } from './connector-catalogue.ports'
import { ConnectorDefinition } from './connector-definition'
import { definitionOf, noSessions } from './payment-service-rules'
import { PaymentServiceDefinition } from './payment-service-definition.codecs'

/** A connector's definition as the API shows it: what Orka does not have (icons, checkout fields, reporting) empty or null. */
export const presentDefinition = (d: ConnectorDefinition): PaymentServiceDefinition => ({
  id: d.id,
  type: 'payment-service-definition',
  display_name: d.displayName,
  method: d.method,
  fields: d.fields.map((f) => ({
    key: f.key,
    display_name: f.displayName,
    required: f.required,
    format: f.format,
    secret: f.secret,
    // A credential is what `POST /payment-services/verify` checks.
    verifiable: f.secret,
  })),
  reporting_fields: [],
  supported_currencies: d.currencies,
  supported_countries: d.countries,
  mode: d.method,
  icon_url: null,
  supported_features: {
    delayed_capture: d.features.delayedCapture,
    partial_capture: d.features.partialCapture,
    void: d.features.void,
    refunds: d.features.refunds,
    partial_refunds: d.features.partialRefunds,
    multiple_refunds: d.features.multipleRefunds,
  },
  required_checkout_fields: [],
  configuration: {
    approval_ui_target: 'any',
    approval_ui_height: '',
    approval_ui_width: '',
    cart_items_limit: 249,
    cart_items_required: false,
    cart_items_should_match_amount: false,
  },
  supported_integration_clients: null,
})

/** Every card connector Orka has, by id, a page at a time (`GET /payment-service-definitions`). */
export const makeListPaymentServiceDefinitions =
  (deps: { readonly catalogue: ConnectorCatalogue; readonly mac: Mac }) =>
  (q: PageQuery): TE.TaskEither<InvalidRequest, Page<PaymentServiceDefinition>> =>
    pipe(
      paginate(
        deps,
        'payment-service-definitions',
        (d: ConnectorDefinition) => [d.id, d.id],
        (seek) => TE.right(seekIn(deps.catalogue.cardDefinitions, (d) => [d.id, d.id], 'ascending', seek)),
      )(q),
      TE.map((page) => ({ ...page, items: page.items.map(presentDefinition) })),
    )

export const makeGetPaymentServiceDefinition =
  (deps: { readonly catalogue: ConnectorCatalogue }) =>
  (id: string): TE.TaskEither<NotFound, PaymentServiceDefinition> =>
    TE.fromOption(() => notFound('PaymentServiceDefinition', id))(O.map(presentDefinition)(definitionOf(deps.catalogue, id)))

/**
 * `POST /payment-service-definitions/{id}/sessions`: a wallet's session, which no connector Orka
 * has opens. A `404` for a definition Orka does not have, a `400` that says so for one it has.
 */
export const makeDefinitionSession =
  (deps: { readonly catalogue: ConnectorCatalogue }) =>
  (id: string): TE.TaskEither<NotFound | InvalidRequest, never> =>
    O.isNone(definitionOf(deps.catalogue, id)) ? TE.left(notFound('PaymentServiceDefinition', id)) : TE.left(noSessions(id))
