import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { CheckoutSessionRecord, SessionCard } from './checkout-session'

/**
 * Checkout sessions and the card data Secure Fields put on them. A session is live while `now`
 * is before its `expires_at`; from then on it is as absent (and `sweep` purges it, card data
 * and all).
 */
export interface CheckoutSessionStore {
  create(record: CheckoutSessionRecord): TE.TaskEither<Unavailable, void>
  /** The account's live session with this id; another account's, an expired or deleted one is none. */
  find(merchantAccountId: string, id: string, now: Date): TE.TaskEither<Unavailable, O.Option<CheckoutSessionRecord>>
  /** The live session with this id, whatever its account (Secure Fields know only the id, which is the capability). */
  findById(id: string, now: Date): TE.TaskEither<Unavailable, O.Option<CheckoutSessionRecord>>
  /** Replaces a live session (its card data kept as it is); false when it is gone. */
  update(record: CheckoutSessionRecord, now: Date): TE.TaskEither<Unavailable, boolean>
  /** Removes the session and its card data; false when there was no live one. */
  delete(merchantAccountId: string, id: string, now: Date): TE.TaskEither<Unavailable, boolean>
  /**
   * Puts card data (a card, gift cards or both) on the live session with this id, whatever its
   * account (Secure Fields know only the id, which is the capability), replacing all card data
   * before, and moves `expires_at`. The session as it now is; none when there is no live
   * session with this id.
   */
  putCard(id: string, card: SessionCard, expiresAt: string, now: Date): TE.TaskEither<Unavailable, O.Option<CheckoutSessionRecord>>
  /**
   * Takes the card data of the account's live session for a payment: answers the session as it
   * was (card data included: the card, the gift cards) and removes it, so that it is used once. Of callers racing
   * for one card, at most one gets it. None when there is no card to take: no live session of
   * the account with this id, or one without card data (never sent, or taken already); `find`
   * tells which.
   */
  takeCard(merchantAccountId: string, id: string, now: Date): TE.TaskEither<Unavailable, O.Option<CheckoutSessionRecord>>
  /** Deletes the sessions expired by `now` (card data and all); how many. Idempotent. */
  sweep(now: Date): TE.TaskEither<Unavailable, number>
}
export const CheckoutSessionStore = token<CheckoutSessionStore>('CheckoutSessionStore')
