import { createPublicKey } from 'node:crypto'
import { jwkThumbprint } from '@orka/adapters-http'
import { stableUuid } from '../../src/stable-id'

/** The user an entry names for a key of the harness's seed file: its id (stable from its thumbprint) and name. */
export const userOf = (privateKeyPem: string) => {
  const thumbprint = jwkThumbprint(createPublicKey(privateKeyPem).export({ type: 'spki', format: 'pem' }).toString())
  return {
    type: 'user',
    id: stableUuid('api-key-pair', thumbprint),
    name: `API key ${thumbprint.slice(0, 8)}`,
    email_address: null,
    is_staff: false,
    status: 'active',
  }
}

/** The user an entry names for what the seed file made at start (no key made it). */
export const SEED_USER = { type: 'user', id: null, name: 'seed file', email_address: null, is_staff: false, status: 'active' }
