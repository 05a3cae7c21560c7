export { createHttpApp } from './app'
export { DemoCheckout, DemoCheckoutStart } from './routes/demo-checkout'
export { fieldPolicy, SECURE_FIELDS_DIR, SECURE_FIELDS_PATH } from './routes/secure-fields'
export { PROVIDER_WEBHOOK_MAX_BYTES, PROVIDER_WEBHOOK_PATH } from './routes/provider-webhooks'
export { HttpDeps, HttpLog, PublicBaseUrls, RequestDone, RequestObserver, UseCases } from './types'
export { IdempotencyConflict } from './context'
export {
  makeTokenVerifier,
  TokenVerifier,
  TokenVerifierDeps,
  MAX_TOKEN_BYTES,
  NBF_LEEWAY_S,
  TOKEN_CACHE_IDLE_MS,
} from './auth/verify-token'
export { jwkThumbprint } from './auth/jwk-thumbprint'
export { Es512Keys } from './auth/es512-keys'
export { toErrorResponse, ErrorResponse, ErrorBody, ErrorDetail, ValidationBody } from './error-response'
export { Violation } from './decode/violations'
export { messageOf } from './decode/messages'
export { OPERATIONS, defineOperation, isServed, Operation, OperationRequest, ServedOperation, UnservedOperation } from './operations'
export { buildOpenApiDocument, OpenApiConfig, OpenApiDocument, DEFAULT_PUBLIC_BASE_URLS, DEFAULT_INSTANCE_ID } from './openapi/document'
export { codecToSchema, SchemaRegistry, JsonSchema } from './openapi/codec-to-schema'
export {
  NodeWebhookSender,
  WebhookSenderConfig,
  WebhookSenderDeps,
  HostLookup,
  signWebhook,
  MAX_ANSWER_BYTES,
  EXCERPT_BYTES,
} from './outbound/webhook-sender'
export {
  clientErrorHandler,
  REQUEST_TIMEOUT_BODY,
  CARD_NUMBER_MIN_DIGITS,
  containsCardNumber,
  redactCardNumbers,
  redactJsonLine,
  redactLogFields,
} from './client-error'
