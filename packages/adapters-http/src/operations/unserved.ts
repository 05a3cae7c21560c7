import type { UnservedOperation } from './operation'

const unserved = (path: string, rateLimit: UnservedOperation['rateLimit']): UnservedOperation => ({
  method: 'POST',
  path,
  rateLimit,
  unserved: true,
})

/** The spec's limited transaction route. */
export const UNSERVED_OPERATIONS: readonly UnservedOperation[] = [unserved('/transactions', 'embed')]
