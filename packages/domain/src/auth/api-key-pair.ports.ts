import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Seek } from '../pagination/page'
import { Duplicate, Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { ApiKeyPair } from './api-key-pair'

/** What an update may change on a key; absent: left as it is. */
export interface ApiKeyPairChanges {
  readonly display_name?: string
  readonly active?: boolean
  readonly roles?: readonly string[]
  readonly merchant_account_id?: string | null
  readonly updated_at: string
}

/** One key's use, as `markUsed` records it. */
export interface KeyUse {
  readonly id: string
  readonly at: string
}

export interface ApiKeyPairRepository {
  /** The key with this thumbprint, revoked ones included (callers decide). */
  findByThumbprint(thumbprint: string): TE.TaskEither<Unavailable, O.Option<ApiKeyPair>>
  /** The key with this id, revoked ones included (callers decide). */
  findById(id: string): TE.TaskEither<Unavailable, O.Option<ApiKeyPair>>
  /** Creates or replaces the key with this id (provisioning). Thumbprints are unique. */
  upsert(key: ApiKeyPair): TE.TaskEither<Unavailable, void>
  /** Stores a new key; `Duplicate` when its id or its thumbprint is taken (a revoked key's too), changing nothing. */
  create(key: ApiKeyPair): TE.TaskEither<Duplicate | Unavailable, void>
  /** Every key, revoked ones included. */
  list(): TE.TaskEither<Unavailable, readonly ApiKeyPair[]>
  /**
   * Keyset read of the keys not revoked in descending `apiKeyPairSortKey` order (newest first);
   * with `merchantAccountId`, only the keys bound to that account.
   */
  listPage(seek: Seek, merchantAccountId?: string): TE.TaskEither<Unavailable, readonly ApiKeyPair[]>
  /** Applies the changes to the key if it is not revoked, and answers it as changed; none otherwise. */
  update(id: string, changes: ApiKeyPairChanges): TE.TaskEither<Unavailable, O.Option<ApiKeyPair>>
  /** Marks the key revoked; false when there is no such key. */
  revoke(id: string): TE.TaskEither<Unavailable, boolean>
  /** Sets each named key's `last_used_at` to its `at` where that is later than the stored one; unknown ids are skipped. */
  markUsed(uses: readonly KeyUse[]): TE.TaskEither<Unavailable, void>
}
export const ApiKeyPairRepository = token<ApiKeyPairRepository>('ApiKeyPairRepository')
