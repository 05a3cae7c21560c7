import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { ApiKeyPairRepository, Clock, Unavailable } from '@orka/domain'

/**
 * When each key last authenticated a request, kept in memory and written in one batch by
 * `flush` (about once a minute): `last_used_at` costs a request no write. A crash loses at most
 * the uses since the last flush, a timestamp nobody was promised. A failed flush keeps its
 * batch for the next one, unless a later use of the same key replaced it.
 */
export class KeyUsage {
  private pending = new Map<string, number>()

  constructor(
    private readonly keys: Pick<ApiKeyPairRepository, 'markUsed'>,
    private readonly clock: Clock,
  ) {}

  /** Called for every authenticated request: a map write, nothing more. */
  readonly used = (keyId: string): void => {
    this.pending.set(keyId, this.clock.now().getTime())
  }

  /** Writes the uses seen since the last flush; resolves to how many keys it wrote. */
  flush(): TE.TaskEither<Unavailable, number> {
    return async () => {
      const batch = this.pending
      if (batch.size === 0) return E.right(0)
      this.pending = new Map()
      const written = await this.keys.markUsed([...batch].map(([id, at]) => ({ id, at: new Date(at).toISOString() })))()
      if (E.isRight(written)) return E.right(batch.size)
      for (const [id, at] of batch) if (!this.pending.has(id)) this.pending.set(id, at)
      return written
    }
  }
}
