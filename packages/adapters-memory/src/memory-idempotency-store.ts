import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  Claim,
  IdempotencyRecord,
  IdempotencyStore,
  keptUntil,
  LeaseHolder,
  Settlement,
  StoredOutcome,
  takeOver,
  Unavailable,
} from '@orka/domain'
import { atomically, keep } from './memory-support'

const slot = (merchantAccountId: string, key: string) => `${merchantAccountId}\u0000${key}`
const live = (r: IdempotencyRecord, nowMs: number) => Date.parse(r.expires_at) > nowMs
/** Past its lease (or replay) and its retention: nothing will ever read it again. */
const dead = (r: IdempotencyRecord, nowMs: number) => Date.parse(keptUntil(r)) <= nowMs
/** The record when `h` holds its current lease, else undefined (no record, or another holder's). */
const heldBy = (r: IdempotencyRecord | undefined, h: LeaseHolder): IdempotencyRecord | undefined =>
  r?.lease === h.lease && r.attempt === h.attempt ? r : undefined

export interface MemoryIdempotencyStoreOptions {
  /** Expired records are swept every this many claims, so memory stays bounded. */
  readonly sweepEvery?: number
}

/** Atomic by construction (see `atomically`): every check-then-write below is one synchronous step. */
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
      if (existing !== undefined && live(existing, nowMs)) return E.right({ claimed: false, existing })
      const stored = keep(existing === undefined ? record : takeOver(existing, record))
      this.records.set(at, stored)
      return E.right({ claimed: true, record: stored })
    })
  }

  complete(holder: LeaseHolder, outcome: StoredOutcome, expiresAt: Date): TE.TaskEither<Unavailable, Settlement> {
    return atomically((): E.Either<Unavailable, Settlement> => {
      const at = slot(holder.merchantAccountId, holder.key)
      const existing = this.records.get(at)
      const held = heldBy(existing, holder)
      // Only the holder of the current lease records an outcome; a released key stays released.
      if (held === undefined) return E.right({ settled: false, current: existing ?? null })
      this.records.set(at, keep({ ...held, state: 'completed', outcome, expires_at: expiresAt.toISOString() }))
      return E.right({ settled: true })
    })
  }

  release(holder: LeaseHolder, now: Date): TE.TaskEither<Unavailable, Settlement> {
    return atomically((): E.Either<Unavailable, Settlement> => {
      const at = slot(holder.merchantAccountId, holder.key)
      const existing = this.records.get(at)
      const held = heldBy(existing, holder)
      if (held?.state !== 'in_flight') return E.right({ settled: false, current: existing ?? null })
      // The lease ends now; the record stays, so a retry of the request learns its reserved id.
      this.records.set(at, keep({ ...held, expires_at: now.toISOString() }))
      return E.right({ settled: true })
    })
  }

  find(merchantAccountId: string, key: string): TE.TaskEither<Unavailable, O.Option<IdempotencyRecord>> {
    return atomically((): E.Either<Unavailable, O.Option<IdempotencyRecord>> =>
      E.right(O.fromNullable(this.records.get(slot(merchantAccountId, key)))),
    )
  }

  private sweep(nowMs: number) {
    for (const [at, r] of this.records) if (dead(r, nowMs)) this.records.delete(at)
  }
}
