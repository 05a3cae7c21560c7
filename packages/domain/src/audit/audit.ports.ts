import * as TE from 'fp-ts/TaskEither'
import { Seek } from '../pagination/page'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { AuditRecord } from './audit-entry'

export interface AuditFilter {
  readonly action?: string
  readonly user_id?: string
  readonly resource_type?: string
}

/**
 * The audit log's storage. Entries are written pending before their change and committed after
 * it (see `makeRecordAudited`); nothing in the API changes or deletes a committed one.
 */
export interface AuditLog {
  /** Stores a pending record; one with the same id again changes nothing. */
  add(record: AuditRecord): TE.TaskEither<Unavailable, void>
  /** Stores each record as `add` does, in one write. */
  addAll(records: readonly AuditRecord[]): TE.TaskEither<Unavailable, void>
  /**
   * Makes the record committed (listed from then on) with its `check` cleared, which only the
   * relay needs while it is pending; absent or committed already, nothing changes.
   */
  commit(id: string): TE.TaskEither<Unavailable, void>
  /** Removes a pending record whose change did not happen; a committed one stays. */
  drop(id: string): TE.TaskEither<Unavailable, void>
  /** Pending records with a `timestamp` before `before`, oldest first, at most `limit`. */
  pendingBefore(before: Date, limit: number): TE.TaskEither<Unavailable, readonly AuditRecord[]>
  /**
   * Keyset read of one account's committed records matching every given filter field, in
   * descending (timestamp, id) order: newest first.
   */
  list(merchantAccountId: string, filter: AuditFilter, seek: Seek): TE.TaskEither<Unavailable, readonly AuditRecord[]>
  /** Deletes the records with a `timestamp` before `before` (the retention); how many. */
  sweep(before: Date): TE.TaskEither<Unavailable, number>
}
export const AuditLog = token<AuditLog>('AuditLog')
