import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { Debit, GiftCardLedger, LedgerEntry, Movement, Unavailable } from '@orka/domain'
import { fromLedgerEntryDocument, LedgerEntryDocument, toLedgerEntryDocument } from './gift-card-ledger.document'
import { BoundedCollection, storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { isDuplicateKey } from './duplicate-key'
import { storageCalls, StorageCalls } from './storage-calls'
import { Turns } from './turns'

/**
 * How many times one movement may find its place taken by another before giving up
 * (`Unavailable`): each loss means another movement of the card was applied, so N racing
 * movements of one card need at most N - 1.
 */
export const MAX_LEDGER_RACES = 256

/** The card's entries, newest first: the unique-by-`_id` insert of entry `seq + 1` is what orders them. */
const LATEST = { seq: -1 } as const

/**
 * Balances on MongoDB or FerretDB 1.24 with inserts only: no update is relied on to be an
 * atomic check-and-set (FerretDB runs an update as a read, then a write). A movement reads the
 * card's latest entry and inserts the next one with `_id` (card, seq + 1): of two movements
 * built on the same entry one insert fails on the key, and that one reads again. A duplicate
 * (card, reference) means the movement was applied already: its entry is the answer.
 */
export class MongoGiftCardLedger implements GiftCardLedger {
  readonly #entries: StoredCollection<LedgerEntryDocument>
  readonly #calls: StorageCalls
  /** A card's movements take turns within this process (N of them cost N rounds, not up to N² lost races); only other instances race. */
  readonly #turns = new Turns()

  constructor(store: MongoStore) {
    this.#calls = storageCalls(store)
    this.#entries = storedCollection(store, COLLECTIONS.giftCardLedger)
  }

  balance(card: string, opening: number): TE.TaskEither<Unavailable, number> {
    return this.#calls.attempt(async (signal) => (await latest(this.#entries.within(signal), card))?.balance ?? opening)
  }

  debit(m: Movement): TE.TaskEither<Unavailable, Debit> {
    return this.#calls.attempt(async (signal) => {
      const r = await this.#turns.run(m.card, () => this.#append(this.#entries.within(signal), m, -m.amount))
      return E.isRight(r) ? { _tag: 'Debited', entry: r.right } : { _tag: 'Insufficient', balance: r.left }
    })
  }

  credit(m: Movement): TE.TaskEither<Unavailable, LedgerEntry> {
    return this.#calls.attempt(async (signal) => {
      const r = await this.#turns.run(m.card, () => this.#append(this.#entries.within(signal), m, m.amount))
      // A credit (amount > 0) always fits: a Left would be a broken port contract, not an answer.
      if (E.isLeft(r)) throw new Error('gift card ledger: a credit was refused')
      return r.right
    })
  }

  entries(card: string): TE.TaskEither<Unavailable, readonly LedgerEntry[]> {
    return this.#calls.attempt(async (signal) =>
      (await this.#entries.within(signal).find({ card }).sort({ seq: 1 }).toArray()).map(fromLedgerEntryDocument),
    )
  }

  /**
   * Appends the movement on the latest entry: its entry, or the one its reference already has,
   * or (Left) the balance that does not cover it.
   */
  async #append(col: BoundedCollection<LedgerEntryDocument>, m: Movement, amount: number): Promise<E.Either<number, LedgerEntry>> {
    for (let race = 0; race <= MAX_LEDGER_RACES; race++) {
      const last = await latest(col, m.card)
      const balance = last?.balance ?? m.opening
      if (balance + amount < 0) {
        // Refused only if it was not applied before: a replay answers its entry whatever the balance now.
        const earlier = await applied(col, m)
        return earlier === null ? E.left(balance) : E.right(earlier)
      }
      const entry: LedgerEntry = { card: m.card, seq: (last?.seq ?? 0) + 1, reference: m.reference, amount, balance: balance + amount }
      try {
        await col.insertOne(toLedgerEntryDocument(entry))
        return E.right(entry)
      } catch (e) {
        if (!isDuplicateKey(e)) throw e
        // Either this reference is applied already (its entry is the answer), or another movement took seq + 1 (read again).
        const earlier = await applied(col, m)
        if (earlier !== null) return E.right(earlier)
      }
    }
    throw new Error(`gift card ledger: more than ${String(MAX_LEDGER_RACES)} racing movements of one card`)
  }
}

const latest = async (col: BoundedCollection<LedgerEntryDocument>, card: string): Promise<LedgerEntry | null> => {
  const doc = await col.findOne({ card }, { sort: LATEST })
  return doc === null ? null : fromLedgerEntryDocument(doc)
}

const applied = async (col: BoundedCollection<LedgerEntryDocument>, m: Movement): Promise<LedgerEntry | null> => {
  const doc = await col.findOne({ card: m.card, reference: m.reference })
  return doc === null ? null : fromLedgerEntryDocument(doc)
}
