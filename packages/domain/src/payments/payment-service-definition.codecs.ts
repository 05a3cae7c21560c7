import * as t from 'io-ts'
import { bool, closed, intRange, literal, nullable, oneOf, str, NoItems } from '../shared/codecs'

export const DefinitionField = closed(
  'DefinitionField',
  {
    key: str,
    display_name: str,
    required: bool,
    format: oneOf('DefinitionFieldFormat', ['text', 'multiline', 'file', 'number', 'timezone', 'boolean']),
    secret: bool,
    verifiable: bool,
  },
  {},
)

const PaymentServiceConfiguration = closed(
  'PaymentServiceConfiguration',
  {
    approval_ui_target: oneOf('ApprovalTarget', ['any', 'new_window']),
    approval_ui_height: str,
    approval_ui_width: str,
    cart_items_limit: intRange('cart_items_limit', 0),
    cart_items_required: bool,
    cart_items_should_match_amount: bool,
  },
  {},
)

/** What the connector really does, by the original API's feature names. */
const SupportedFeatures = closed(
  'SupportedFeatures',
  {
    delayed_capture: bool,
    partial_capture: bool,
    void: bool,
    refunds: bool,
    partial_refunds: bool,
    multiple_refunds: bool,
  },
  {},
)

/** A connector Orka has, as the API shows it (`GET /payment-service-definitions`). */
export const PaymentServiceDefinition = closed(
  'PaymentServiceDefinition',
  {
    id: str,
    type: literal('payment-service-definition'),
    display_name: str,
    method: str,
    fields: t.readonlyArray(DefinitionField),
    reporting_fields: t.readonlyArray(DefinitionField),
    supported_currencies: t.readonlyArray(str),
    supported_countries: t.readonlyArray(str),
    mode: str,
    icon_url: nullable(str),
    supported_features: SupportedFeatures,
    required_checkout_fields: NoItems,
    configuration: PaymentServiceConfiguration,
    supported_integration_clients: nullable(t.readonlyArray(str)),
  },
  {},
)
export type PaymentServiceDefinition = t.TypeOf<typeof PaymentServiceDefinition>
