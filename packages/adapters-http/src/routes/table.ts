import type { Scope } from '@orka/domain'

export type OperationId =
  | 'activate_gift_card'
  | 'list_roles'
  | 'add_buyer'
  | 'list_buyers'
  | 'create_webhook_subscription'
  | 'list_webhook_subscription'
  | 'read_webhook_subscription'
  | 'delete_webhook_subscription'
  | 'update_webhook_subscription'
  | 'rotate_webhook_subscription_secret'
  | 'list_webhook_deliveries'
  | 'redeliver_webhook_delivery'

export interface RouteDescription {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  /** OpenAPI path template (`{subscription_id}`). */
  readonly path: string
  readonly scope: Scope
  /** The reference OpenAPI document's operationId. */
  readonly operationId: OperationId
}

/** Every route this service serves, with the scope it requires: the source for routing and documentation. */
export const ROUTES: ReadonlyArray<RouteDescription> = [
  { method: 'POST', path: '/gift-cards/activations', scope: 'gift-cards.write', operationId: 'activate_gift_card' },
  { method: 'GET', path: '/roles', scope: 'roles.read', operationId: 'list_roles' },
  { method: 'POST', path: '/buyers', scope: 'buyers.write', operationId: 'add_buyer' },
  { method: 'GET', path: '/buyers', scope: 'buyers.read', operationId: 'list_buyers' },
  { method: 'POST', path: '/webhook-subscriptions', scope: 'webhook-subscriptions.write', operationId: 'create_webhook_subscription' },
  { method: 'GET', path: '/webhook-subscriptions', scope: 'webhook-subscriptions.read', operationId: 'list_webhook_subscription' },
  {
    method: 'GET',
    path: '/webhook-subscriptions/{subscription_id}',
    scope: 'webhook-subscriptions.read',
    operationId: 'read_webhook_subscription',
  },
  {
    method: 'DELETE',
    path: '/webhook-subscriptions/{subscription_id}',
    scope: 'webhook-subscriptions.write',
    operationId: 'delete_webhook_subscription',
  },
  {
    method: 'PUT',
    path: '/webhook-subscriptions/{subscription_id}',
    scope: 'webhook-subscriptions.write',
    operationId: 'update_webhook_subscription',
  },
  {
    method: 'POST',
    path: '/webhook-subscriptions/{subscription_id}/rotate-secret',
    scope: 'webhook-subscriptions.write',
    operationId: 'rotate_webhook_subscription_secret',
  },
  {
    method: 'GET',
    path: '/webhook-subscriptions/{subscription_id}/deliveries',
    scope: 'webhook-subscriptions.read',
    operationId: 'list_webhook_deliveries',
  },
  {
    method: 'POST',
    path: '/webhook-subscriptions/{subscription_id}/deliveries/{delivery_id}/redeliver',
    scope: 'webhook-subscriptions.write',
    operationId: 'redeliver_webhook_delivery',
  },
]

/**
 * Rate-limited routes of the original API that this service does not implement. They still
 * authenticate and draw on the caller's quota, so a browser cannot iterate over card numbers
 * through them unnoticed, and then answer 404.
 */
export const COUNTED_UNSERVED_ROUTES: ReadonlyArray<{ readonly method: 'POST'; readonly path: string }> = [
  { method: 'POST', path: '/gift-cards/balances' },
  { method: 'POST', path: '/gift-cards' },
  { method: 'POST', path: '/transactions' },
  { method: 'POST', path: '/checkout/sessions/{id}/fields' },
]

/** `/a/{id}` to the router's `/a/:id`. */
export const koaPath = (openApiPath: string): string => openApiPath.replace(/\{(\w+)\}/g, ':$1')
