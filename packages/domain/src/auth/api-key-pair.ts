import * as t from 'io-ts'
import { SortKey } from '../pagination/page'
import { bool, closed, nullable, str, uuid } from '../shared/codecs'

/** Who made a key through the API: the key that signed the request (none for the CLI and a seed). */
export const ApiKeyPairCreator = closed('ApiKeyPairCreator', { id: str, name: str, thumbprint: nullable(str) })
export type ApiKeyPairCreator = t.TypeOf<typeof ApiKeyPairCreator>

/**
 * An API key pair as the instance knows it: only the public half. `thumbprint` is the RFC 7638
 * SHA-256 JWK thumbprint (base64url) of the P-521 public key, which tokens name as their `kid`.
 * `merchant_account_id` null means the key may act for every merchant account. `revoked` is
 * final (a key deleted through the API, or revoked with the CLI): the record stays, so that its
 * public key cannot be registered again nor a seed bring it back. `active` false suspends it.
 */
export const ApiKeyPair = closed(
  'ApiKeyPairRecord',
  {
    id: uuid,
    thumbprint: str,
    public_key_pem: str,
    merchant_account_id: nullable(str),
    roles: t.array(str),
    revoked: bool,
    created_at: str,
  },
  {
    // Absent on keys stored before keys were made by API: see `keyDisplayName`, `isKeyActive`.
    display_name: str,
    active: bool,
    updated_at: str,
    last_used_at: str,
    creator: ApiKeyPairCreator,
  },
)
export type ApiKeyPair = t.TypeOf<typeof ApiKeyPair>

/** Whether a key's tokens are accepted. */
export const isKeyLive = (k: ApiKeyPair): boolean => !k.revoked && k.active !== false

export const keyDisplayName = (k: Pick<ApiKeyPair, 'display_name' | 'thumbprint'>): string =>
  k.display_name ?? `API key ${k.thumbprint.slice(0, 8)}`

/** Keys are listed newest first, id breaking a tie. */
export const apiKeyPairSortKey = (k: ApiKeyPair): SortKey => [k.created_at, k.id]
