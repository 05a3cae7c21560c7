import { StoredCollection } from './mongo-collection'
import { StorageCalls } from './storage-calls'
import { TransactionVersionDocument } from './transaction-version.document'

/** How long a written version waits for the versions before it to be marked, with every other one due by then. */
export const MARK_EVERY_MS = 200

/**
 * Marks the versions a later one superseded, in batches off the writers' path: one `update`
 * command every MARK_EVERY_MS at most, with one statement per transaction written meanwhile,
 * instead of one round trip after each version written. Nothing relies on a mark being there:
 * lists and recovery read unmarked versions and check which is each transaction's newest (the
 * newest is never marked), so a mark that comes late, or never (a process stopped, the write
 * failed), costs them a document to skip, never a wrong answer. They hand back what they find
 * unmarked behind a newer version, so a lost mark is written later.
 */
export class SupersededMarks {
  readonly #due = new Map<string, number>()
  #timer: NodeJS.Timeout | undefined

  constructor(
    private readonly calls: StorageCalls,
    private readonly col: StoredCollection<TransactionVersionDocument>,
  ) {}

  /** The versions of `transactionId` before `version` are superseded. */
  add(transactionId: string, version: number): void {
    if ((this.#due.get(transactionId) ?? 0) < version) this.#due.set(transactionId, version)
    // Unref'd: pending marks never keep a process alive; it loses only the optimisation.
    this.#timer ??= setTimeout(() => void this.flush(), MARK_EVERY_MS).unref()
  }

  /** Writes every mark due now, in one command; a failure drops them (see above). */
  async flush(): Promise<void> {
    clearTimeout(this.#timer)
    this.#timer = undefined
    if (this.#due.size === 0) return
    const due = [...this.#due]
    this.#due.clear()
    await this.calls.attempt((signal) =>
      this.col.within(signal).bulkWrite(
        due.map(([transactionId, version]) => ({
          updateMany: {
            filter: { transaction_id: transactionId, version: { $lt: version }, superseded: false },
            update: { $set: { superseded: true } },
          },
        })),
        { ordered: false },
      ),
    )()
  }
}
