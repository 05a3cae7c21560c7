import * as t from 'io-ts'
import { bool, nullable, str, uuid } from '../shared/codecs'

/**
 * An API key pair as the instance knows it: only the public half. `thumbprint` is the RFC 7638
 * SHA-256 JWK thumbprint (base64url) of the P-521 public key, which tokens name as their `kid`.
 * `merchant_account_id` null means the key may act for every merchant account.
 */
export const ApiKeyPair = t.type({
  id: uuid,
  thumbprint: str,
  public_key_pem: str,
  merchant_account_id: nullable(str),
  roles: t.array(str),
  revoked: bool,
  created_at: str,
})
export type ApiKeyPair = t.TypeOf<typeof ApiKeyPair>
