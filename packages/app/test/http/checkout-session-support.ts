import { UNSET_SESSION_FIELDS } from '@orka/domain'

/** A session as the API shows it: nothing set but what `o` says. */
export const emptySession = (id: string, expiresAt: string, o: Record<string, unknown> = {}) => ({
  type: 'checkout-session',
  id,
  expires_at: expiresAt,
  ...UNSET_SESSION_FIELDS,
  airline: null,
  payment_method: null,
  ...o,
})
