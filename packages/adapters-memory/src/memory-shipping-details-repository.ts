import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { ShippingDetailsRecord, ShippingDetailsRepository, Unavailable } from '@orka/domain'
import { atomically, keep } from './memory-support'

/** Newest first; the id breaks ties, descending, as the MongoDB index orders them. */
const newestFirst = (a: ShippingDetailsRecord, b: ShippingDetailsRecord): number =>
  a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1

const buyerKey = (merchantAccountId: string, buyerId: string) => `${merchantAccountId}\u0000${buyerId}`

export class MemoryShippingDetailsRepository implements ShippingDetailsRepository {
  private readonly records = new Map<string, ShippingDetailsRecord>()
  /** Each buyer's ids: a list reads its buyer's few, not every buyer's. */
  private readonly ofBuyer = new Map<string, Set<string>>()

  private mine(merchantAccountId: string, id: string): ShippingDetailsRecord | undefined {
    const r = this.records.get(id)
    return r?.merchant_account_id === merchantAccountId ? r : undefined
  }

  create(record: ShippingDetailsRecord): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      this.records.set(record.id, keep(record))
      const key = buyerKey(record.merchant_account_id, record.buyer_id)
      this.ofBuyer.set(key, (this.ofBuyer.get(key) ?? new Set()).add(record.id))
      return E.right(undefined)
    })
  }

  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<ShippingDetailsRecord>> {
    return atomically(() => E.right(O.fromNullable(this.mine(merchantAccountId, id))))
  }

  listOfBuyer(merchantAccountId: string, buyerId: string): TE.TaskEither<Unavailable, readonly ShippingDetailsRecord[]> {
    return atomically(() => E.right(this.held(merchantAccountId, buyerId).sort(newestFirst)))
  }

  private held(merchantAccountId: string, buyerId: string): ShippingDetailsRecord[] {
    const ids = [...(this.ofBuyer.get(buyerKey(merchantAccountId, buyerId)) ?? [])]
    return ids.flatMap((id) => this.mine(merchantAccountId, id) ?? [])
  }

  update(record: ShippingDetailsRecord): TE.TaskEither<Unavailable, boolean> {
    return atomically(() => {
      if (this.mine(record.merchant_account_id, record.id) === undefined) return E.right(false)
      this.records.set(record.id, keep(record))
      return E.right(true)
    })
  }

  delete(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, boolean> {
    return atomically(() => {
      const r = this.mine(merchantAccountId, id)
      if (r === undefined) return E.right(false)
      this.records.delete(id)
      this.ofBuyer.get(buyerKey(merchantAccountId, r.buyer_id))?.delete(id)
      return E.right(true)
    })
  }

  deleteOfBuyer(merchantAccountId: string, buyerId: string): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      for (const r of this.held(merchantAccountId, buyerId)) this.records.delete(r.id)
      this.ofBuyer.delete(buyerKey(merchantAccountId, buyerId))
      return E.right(undefined)
    })
  }
}
