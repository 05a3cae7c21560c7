import * as TE from 'fp-ts/TaskEither'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'

/**
 * One movement of a card's balance, in the order the ledger applied it: `seq` counts from 1,
 * `amount` is signed (a debit is negative) and `balance` is the card's balance after it.
 */
export interface LedgerEntry {
  readonly card: string
  readonly seq: number
  readonly reference: string
  readonly amount: number
  readonly balance: number
}

/** A debit the balance covered (or one made before under the same reference), or the balance that did not cover it. */
export type Debit = { readonly _tag: 'Debited'; readonly entry: LedgerEntry } | { readonly _tag: 'Insufficient'; readonly balance: number }

/**
 * A movement asked of the ledger: `amount` > 0 (a credit may be 0: it marks its reference as
 * used, which is how a reversal stops a redemption that has not arrived yet), `reference`
 * unique per movement of the card.
 */
export interface Movement {
  /** The card's key in the ledger: a keyed fingerprint, never its number. */
  readonly card: string
  /** The balance a card starts with when the ledger has no entry for it yet. */
  readonly opening: number
  readonly amount: number
  readonly reference: string
}

/**
 * The balances a gift card provider keeps (the sandbox's mock provider keeps them in Orka's
 * storage, so that every instance sees one balance). Each card's movements form one chain:
 * a movement applies on top of the latest, so balances can neither go negative nor lose a
 * movement to a race, and a reference is applied once: asking again answers the first entry.
 */
export interface GiftCardLedger {
  /** The card's balance: its latest entry's, or `opening` when it has none. */
  balance(card: string, opening: number): TE.TaskEither<Unavailable, number>
  /** Takes `amount` off the balance if it covers it; `Insufficient` changes nothing. */
  debit(m: Movement): TE.TaskEither<Unavailable, Debit>
  /** Adds `amount` to the balance (a reversal or a refund of a debit). */
  credit(m: Movement): TE.TaskEither<Unavailable, LedgerEntry>
  /** Every entry of the card, oldest first. */
  entries(card: string): TE.TaskEither<Unavailable, readonly LedgerEntry[]>
}
export const GiftCardLedger = token<GiftCardLedger>('GiftCardLedger')
