import * as t from 'io-ts'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { bool, nullable, str, uuid } from '../shared/codecs'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'

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

export interface ApiKeyPairRepository {
  /** The key with this thumbprint, revoked ones included (callers decide). */
  findByThumbprint(thumbprint: string): TE.TaskEither<Unavailable, O.Option<ApiKeyPair>>
  /** Creates or replaces the key with this id. Thumbprints are unique. */
  upsert(key: ApiKeyPair): TE.TaskEither<Unavailable, void>
  list(): TE.TaskEither<Unavailable, readonly ApiKeyPair[]>
  /** Marks the key revoked; false when there is no such key. */
  revoke(id: string): TE.TaskEither<Unavailable, boolean>
}
export const ApiKeyPairRepository = token<ApiKeyPairRepository>('ApiKeyPairRepository')
