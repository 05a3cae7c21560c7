import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  ApiKeyPair,
  ApiKeyPairChanges,
  ApiKeyPairRepository,
  apiKeyPairSortKey,
  Duplicate,
  duplicate,
  KeyUse,
  Seek,
  seekIn,
  Unavailable,
  unavailable,
} from '@orka/domain'
import { atomically, keep } from './memory-support'

/** The changes' present fields only: an absent (or undefined) one leaves the stored value as it is. */
const presentChanges = ({ display_name, active, roles, merchant_account_id, updated_at }: ApiKeyPairChanges): Partial<ApiKeyPair> => ({
  ...(display_name !== undefined && { display_name }),
  ...(active !== undefined && { active }),
  ...(roles !== undefined && { roles: [...roles] }),
  ...(merchant_account_id !== undefined && { merchant_account_id }),
  updated_at,
})

export class MemoryApiKeyPairRepository implements ApiKeyPairRepository {
  private readonly keys = new Map<string, ApiKeyPair>()
  /** Thumbprint to key id: every request looks its key up by `kid`. */
  private readonly byThumbprint = new Map<string, string>()

  findByThumbprint(thumbprint: string): TE.TaskEither<Unavailable, O.Option<ApiKeyPair>> {
    return atomically(() => {
      const id = this.byThumbprint.get(thumbprint)
      return E.right(O.fromNullable(id === undefined ? undefined : this.keys.get(id)))
    })
  }

  findById(id: string): TE.TaskEither<Unavailable, O.Option<ApiKeyPair>> {
    return atomically(() => E.right(O.fromNullable(this.keys.get(id))))
  }

  upsert(key: ApiKeyPair): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      // As a unique index would: two keys with one thumbprint would make `kid` ambiguous.
      const holder = this.byThumbprint.get(key.thumbprint)
      if (holder !== undefined && holder !== key.id) return E.left(unavailable(new Error(`thumbprint already belongs to key ${holder}`)))
      const before = this.keys.get(key.id)
      if (before !== undefined) this.byThumbprint.delete(before.thumbprint)
      this.keys.set(key.id, keep(key))
      this.byThumbprint.set(key.thumbprint, key.id)
      return E.right(undefined)
    })
  }

  /** Names the thumbprint's holder when there is one, else the id: as the MongoDB adapter does. */
  create(key: ApiKeyPair): TE.TaskEither<Duplicate | Unavailable, void> {
    return atomically((): E.Either<Duplicate | Unavailable, void> => {
      const holder = this.byThumbprint.get(key.thumbprint)
      if (holder !== undefined) return E.left(duplicate('ApiKeyPair', holder))
      if (this.keys.has(key.id)) return E.left(duplicate('ApiKeyPair', key.id))
      this.keys.set(key.id, keep(key))
      this.byThumbprint.set(key.thumbprint, key.id)
      return E.right(undefined)
    })
  }

  list(): TE.TaskEither<Unavailable, readonly ApiKeyPair[]> {
    return atomically(() => E.right([...this.keys.values()]))
  }

  /** Sorts them all for each page: an instance has few keys. */
  listPage(seek: Seek, merchantAccountId?: string): TE.TaskEither<Unavailable, readonly ApiKeyPair[]> {
    return atomically(() => {
      const listed = [...this.keys.values()].filter(
        (k) => !k.revoked && (merchantAccountId === undefined || k.merchant_account_id === merchantAccountId),
      )
      return E.right(seekIn(listed, apiKeyPairSortKey, 'descending', seek))
    })
  }

  update(id: string, changes: ApiKeyPairChanges): TE.TaskEither<Unavailable, O.Option<ApiKeyPair>> {
    return atomically(() => {
      const key = this.keys.get(id)
      if (key === undefined || key.revoked) return E.right(O.none)
      const changed = keep({ ...key, ...presentChanges(changes) })
      this.keys.set(id, changed)
      return E.right(O.some(changed))
    })
  }

  revoke(id: string): TE.TaskEither<Unavailable, boolean> {
    return atomically(() => {
      const key = this.keys.get(id)
      if (key === undefined) return E.right(false)
      this.keys.set(id, keep({ ...key, revoked: true }))
      return E.right(true)
    })
  }

  markUsed(uses: readonly KeyUse[]): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      for (const { id, at } of uses) {
        const key = this.keys.get(id)
        // ISO-8601 strings of one format: string order is time order.
        if (key !== undefined && (key.last_used_at === undefined || key.last_used_at < at))
          this.keys.set(id, keep({ ...key, last_used_at: at }))
      }
      return E.right(undefined)
    })
  }
}
