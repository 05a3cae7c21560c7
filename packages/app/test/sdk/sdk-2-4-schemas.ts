/**
 * What the vendor's SDK 2.4.10 requires of Orka's answers, read from its source
 * (`src/models/components/*.ts` and `src/models/errors/*.ts` of gr4vy/gr4vy-typescript at 2.4.10;
 * the package registry serves only 1.10.18): for each inbound schema (`X$inboundSchema`) a
 * response parses with, the keys it requires, a key being required when its zod schema is not
 * `.optional()` and has no `.default()` (`z.nullable(...)` alone: present, possibly null), and
 * the schema of each nested object Orka answers (`key[]`: each item of an array). Every enum of
 * those schemas is open (any string passes), so the keys are what can make a parse fail.
 *
 * Nested objects Orka never answers (a transaction's `three_d_secure`, `recipient`, `airline`,
 * `shipping_details` and `statement_descriptor`, a refund's `creator`, a 422's `ctx`) are left out.
 */
export interface SdkSchema {
  readonly required: readonly string[]
  /** By key: the name of a schema of this table. */
  readonly nested?: Readonly<Record<string, string>>
}

const PAGE = ['items']

export const SDK_SCHEMAS = {
  // giftcard.ts
  GiftCard: {
    required: [
      'id',
      'merchant_account_id',
      'gift_card_service',
      'bin',
      'sub_bin',
      'last4',
      'created_at',
      'updated_at',
      'usage_count',
      'cit_usage_count',
    ],
    nested: { gift_card_service: 'GiftCardService', buyer: 'Buyer' },
  },
  // giftcardservice.ts
  GiftCardService: { required: ['id', 'gift_card_service_definition_id', 'display_name'] },
  // giftcards.ts
  GiftCards: { required: PAGE, nested: { 'items[]': 'GiftCard' } },
  // giftcardsummaries.ts
  GiftCardSummaries: { required: PAGE, nested: { 'items[]': 'GiftCardSummary' } },
  // giftcardsummary.ts
  GiftCardSummary: { required: ['merchant_account_id', 'bin', 'sub_bin', 'last4', 'usage_count', 'cit_usage_count'] },
  // paymentmethod.ts
  PaymentMethod: {
    required: [
      'method',
      'id',
      'merchant_account_id',
      'cit_usage_count',
      'has_replacement',
      'usage_count',
      'scheme_transaction_id',
      'scheme_transaction_id_scheme',
      'status',
      'created_at',
      'updated_at',
    ],
    nested: { details: 'PaymentMethodDetailsCard', buyer: 'Buyer' },
  },
  // paymentmethoddetailscard.ts
  PaymentMethodDetailsCard: { required: [] },
  // paymentmethods.ts
  PaymentMethods: { required: PAGE, nested: { 'items[]': 'PaymentMethod' } },
  // paymentmethodsummaries.ts
  PaymentMethodSummaries: { required: PAGE, nested: { 'items[]': 'PaymentMethodSummary' } },
  // paymentmethodsummary.ts
  PaymentMethodSummary: {
    required: [
      'method',
      'id',
      'merchant_account_id',
      'cit_usage_count',
      'has_replacement',
      'usage_count',
      'scheme_transaction_id',
      'scheme_transaction_id_scheme',
    ],
    nested: { details: 'PaymentMethodDetailsCard' },
  },
  // collectionrole.ts (the result of operations/listroles.ts)
  CollectionRole: { required: PAGE, nested: { 'items[]': 'Role' } },
  // role.ts
  Role: {
    required: ['id', 'name', 'slug', 'description', 'permissions', 'assignable_to', 'applies_to', 'is_standalone_assignable'],
    nested: { permissions: 'PermissionSet' },
  },
  // permissionset.ts
  PermissionSet: { required: ['allow'] },
  // buyer.ts
  Buyer: {
    required: ['id', 'reconciliation_id', 'merchant_account_id', 'created_at', 'updated_at'],
    nested: { billing_details: 'BillingDetails' },
  },
  // buyers.ts
  Buyers: { required: PAGE, nested: { 'items[]': 'Buyer' } },
  // billingdetails.ts
  BillingDetails: { required: [], nested: { address: 'Address', tax_id: 'TaxId' } },
  // address.ts
  Address: { required: [] },
  // taxid.ts
  TaxId: { required: ['value', 'kind'] },
  // merchantaccount.ts
  MerchantAccount: { required: ['id', 'display_name', 'account_updater_enabled', 'created_at', 'updated_at'] },
  // merchantaccounts.ts
  MerchantAccounts: { required: PAGE, nested: { 'items[]': 'MerchantAccount' } },
  // apikeypair.ts
  APIKeyPair: {
    required: ['id', 'thumbprint', 'display_name', 'algorithm', 'active', 'created_at', 'updated_at'],
    nested: { creator: 'ApiRoutersApiKeyPairsSchemasCreator', 'merchant_accounts[]': 'MerchantAccountSummary', 'roles[]': 'Role' },
  },
  // collectionapikeypair.ts
  CollectionAPIKeyPair: { required: ['items'], nested: { 'items[]': 'APIKeyPair' } },
  // apiroutersapikeypairsschemascreator.ts
  ApiRoutersApiKeyPairsSchemasCreator: { required: ['id', 'name'] },
  // merchantaccountsummary.ts
  MerchantAccountSummary: { required: ['id', 'display_name', 'created_at', 'updated_at'] },
  // shippingdetails.ts: every key optional, `type` defaulted
  ShippingDetails: { required: [], nested: { address: 'Address' } },
  // shippingdetailslist.ts: not paginated
  ShippingDetailsList: { required: ['items'], nested: { 'items[]': 'ShippingDetails' } },
  // transaction.ts
  Transaction: {
    required: [
      'id',
      'reconciliation_id',
      'merchant_account_id',
      'currency',
      'amount',
      'status',
      'authorized_amount',
      'captured_amount',
      'refunded_amount',
      'settled_amount',
      'settled',
      'intent',
      'gift_card_redemptions',
      'created_at',
      'updated_at',
      'disputed',
      'payment_source',
      'merchant_initiated',
      'is_subsequent_payment',
      'intent_outcome',
      'multi_tender',
      'account_funding_transaction',
    ],
    nested: {
      payment_method: 'TransactionPaymentMethod',
      payment_service: 'TransactionPaymentService',
      buyer: 'TransactionBuyer',
      'gift_card_redemptions[]': 'GiftCardRedemption',
      gift_card_service: 'GiftCardService',
      'cart_items[]': 'CartItem',
    },
  },
  // transactionsummary.ts
  TransactionSummary: {
    required: [
      'id',
      'reconciliation_id',
      'merchant_account_id',
      'currency',
      'amount',
      'status',
      'authorized_amount',
      'captured_amount',
      'refunded_amount',
      'settled_amount',
      'settled',
      'intent',
      'gift_card_redemptions',
      'created_at',
      'updated_at',
      'disputed',
    ],
    nested: {
      payment_method: 'TransactionPaymentMethod',
      payment_service: 'TransactionPaymentService',
      buyer: 'TransactionBuyer',
      'gift_card_redemptions[]': 'GiftCardRedemption',
      gift_card_service: 'GiftCardService',
    },
  },
  // transactionsummaries.ts
  TransactionSummaries: { required: PAGE, nested: { 'items[]': 'TransactionSummary' } },
  // transactionpaymentmethod.ts
  TransactionPaymentMethod: { required: ['method'], nested: { details: 'PaymentMethodDetailsCard' } },
  // transactionpaymentservice.ts
  TransactionPaymentService: { required: ['id', 'payment_service_definition_id', 'method', 'display_name'] },
  // transactionbuyer.ts
  TransactionBuyer: { required: [], nested: { billing_details: 'BillingDetails' } },
  // giftcardredemption.ts
  GiftCardRedemption: {
    required: ['id', 'status', 'amount', 'refunded_amount', 'gift_card'],
    nested: { gift_card: 'TransactionGiftCard' },
  },
  // transactiongiftcard.ts
  TransactionGiftCard: { required: ['bin', 'sub_bin', 'last4'] },
  // cartitem.ts
  CartItem: { required: ['name', 'quantity', 'unit_amount'] },
  // transactioncapture.ts
  TransactionCapture: {
    required: ['status', 'code', 'raw_response_code', 'raw_response_description', 'transaction'],
    nested: { transaction: 'Transaction' },
  },
  // transactionvoid.ts
  TransactionVoid: {
    required: ['status', 'code', 'raw_response_code', 'raw_response_description', 'transaction'],
    nested: { transaction: 'Transaction' },
  },
  // refund.ts
  Refund: {
    required: [
      'id',
      'transaction_id',
      'status',
      'currency',
      'amount',
      'target_type',
      'reconciliation_id',
      'transaction_reconciliation_id',
      'created_at',
      'updated_at',
      'settled',
    ],
  },
  // refunds.ts
  Refunds: { required: PAGE, nested: { 'items[]': 'Refund' } },
  // capture.ts
  Capture: {
    required: ['id', 'merchant_account_id', 'transaction_id', 'currency', 'amount', 'status', 'final', 'created_at', 'updated_at'],
    nested: { 'cart_items[]': 'CartItem' },
  },
  // capturecollection.ts
  CaptureCollection: { required: PAGE, nested: { 'items[]': 'Capture' } },
  // transactionevent.ts
  TransactionEvent: { required: ['id', 'name', 'created_at', 'context'] },
  // transactionevents.ts
  TransactionEvents: { required: PAGE, nested: { 'items[]': 'TransactionEvent' } },
  // transactionaction.ts
  TransactionAction: { required: ['id', 'flow', 'rule_id', 'created_at', 'outcome'] },
  // transactionactions.ts
  TransactionActions: { required: PAGE, nested: { 'items[]': 'TransactionAction' } },
  // settlement.ts
  Settlement: {
    required: [
      'id',
      'merchant_account_id',
      'created_at',
      'updated_at',
      'posted_at',
      'ingested_at',
      'currency',
      'amount',
      'commission',
      'payment_service_report_id',
      'payment_service_report_file_ids',
      'transaction_id',
    ],
  },
  // settlements.ts
  Settlements: { required: PAGE, nested: { 'items[]': 'Settlement' } },
  // refundsettlement.ts
  RefundSettlement: {
    required: [
      'id',
      'merchant_account_id',
      'created_at',
      'updated_at',
      'posted_at',
      'ingested_at',
      'currency',
      'amount',
      'commission',
      'payment_service_report_id',
      'payment_service_report_file_ids',
      'transaction_id',
      'refund_id',
    ],
  },
  // refundsettlements.ts
  RefundSettlements: { required: PAGE, nested: { 'items[]': 'RefundSettlement' } },
  // checkoutsession.ts
  CheckoutSession: {
    required: ['id', 'expires_at'],
    nested: { 'cart_items[]': 'CartItem', buyer: 'GuestBuyer', payment_method: 'CheckoutSessionPaymentMethod' },
  },
  // guestbuyer.ts
  GuestBuyer: { required: [], nested: { billing_details: 'BillingDetails' } },
  // checkoutsessionpaymentmethod.ts (its details: checkoutsessionpaymentmethoddetails.ts, nothing required)
  CheckoutSessionPaymentMethod: { required: [] },
  // auditlogentries.ts
  AuditLogEntries: { required: PAGE, nested: { 'items[]': 'AuditLogEntry' } },
  // auditlogentry.ts
  AuditLogEntry: {
    required: ['resource', 'action', 'user', 'timestamp'],
    nested: { resource: 'AuditLogEntryResource', user: 'AuditLogEntryUser' },
  },
  // auditlogentryresource.ts
  AuditLogEntryResource: { required: ['type', 'id', 'name'] },
  // auditlogentryuser.ts
  AuditLogEntryUser: { required: ['name', 'is_staff', 'status'] },
  // paymentservice.ts (each field a Field; Orka leaves a secret one out, never its value alone)
  PaymentService: {
    required: [
      'merchant_account_id',
      'payment_service_definition_id',
      'method',
      'display_name',
      'position',
      'accepted_currencies',
      'accepted_countries',
      'payment_method_tokenization_enabled',
      'network_tokens_enabled',
      'open_loop',
      'settlement_reporting_enabled',
      'created_at',
      'updated_at',
    ],
    nested: { 'fields[]': 'Field', 'reporting_fields[]': 'Field' },
  },
  // field.ts
  Field: { required: ['key', 'value'] },
  // paymentservices.ts
  PaymentServices: { required: PAGE, nested: { 'items[]': 'PaymentService' } },
  // paymentservicedefinition.ts
  PaymentServiceDefinition: {
    required: [
      'id',
      'display_name',
      'method',
      'fields',
      'reporting_fields',
      'supported_currencies',
      'supported_countries',
      'mode',
      'supported_features',
      'required_checkout_fields',
      'configuration',
      'supported_integration_clients',
    ],
    nested: {
      'fields[]': 'DefinitionField',
      'reporting_fields[]': 'DefinitionField',
      'required_checkout_fields[]': 'RequiredCheckoutFields',
      configuration: 'PaymentServiceConfiguration',
    },
  },
  // definitionfield.ts
  DefinitionField: { required: ['key', 'display_name', 'required', 'format', 'secret', 'verifiable'] },
  // requiredcheckoutfields.ts
  RequiredCheckoutFields: { required: ['required_fields'] },
  // paymentserviceconfiguration.ts
  PaymentServiceConfiguration: {
    required: [
      'approval_ui_target',
      'approval_ui_height',
      'approval_ui_width',
      'cart_items_limit',
      'cart_items_required',
      'cart_items_should_match_amount',
    ],
  },
  // paymentservicedefinitions.ts
  PaymentServiceDefinitions: { required: PAGE, nested: { 'items[]': 'PaymentServiceDefinition' } },
  // paymentoption.ts (a card's context, when there is one, is a PaymentOptionContext)
  PaymentOption: { required: ['method', 'mode', 'can_store_payment_method', 'can_delay_capture'] },
  // paymentoptions.ts
  PaymentOptions: { required: ['items'], nested: { 'items[]': 'PaymentOption' } },
  // cardschemedefinition.ts
  CardSchemeDefinition: { required: ['id', 'icon_url', 'display_name'] },
  // cardschemedefinitions.ts
  CardSchemeDefinitions: { required: ['items'], nested: { 'items[]': 'CardSchemeDefinition' } },
  // the verify call parses its success with z.any(): nothing is required
  AnyJson: { required: [] },
  // errors/error400.ts ... errors/error504.ts: every key has a default; each detail is an ErrorDetail
  Error: { required: [], nested: { 'details[]': 'ErrorDetail' } },
  // errordetail.ts
  ErrorDetail: { required: ['location', 'pointer', 'message', 'type'] },
  // errors/httpvalidationerror.ts
  HTTPValidationError: { required: [], nested: { 'detail[]': 'ValidationError' } },
  // validationerror.ts
  ValidationError: { required: ['loc', 'msg', 'type'] },
} as const satisfies Record<string, SdkSchema>
export type SdkSchemaName = keyof typeof SDK_SCHEMAS
type Nested<S> = S extends { readonly nested: infer N } ? N[keyof N] : never
/** Compiles only while every nested schema is one of the table. */
export const NESTED_ARE_LISTED: Nested<(typeof SDK_SCHEMAS)[SdkSchemaName]> extends SdkSchemaName ? true : never = true

