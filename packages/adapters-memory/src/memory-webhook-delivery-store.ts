import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  compareSortKeys,
  DeliveryClaim,
  DeliveryFilter,
  deliverySortKey,
  DeliveryTransition,
  Seek,
  seekIn,
  Unavailable,
  WebhookDeliveryAttempt,
  WebhookDeliveryRecord,
  WebhookDeliveryStore,
} from '@orka/domain'
import { atomically, keep } from './memory-support'

const claimKey = (deliveryId: string, attempt: number) => `${deliveryId}|${attempt}`

export class MemoryWebhookDeliveryStore implements WebhookDeliveryStore {
  private readonly deliveries = new Map<string, WebhookDeliveryRecord>()
  /** Ids of the pending deliveries: what `due` scans, so finished ones cost nothing. */
  private readonly pending = new Set<string>()
  private readonly claims = new Map<string, { owner: string; leaseUntil: number }>()

  enqueue(deliveries: readonly WebhookDeliveryRecord[]): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      for (const d of deliveries) if (!this.deliveries.has(d.id)) this.put(d)
      return E.right(undefined)
    })
  }

  due(now: Date, limit: number, excluded: readonly string[]): TE.TaskEither<Unavailable, readonly WebhookDeliveryRecord[]> {
    const at = now.toISOString()
    const skip = new Set(excluded)
    return atomically(() => {
      const due: [nextAttemptAt: string, delivery: WebhookDeliveryRecord][] = []
      for (const d of this.pendingDeliveries())
        if (d.next_attempt_at !== null && d.next_attempt_at <= at && !skip.has(d.subscription_id)) due.push([d.next_attempt_at, d])
      due.sort(([a, da], [b, db]) => compareSortKeys([a, da.id], [b, db.id]))
      return E.right(due.slice(0, limit).map(([, d]) => d))
    })
  }

  claim(delivery: WebhookDeliveryRecord, owner: string, now: Date, leaseUntil: Date): TE.TaskEither<Unavailable, O.Option<DeliveryClaim>> {
    return atomically(() => {
      const attempt = delivery.attempts.length + 1
      const key = claimKey(delivery.id, attempt)
      const held = this.claims.get(key)
      if (held !== undefined && held.leaseUntil >= now.getTime()) return E.right(O.none)
      const d = this.deliveries.get(delivery.id)
      const runnable =
        d?.status === 'pending' && d.attempts.length === attempt - 1 && d.next_attempt_at !== null && d.next_attempt_at <= now.toISOString()
      if (!runnable) return E.right(O.none)
      this.claims.set(key, { owner, leaseUntil: leaseUntil.getTime() })
      return E.right(O.some({ delivery: d, attempt, owner }))
    })
  }

  settle(
    claim: DeliveryClaim,
    attempt: WebhookDeliveryAttempt | null,
    next: DeliveryTransition,
    now: Date,
  ): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      const d = this.deliveries.get(claim.delivery.id)
      if (d !== undefined) {
        const transition = d.status === 'pending' ? next : {}
        this.put({
          ...d,
          ...transition,
          attempts: attempt === null ? d.attempts : [...d.attempts, attempt],
          updated_at: now.toISOString(),
        })
      }
      this.claims.delete(claimKey(claim.delivery.id, claim.attempt))
      return E.right(undefined)
    })
  }

  cancelPending(subscriptionId: string, now: Date): TE.TaskEither<Unavailable, number> {
    return atomically(() => {
      let n = 0
      // Listed first: `put` takes a cancelled delivery out of `pending`.
      for (const d of [...this.pendingDeliveries()]) {
        if (d.subscription_id !== subscriptionId) continue
        this.put({ ...d, status: 'cancelled', next_attempt_at: null, updated_at: now.toISOString() })
        n++
      }
      return E.right(n)
    })
  }

  findById(subscriptionId: string, deliveryId: string): TE.TaskEither<Unavailable, O.Option<WebhookDeliveryRecord>> {
    return atomically(() => {
      const d = this.deliveries.get(deliveryId)
      return E.right(d?.subscription_id === subscriptionId ? O.some(d) : O.none)
    })
  }

  list(subscriptionId: string, filter: DeliveryFilter, seek: Seek): TE.TaskEither<Unavailable, readonly WebhookDeliveryRecord[]> {
    return atomically(() => {
      const mine = [...this.deliveries.values()].filter(
        (d) => d.subscription_id === subscriptionId && (filter.status === undefined || d.status === filter.status),
      )
      return E.right(seekIn(mine, deliverySortKey, 'descending', seek))
    })
  }

  redeliver(subscriptionId: string, deliveryId: string, now: Date, retriesUsed: number): TE.TaskEither<Unavailable, boolean> {
    return atomically(() => {
      const d = this.deliveries.get(deliveryId)
      if (d?.subscription_id !== subscriptionId || (d.status !== 'delivered' && d.status !== 'failed')) return E.right(false)
      const at = now.toISOString()
      this.put({ ...d, status: 'pending', next_attempt_at: at, retries_used: retriesUsed, updated_at: at })
      return E.right(true)
    })
  }

  sweep(before: Date): TE.TaskEither<Unavailable, number> {
    const cut = before.toISOString()
    return atomically(() => {
      let n = 0
      for (const [id, d] of this.deliveries)
        if (d.status !== 'pending' && d.updated_at < cut) {
          this.deliveries.delete(id)
          n++
        }
      for (const [key, c] of this.claims) if (c.leaseUntil < before.getTime()) this.claims.delete(key)
      return E.right(n)
    })
  }

  /** The pending deliveries themselves: `put` keeps every id in `pending` a key of `deliveries`. */
  private *pendingDeliveries(): Generator<WebhookDeliveryRecord> {
    for (const id of this.pending) {
      const d = this.deliveries.get(id)
      if (d === undefined) throw new Error(`Pending delivery ${id} is not stored`)
      yield d
    }
  }

  /** Every write goes through here, so every stored delivery is kept (copied and frozen). */
  private put(d: WebhookDeliveryRecord): void {
    this.deliveries.set(d.id, keep(d))
    if (d.status === 'pending') this.pending.add(d.id)
    else this.pending.delete(d.id)
  }
}
