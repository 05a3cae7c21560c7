import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { CheckoutSessionRecord, CheckoutSessionStore, SessionCard, Unavailable } from '@orka/domain'
import { atomically, keep } from './memory-support'

const live = (r: CheckoutSessionRecord | undefined, now: Date): r is CheckoutSessionRecord =>
  r !== undefined && Date.parse(r.expires_at) > now.getTime()

/** Every check-then-write is one synchronous step (`atomically`): of racing `takeCard`s exactly one finds the card. */
export class MemoryCheckoutSessionStore implements CheckoutSessionStore {
  private readonly sessions = new Map<string, CheckoutSessionRecord>()

  create(record: CheckoutSessionRecord): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      this.sessions.set(record.id, keep(record))
      return E.right(undefined)
    })
  }

  find(merchantAccountId: string, id: string, now: Date): TE.TaskEither<Unavailable, O.Option<CheckoutSessionRecord>> {
    return atomically(() => E.right(O.fromNullable(this.own(merchantAccountId, id, now))))
  }

  findById(id: string, now: Date): TE.TaskEither<Unavailable, O.Option<CheckoutSessionRecord>> {
    return atomically(() => {
      const r = this.sessions.get(id)
      return E.right(live(r, now) ? O.some(r) : O.none)
    })
  }

  update(record: CheckoutSessionRecord, now: Date): TE.TaskEither<Unavailable, boolean> {
    return atomically(() => {
      const current = this.own(record.merchant_account_id, record.id, now)
      if (current === undefined) return E.right(false)
      this.sessions.set(record.id, keep({ ...record, card: current.card }))
      return E.right(true)
    })
  }

  delete(merchantAccountId: string, id: string, now: Date): TE.TaskEither<Unavailable, boolean> {
    return atomically(() => E.right(this.own(merchantAccountId, id, now) !== undefined && this.sessions.delete(id)))
  }

  putCard(id: string, card: SessionCard, expiresAt: string, now: Date): TE.TaskEither<Unavailable, O.Option<CheckoutSessionRecord>> {
    return atomically(() => {
      const current = this.sessions.get(id)
      if (!live(current, now)) return E.right(O.none)
      const next = keep({ ...current, card, expires_at: expiresAt })
      this.sessions.set(id, next)
      return E.right(O.some(next))
    })
  }

  takeCard(merchantAccountId: string, id: string, now: Date): TE.TaskEither<Unavailable, O.Option<CheckoutSessionRecord>> {
    return atomically(() => {
      const current = this.own(merchantAccountId, id, now)
      if (current?.card == null) return E.right(O.none)
      this.sessions.set(id, keep({ ...current, card: null }))
      return E.right(O.some(current))
    })
  }

  sweep(now: Date): TE.TaskEither<Unavailable, number> {
    return atomically(() => {
      let n = 0
      for (const [id, r] of this.sessions)
        if (!live(r, now)) {
          this.sessions.delete(id)
          n++
        }
      return E.right(n)
    })
  }

  private own(merchantAccountId: string, id: string, now: Date): CheckoutSessionRecord | undefined {
    const r = this.sessions.get(id)
    return live(r, now) && r.merchant_account_id === merchantAccountId ? r : undefined
  }
}