/**
 * The schemas SDK 2.4.10 parses the success of each operation Orka serves with, by operationId
 * (from `src/funcs/*.ts`: capture and void parse a union of the transaction and its wrapper).
 */
export const SDK_SUCCESS: Readonly<Record<string, readonly SdkSchemaName[]>> = {
  activate_gift_card: ['GiftCard'],
  list_gift_card_balances: ['GiftCardSummaries'],
  create_gift_card: ['GiftCard'],
  list_gift_cards: ['GiftCards'],
  get_gift_card: ['GiftCard'],
  create_payment_method: ['PaymentMethod'],
  list_payment_methods: ['PaymentMethods'],
  get_payment_method: ['PaymentMethod'],
  update_payment_method: ['PaymentMethod'],
  list_buyer_payment_methods: ['PaymentMethodSummaries'],
  list_roles: ['CollectionRole'],
  add_buyer: ['Buyer'],
  list_buyers: ['Buyers'],
  list_buyer_gift_cards: ['GiftCardSummaries'],
  get_buyer: ['Buyer'],
  update_buyer: ['Buyer'],
  create_api_key_pair: ['APIKeyPair'],
  list_api_key_pairs: ['CollectionAPIKeyPair'],
  get_api_key_pair: ['APIKeyPair'],
  update_api_key_pair: ['APIKeyPair'],
  create_merchant_account: ['MerchantAccount'],
  list_merchant_accounts: ['MerchantAccounts'],
  get_merchant_account: ['MerchantAccount'],
  update_merchant_account: ['MerchantAccount'],
  add_buyer_shipping_details: ['ShippingDetails'],
  list_buyer_shipping_details: ['ShippingDetailsList'],
  get_buyer_shipping_details: ['ShippingDetails'],
  update_buyer_shipping_details: ['ShippingDetails'],
  create_transaction: ['Transaction'],
  list_transactions: ['TransactionSummaries'],
  get_transaction: ['Transaction'],
  update_transaction: ['Transaction'],
  sync_transaction: ['Transaction'],
  capture_transaction: ['Transaction', 'TransactionCapture'],
  void_transaction: ['Transaction', 'TransactionVoid'],
  create_transaction_refund: ['Refund'],
  list_transaction_refunds: ['Refunds'],
  create_full_transaction_refund: ['Refunds'],
  get_transaction_refund: ['Refund'],
  get_refund: ['Refund'],
  list_transaction_captures: ['CaptureCollection'],
  get_transaction_capture: ['Capture'],
  list_transaction_events: ['TransactionEvents'],
  list_transaction_actions: ['TransactionActions'],
  list_transaction_settlements: ['Settlements'],
  list_transaction_refund_settlements: ['RefundSettlements'],
  create_checkout_session: ['CheckoutSession'],
  get_checkout_session: ['CheckoutSession'],
  update_checkout_session: ['CheckoutSession'],
  list_audit_logs: ['AuditLogEntries'],
  create_payment_service: ['PaymentService'],
  list_payment_services: ['PaymentServices'],
  get_payment_service: ['PaymentService'],
  update_payment_service: ['PaymentService'],
  verify_payment_service_credentials: ['AnyJson'],
  list_payment_service_definitions: ['PaymentServiceDefinitions'],
  get_payment_service_definition: ['PaymentServiceDefinition'],
  list_payment_options: ['PaymentOptions'],
  list_card_scheme_definitions: ['CardSchemeDefinitions'],
}

