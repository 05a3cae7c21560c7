import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { ApiKeyPair } from './api-key-pair'

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
