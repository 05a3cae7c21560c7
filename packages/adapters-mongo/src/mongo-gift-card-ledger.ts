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

/** How many cards' latest entries a process keeps: beyond it, the least recently moved are read again. */
const LATEST_KEPT = 10_000

/** The latest entry of the cards moved most recently, at most `size` of them, oldest dropped first. */
class LatestEntries {
  readonly #entries = new Map<string, LedgerEntry>()
  constructor(private readonly size: number) {}

  get(card: string): LedgerEntry | undefined {
    return this.#entries.get(card)
  }

  set(entry: LedgerEntry): void {
    const had = this.#entries.get(entry.card)
    // An entry read may be older than one this process wrote meanwhile: the higher `seq` is kept.
    if (had !== undefined && had.seq > entry.seq) return
    this.#entries.delete(entry.card)
    this.#entries.set(entry.card, entry)
    if (this.#entries.size > this.size) this.#entries.delete(this.#entries.keys().next().value ?? '')
  }

  forget(card: string): void {
    this.#entries.delete(card)
  }
}

/** The card's entries, newest first: the unique-by-`_id` insert of entry `seq + 1` is what orders them. */
const LATEST = { seq: -1 } as const

/**
 * Balances on MongoDB or FerretDB 1.24 with inserts only: no update is relied on to be an
 * atomic check-and-set (FerretDB runs an update as a read, then a write). A movement reads the
 * card's latest entry and inserts the next one with `_id` (card, seq + 1): of two movements
 * built on the same entry one insert fails on the key, and that one reads again. A duplicate
 * (card, reference) means the movement was applied already: its entry is the answer.
 *
 * A movement reads nothing first: it builds on the latest entry this process wrote or read of
 * the card (`LatestEntries`), or, for a card it does not know, on the guess that the card has no
 * entry yet. Entries are never deleted and their numbers have no gaps, so a guess that another
 * instance (or an earlier process) has moved past names a `seq` that exists, and the insert fails
 * on the key: then the movement reads the latest entry and decides again. Only a refusal is
 * never told from a guess (the card may have been credited since): it reads the latest first.
 * On FerretDB 1.24, whose pushdown no index serves, that read is a scan of the collection
 * (docs/benchmarks.md), which the guess keeps off the common path.
 */
export class MongoGiftCardLedger implements GiftCardLedger {
  readonly #entries: StoredCollection<LedgerEntryDocument>
  readonly #calls: StorageCalls
  /** A card's movements take turns within this process (N of them cost N rounds, not up to N² lost races); only other instances race. */
  readonly #turns = new Turns()
  readonly #known = new LatestEntries(LATEST_KEPT)

  constructor(store: MongoStore) {
    this.#calls = storageCalls(store)
    this.#entries = storedCollection(store, COLLECTIONS.giftCardLedger)
  }

  balance(card: string, opening: number): TE.TaskEither<Unavailable, number> {
    return this.#calls.attempt(async (signal) => (await this.#read(this.#entries.within(signal), card))?.balance ?? opening)
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
    // What this process knows of the card, or a guess that it has no entry: tried without a read, checked by the insert.
    let guess: LedgerEntry | null | undefined = this.#known.get(m.card) ?? null
    for (let race = 0; race <= MAX_LEDGER_RACES; race++) {
      const guessed = guess !== undefined
      const last = guess !== undefined ? guess : await this.#read(col, m.card)
      guess = undefined
      // An entry of the card (stored: read, or kept) with its reference: applied already, and that entry is the answer.
      if (last !== null && last.reference === m.reference) return E.right(last)
      const balance = last?.balance ?? m.opening
      if (balance + amount < 0) {
        // A refusal is told from storage, never from a guess (another instance may have credited the card).
        if (guessed) continue
        // Refused only if it was not applied before: a replay answers its entry whatever the balance now.
        const earlier = await applied(col, m)
        return earlier === null ? E.left(balance) : E.right(earlier)
      }
      const entry: LedgerEntry = { card: m.card, seq: (last?.seq ?? 0) + 1, reference: m.reference, amount, balance: balance + amount }
      try {
        await col.insertOne(toLedgerEntryDocument(entry))
        this.#known.set(entry)
        return E.right(entry)
      } catch (e) {
        this.#known.forget(m.card)
        if (!isDuplicateKey(e)) throw e
        // A wrong guess: read the latest and decide again. Otherwise either this reference is
        // applied already (its entry is the answer), or another movement took seq + 1 (read again).
        if (guessed) continue
        const earlier = await applied(col, m)
        if (earlier !== null) return E.right(earlier)
      }
    }
    throw new Error(`gift card ledger: more than ${String(MAX_LEDGER_RACES)} racing movements of one card`)
  }

  /** The card's latest entry as stored now, kept for the next movement. */
  async #read(col: BoundedCollection<LedgerEntryDocument>, card: string): Promise<LedgerEntry | null> {
    const last = await latest(col, card)
    if (last === null) this.#known.forget(card)
    else this.#known.set(last)
    return last
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
