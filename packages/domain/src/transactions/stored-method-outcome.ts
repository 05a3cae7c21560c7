import * as T from 'fp-ts/Task'
import { TransactionStatus } from './transaction.codecs'
import { TransactionRecord } from './transaction'
import { TransactionDeps } from './transaction-deps'
import { StoredCardFacts } from '../payment-methods/payment-method.ports'

/** What the authorizing service told of the card, for the stored method it paid with. */
const factsOf = (r: TransactionRecord): StoredCardFacts => ({
  cardType: r.payment_method?.details?.card_type ?? null,
  schemeTransactionId: r.authorization?.scheme_transaction_id ?? null,
  scheme: r.payment_method?.scheme ?? null,
})

const PAID: ReadonlySet<TransactionStatus> = new Set(['authorization_succeeded', 'capture_succeeded'])
const NOT_PAID: ReadonlySet<TransactionStatus> = new Set(['authorization_declined', 'authorization_failed', 'authorization_voided'])

/**
 * What a version that ends a payment's processing means for the stored card it paid with (its
 * `payment_method.id`): paid, the card is proven (`succeeded`, for a card `store: true` kept as
 * `processing`) and used once more (every use is customer-initiated: Orka takes no
 * merchant-initiated payments); not paid, a card kept by this payment is `failed` (one that paid
 * before stays usable). Runs once per such version, after it is written; usage counts are not
 * money, so a process stopping between the two writes may leave one use uncounted.
 */
export const storedMethodOutcome =
  (deps: Pick<TransactionDeps, 'paymentMethods'>, r: TransactionRecord): T.Task<void> =>
  async () => {
    const id = r.payment_method?.id
    const ended = r.events.some((e) => e.name === 'transaction-updated-status' && e.context.from === 'processing')
    if (id == null || !ended) return
    if (PAID.has(r.status)) {
      await deps.paymentMethods.settle(r.merchant_account_id, id, 'succeeded', r.updated_at, factsOf(r))()
      await deps.paymentMethods.recordUse(r.merchant_account_id, id, r.updated_at, true)()
    } else if (NOT_PAID.has(r.status)) await deps.paymentMethods.settle(r.merchant_account_id, id, 'failed', r.updated_at)()
  }

/**
 * The stored card's status as the transaction's outcome says, again: for a request retried after
 * its process stopped between writing that outcome and settling the card. Idempotent; counts no use.
 */
export const settleStoredMethod =
  (deps: Pick<TransactionDeps, 'paymentMethods'>, r: TransactionRecord): T.Task<void> =>
  async () => {
    const id = r.payment_method?.id
    if (id == null || r.status === 'processing') return
    const paid = r.authorization !== null || PAID.has(r.status)
    await deps.paymentMethods.settle(r.merchant_account_id, id, paid ? 'succeeded' : 'failed', r.updated_at, factsOf(r))()
  }
