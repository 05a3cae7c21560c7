import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  Seek,
  seekIn,
  StaleFrom,
  redemptionsOf,
  TransactionFilter,
  TransactionRecord,
  transactionSortKey,
  TransactionStore,
  Unavailable,
  Unfolded,
  VersionKey,
  WrittenWith,
} from '@orka/domain'
import { atomically, keep } from './memory-support'

/** Whether a transaction's newest version matches a list filter (every filter given must hold). */
export const matches = (r: TransactionRecord, f: TransactionFilter): boolean =>
  (f.status === undefined || f.status.includes(r.status)) &&
  (f.buyer_id === undefined || r.buyer?.id === f.buyer_id) &&
  (f.buyer_external_identifier === undefined || r.buyer?.external_identifier === f.buyer_external_identifier) &&
  (f.external_identifier === undefined || r.external_identifier === f.external_identifier) &&
  (f.checkout_session_id === undefined || r.checkout_session_id === f.checkout_session_id) &&
  (f.created_at_gte === undefined || Date.parse(r.created_at) >= Date.parse(f.created_at_gte)) &&
  (f.created_at_lte === undefined || Date.parse(r.created_at) <= Date.parse(f.created_at_lte)) &&
  (f.amount_gte === undefined || r.amount >= f.amount_gte) &&
  (f.amount_lte === undefined || r.amount <= f.amount_lte) &&
  (f.currency === undefined || f.currency.includes(r.currency)) &&
  (f.gift_card_id === undefined || redemptionsOf(r).some((x) => x.gift_card.id === f.gift_card_id)) &&
  (f.has_gift_card_redemptions === undefined || redemptionsOf(r).length > 0 === f.has_gift_card_redemptions)

/** Every transaction's versions in memory: a version is written only when it is the next one (one check-then-write). */
export class MemoryTransactionStore implements TransactionStore {
  private readonly versions = new Map<string, TransactionRecord[]>()
  private readonly byRefund = new Map<string, string>()

  /** What versions were written with, not folded yet, by `versionKey`. */
  private readonly unfoldedVersions = new Map<string, Unfolded & { readonly updatedAt: number }>()

  put(record: TransactionRecord, written: Partial<WrittenWith> = {}): TE.TaskEither<Unavailable, boolean> {
    return atomically(() => {
      const versions = this.versions.get(record.id) ?? []
      const first = versions[0]
      if (record.version !== versions.length || (first !== undefined && first.merchant_account_id !== record.merchant_account_id))
        return E.right(false)
      versions.push(keep(record))
      this.versions.set(record.id, versions)
      for (const x of record.refunds) this.byRefund.set(x.id, record.id)
      const version = { merchantAccountId: record.merchant_account_id, transactionId: record.id, version: record.version }
      const [audit, events] = [written.audit ?? [], written.events ?? []]
      if (audit.length > 0 || events.length > 0)
        this.unfoldedVersions.set(versionKey(version), {
          version,
          audit: keep(audit),
          events: keep(events),
          updatedAt: Date.parse(record.updated_at),
        })
      return E.right(true)
    })
  }

  private newest(merchantAccountId: string, id: string): TransactionRecord | undefined {
    const newest = this.versions.get(id)?.at(-1)
    return newest?.merchant_account_id === merchantAccountId ? newest : undefined
  }

  find(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<TransactionRecord>> {
    return atomically(() => E.right(O.fromNullable(this.newest(merchantAccountId, id))))
  }

  history(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, readonly TransactionRecord[]> {
    return atomically(() => E.right(this.newest(merchantAccountId, id) === undefined ? [] : [...(this.versions.get(id) ?? [])]))
  }

  list(merchantAccountId: string, filter: TransactionFilter, seek: Seek): TE.TaskEither<Unavailable, readonly TransactionRecord[]> {
    return atomically(() => {
      const newest = [...this.versions.values()].flatMap((vs) => vs.slice(-1))
      const listed = newest.filter((r) => r.merchant_account_id === merchantAccountId && matches(r, filter))
      return E.right(seekIn(listed, transactionSortKey, 'descending', seek))
    })
  }

  findByRefund(merchantAccountId: string, refundId: string): TE.TaskEither<Unavailable, O.Option<TransactionRecord>> {
    return atomically(() => {
      const id = this.byRefund.get(refundId)
      return E.right(O.fromNullable(id === undefined ? undefined : this.newest(merchantAccountId, id)))
    })
  }

  stale(before: Date, limit: number, after?: StaleFrom): TE.TaskEither<Unavailable, readonly TransactionRecord[]> {
    const order = (a: Pick<TransactionRecord, 'updated_at' | 'id'>, b: Pick<TransactionRecord, 'updated_at' | 'id'>) =>
      Date.parse(a.updated_at) - Date.parse(b.updated_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
    return atomically(() => {
      const stale = [...this.versions.values()]
        .flatMap((vs) => vs.slice(-1))
        .filter((r) => r.pending && Date.parse(r.updated_at) < before.getTime() && (after === undefined || order(r, after) > 0))
        .sort(order)
      return E.right(stale.slice(0, Math.max(0, limit)))
    })
  }

  unfolded(before: Date, limit: number): TE.TaskEither<Unavailable, readonly Unfolded[]> {
    return atomically(() => {
      const old = [...this.unfoldedVersions.values()]
        .filter((w) => w.updatedAt < before.getTime())
        .sort((a, b) => a.updatedAt - b.updatedAt || compareText(versionKey(a.version), versionKey(b.version)))
      return E.right(old.slice(0, Math.max(0, limit)).map(({ version, audit, events }) => ({ version, audit, events })))
    })
  }

  folded(versions: readonly VersionKey[]): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      for (const v of versions) this.unfoldedVersions.delete(versionKey(v))
      return E.right(undefined)
    })
  }
}

const versionKey = (v: VersionKey) => `${v.transactionId}\u0000${String(v.version).padStart(12, '0')}`
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
