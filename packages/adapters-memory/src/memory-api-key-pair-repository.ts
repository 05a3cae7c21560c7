import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { ApiKeyPair, ApiKeyPairRepository, Unavailable, unavailable } from '@orka/domain'
import { atomically, copy } from './memory-support'

export class MemoryApiKeyPairRepository implements ApiKeyPairRepository {
  private readonly keys = new Map<string, ApiKeyPair>()

  findByThumbprint(thumbprint: string): TE.TaskEither<Unavailable, O.Option<ApiKeyPair>> {
    return atomically(() => E.right(O.map(copy)(O.fromNullable([...this.keys.values()].find((k) => k.thumbprint === thumbprint)))))
  }

  upsert(key: ApiKeyPair): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      // As a unique index would: two keys with one thumbprint would make `kid` ambiguous.
      const clash = [...this.keys.values()].find((k) => k.thumbprint === key.thumbprint && k.id !== key.id)
      if (clash !== undefined) return E.left(unavailable(new Error(`thumbprint already belongs to key ${clash.id}`)))
      this.keys.set(key.id, copy(key))
      return E.right(undefined)
    })
  }

  list(): TE.TaskEither<Unavailable, readonly ApiKeyPair[]> {
    return atomically(() => E.right([...this.keys.values()].map(copy)))
  }

  revoke(id: string): TE.TaskEither<Unavailable, boolean> {
    return atomically(() => {
      const key = this.keys.get(id)
      if (key === undefined) return E.right(false)
      this.keys.set(id, { ...key, revoked: true })
      return E.right(true)
    })
  }
}
