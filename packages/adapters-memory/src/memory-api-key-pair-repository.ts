import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { ApiKeyPair, ApiKeyPairRepository, Unavailable, unavailable } from '@orka/domain'
import { atomically, keep } from './memory-support'

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

  list(): TE.TaskEither<Unavailable, readonly ApiKeyPair[]> {
    return atomically(() => E.right([...this.keys.values()]))
  }

  revoke(id: string): TE.TaskEither<Unavailable, boolean> {
    return atomically(() => {
      const key = this.keys.get(id)
      if (key === undefined) return E.right(false)
      this.keys.set(id, keep({ ...key, revoked: true }))
      return E.right(true)
    })
  }
}
