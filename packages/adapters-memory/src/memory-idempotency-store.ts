import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { Claim, IdempotencyRecord, IdempotencyStore, StoredOutcome, Unavailable } from '@orka/domain'
import { atomically, copy } from './memory-support'

const slot = (merchantAccountId: string, key: string) => `${merchantAccountId}\u0000${key}`
const live = (r: IdempotencyRecord, nowMs: number) => Date.parse(r.expires_at) > nowMs

export interface MemoryIdempotencyStoreOptions {
  /** Expired records are swept every this many claims, so memory stays bounded. */
  readonly sweepEvery?: number
}

export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly records = new Map<string, IdempotencyRecord>()
  private readonly sweepEvery: number
  private claims = 0

  constructor(options: MemoryIdempotencyStoreOptions = {}) {
    this.sweepEvery = options.sweepEvery ?? 1000
  }

  /** Records held, expired ones not yet swept included. */
  get size(): number {
    return this.records.size
  }

  claim(record: IdempotencyRecord, now: Date): TE.TaskEither<Unavailable, Claim> {
    return atomically((): E.Either<Unavailable, Claim> => {
      const nowMs = now.getTime()
      if (++this.claims % this.sweepEvery === 0) this.sweep(nowMs)
      const at = slot(record.merchant_account_id, record.key)
      const existing = this.records.get(at)
      if (existing !== undefined && live(existing, nowMs)) return E.right({ claimed: false, existing: copy(existing) })
      this.records.set(at, copy(record))
      return E.right({ claimed: true })
    })
  }

  complete(merchantAccountId: string, key: string, outcome: StoredOutcome, expiresAt: Date): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      const at = slot(merchantAccountId, key)
      const existing = this.records.get(at)
      // A released key has nothing to complete; recreating it would resurrect a freed key.
      if (existing !== undefined)
        this.records.set(at, { ...existing, state: 'completed', outcome: copy(outcome), expires_at: expiresAt.toISOString() })
      return E.right(undefined)
    })
  }

  release(merchantAccountId: string, key: string): TE.TaskEither<Unavailable, void> {
    return atomically(() => E.right(void this.records.delete(slot(merchantAccountId, key))))
  }

  private sweep(nowMs: number) {
    for (const [at, r] of this.records) if (!live(r, nowMs)) this.records.delete(at)
  }
}
