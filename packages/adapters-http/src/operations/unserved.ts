import type { UnservedOperation } from './operation'

/**
 * Rate-limited routes of the original API that Orka does not serve (each
 * `{ method: 'POST', path, rateLimit, unserved: true }`): none since transactions and Secure
 * Fields are served.
 */
export const UNSERVED_OPERATIONS: readonly UnservedOperation[] = []
