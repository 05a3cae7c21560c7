import type { UnservedOperation } from './operation'

const unserved = (path: string, rateLimit: UnservedOperation['rateLimit']): UnservedOperation => ({
  method: 'POST',
  path,
  rateLimit,
  unserved: true,
})

/** The spec's Secure Fields route, limited per checkout session `{id}`. */
export const UNSERVED_OPERATIONS: readonly UnservedOperation[] = [unserved('/checkout/sessions/{id}/fields', 'checkout-session')]