/** Operations Orka serves with a JSON success that SDK 2.4.10 has no method for: nothing of it to check. */
export const NOT_IN_SDK: readonly string[] = [
  'create_webhook_subscription',
  'list_webhook_subscription',
  'read_webhook_subscription',
  'update_webhook_subscription',
  'rotate_webhook_subscription_secret',
  'list_webhook_deliveries',
  'redeliver_webhook_delivery',
  'healthz',
  'readyz',
]

/** The keys `schema` requires that `body` (or an object nested in it) lacks, each with its path; a non-object is one such fault. */
export const missingKeys = (schema: SdkSchemaName, body: unknown, at = '$'): string[] => {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [`${at}: not an object (${schema})`]
  const o = body as Record<string, unknown>
  const s: SdkSchema = SDK_SCHEMAS[schema]
  const missing = s.required.filter((k) => !(k in o)).map((k) => `${at}.${k} (${schema})`)
  for (const [key, inner] of Object.entries(s.nested ?? {})) {
    const name = key.replace(/\[\]$/, '')
    const v = o[name]
    if (v === undefined || v === null) continue
    const of = inner as SdkSchemaName
    if (!key.endsWith('[]')) missing.push(...missingKeys(of, v, `${at}.${name}`))
    else if (!Array.isArray(v)) missing.push(`${at}.${name}: not an array (${schema})`)
    else v.forEach((x, i) => missing.push(...missingKeys(of, x, `${at}.${name}[${i}]`)))
  }
  return missing
}
