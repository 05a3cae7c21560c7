/** A session as the API shows it: nothing set but what `o` says. */
export const emptySession = (id: string, expiresAt: string, o: Record<string, unknown> = {}) => ({
  type: 'checkout-session',
  id,
  expires_at: expiresAt,
  cart_items: null,
  metadata: null,
  buyer: null,
  amount: null,
  currency: null,
  payment_service_id: null,
  airline: null,
  payment_method: null,
  ...o,
})
