import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Seek } from '../pagination/page'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { AuditRecord } from '../audit/audit-entry'
import { OutboxEntry } from '../webhooks/webhook-event'
import { TransactionStatus } from './transaction.codecs'
import { TransactionRecord } from './transaction'

/** What `GET /transactions` filters on; every filter given must hold. */
export interface TransactionFilter {
  readonly status?: readonly TransactionStatus[]
  readonly buyer_id?: string
  readonly buyer_external_identifier?: string
  readonly external_identifier?: string
  readonly checkout_session_id?: string
  /** Inclusive bounds: RFC 3339 date-times with their time zone (`rfc3339DateTime`, checked by the HTTP layer). */
  readonly created_at_gte?: string
  readonly created_at_lte?: string
  readonly amount_gte?: number
  readonly amount_lte?: number
  readonly currency?: readonly string[]
  /** Only transactions with a redemption (of any status) of the stored gift card with this id. */
  readonly gift_card_id?: string
  /** Only transactions with (true) or without (false) gift card redemptions. */
  readonly has_gift_card_redemptions?: boolean
}

/** Where a read of stale transactions goes on from: a transaction it returned, as it returned it. */
export type StaleFrom = Pick<TransactionRecord, 'id' | 'version' | 'updated_at'>

/** One version of one transaction. */
export interface VersionKey {
  readonly merchantAccountId: string
  readonly transactionId: string
  readonly version: number
}

/** What a version is written with, beside itself: read elsewhere once folded (`VersionFolds`). */
export interface WrittenWith {
  /** The audit entries of the changes the version makes. */
  readonly audit: readonly AuditRecord[]
  /** The webhook events it raises, with no deliveries yet: its recipients are found when it is folded. */
  readonly events: readonly OutboxEntry[]
}

/** A version's `WrittenWith`, not folded yet. */
export interface Unfolded extends WrittenWith {
  readonly version: VersionKey
}

/**
 * Transactions as versions: every step of a flow writes the whole state as the next version,
 * once. Writing a version is the only way a transaction changes, and exactly one writer gets
 * each version, so two processes racing to capture, void or refund one transaction cannot both
 * act: the loser reads the winner's version and decides again.
 */
export interface TransactionStore {
  /**
   * Stores `record` as version `record.version` of its transaction. False, changing nothing,
   * when that version exists already (another writer moved first); for version 0, when a
   * transaction with this id exists. Versions after 0 follow the one before without a gap.
   * `written`: its audit entries and webhook events, stored with it in the same write (so with it
   * or not at all), and kept unfolded until `folded` names the version.
   */
  put(record: TransactionRecord, written?: Partial<WrittenWith>): TE.TaskEither<Unavailable, boolean>
  /** The newest version of the account's transaction with this id; another account's is none. */
  find(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<TransactionRecord>>
  /** Every version of the account's transaction, oldest first (none: empty). */
  history(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, readonly TransactionRecord[]>
  /** Newest versions of the account's transactions that match, keyset over descending (created_at, id). */
  list(merchantAccountId: string, filter: TransactionFilter, seek: Seek): TE.TaskEither<Unavailable, readonly TransactionRecord[]>
  /** The newest version of the account's transaction holding the refund with this id. */
  findByRefund(merchantAccountId: string, refundId: string): TE.TaskEither<Unavailable, O.Option<TransactionRecord>>
  /**
   * Transactions of every account whose newest version is `pending` and was written before
   * `before`, oldest first (`updated_at`, then id); only those after `after` (one this returned)
   * when given. `limit` of them when that many are left: fewer means none is left.
   */
  stale(before: Date, limit: number, after?: StaleFrom): TE.TaskEither<Unavailable, readonly TransactionRecord[]>
  /** Versions of every account written before `before` with audit entries or events not folded, oldest first, at most `limit`. */
  unfolded(before: Date, limit: number): TE.TaskEither<Unavailable, readonly Unfolded[]>
  /** Marks these versions folded: `unfolded` leaves them out from then on. */
  folded(versions: readonly VersionKey[]): TE.TaskEither<Unavailable, void>
}
export const TransactionStore = token<TransactionStore>('TransactionStore')
