import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { AuditFilter, AuditLog, AuditRecord, auditSortKey, compareSortKeys, Seek, Unavailable } from '@orka/domain'
import { atomically, keep } from './memory-support'
import { SortedIndex } from './sorted-index'

export class MemoryAuditLog implements AuditLog {
  private readonly records = new Map<string, AuditRecord>()
  /** Ids of the pending records: what `pendingBefore` scans (only those a stopped process left). */
  private readonly pending = new Set<string>()
  /** Each account's committed records in list order: a page seeks instead of sorting them all. */
  private readonly listed = new Map<string, SortedIndex<AuditRecord>>()

  add(record: AuditRecord): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      if (!this.records.has(record.id)) this.put(record)
      return E.right(undefined)
    })
  }

  addAll(records: readonly AuditRecord[]): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      for (const r of records) if (!this.records.has(r.id)) this.put(r)
      return E.right(undefined)
    })
  }

  /** The check is cleared: it only serves the relay while the record is pending. */
  commit(id: string): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      const r = this.records.get(id)
      if (r?.committed === false) this.put({ ...r, committed: true, check: null })
      return E.right(undefined)
    })
  }

  drop(id: string): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      const r = this.records.get(id)
      if (r?.committed === false) this.remove(r)
      return E.right(undefined)
    })
  }

  pendingBefore(before: Date, limit: number): TE.TaskEither<Unavailable, readonly AuditRecord[]> {
    const cut = before.toISOString()
    return atomically(() => {
      const old: AuditRecord[] = []
      for (const id of this.pending) {
        const r = this.records.get(id)
        if (r !== undefined && r.timestamp < cut) old.push(r)
      }
      old.sort((a, b) => compareSortKeys(auditSortKey(a), auditSortKey(b)))
      return E.right(old.slice(0, limit))
    })
  }

  list(merchantAccountId: string, filter: AuditFilter, seek: Seek): TE.TaskEither<Unavailable, readonly AuditRecord[]> {
    return atomically(() => {
      const wanted = (r: AuditRecord) =>
        (filter.action === undefined || r.action === filter.action) &&
        (filter.user_id === undefined || r.user.id === filter.user_id) &&
        (filter.resource_type === undefined || r.resource.type === filter.resource_type)
      return E.right(this.listed.get(merchantAccountId)?.seek('descending', seek, wanted) ?? [])
    })
  }

  sweep(before: Date): TE.TaskEither<Unavailable, number> {
    const cut = before.toISOString()
    return atomically(() => {
      let n = 0
      for (const r of this.records.values())
        if (r.timestamp < cut) {
          this.remove(r)
          n++
        }
      return E.right(n)
    })
  }

  /** Every write goes through here, so every stored record is kept (copied and frozen) and indexed. */
  private put(record: AuditRecord): void {
    const kept = keep(record)
    this.records.set(kept.id, kept)
    if (!kept.committed) {
      this.pending.add(kept.id)
      return
    }
    this.pending.delete(kept.id)
    // An instance-wide record (no account) is listed by none.
    if (kept.merchant_account_id === null) return
    const account = this.listed.get(kept.merchant_account_id) ?? new SortedIndex<AuditRecord>(auditSortKey)
    this.listed.set(kept.merchant_account_id, account)
    account.put(kept)
  }

  private remove(record: AuditRecord): void {
    this.records.delete(record.id)
    this.pending.delete(record.id)
    if (record.merchant_account_id !== null) this.listed.get(record.merchant_account_id)?.remove(auditSortKey(record))
  }
}
