import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import * as t from 'io-ts'
import { Buyer } from '../buyers/buyer'
import { BuyerRepository } from '../buyers/buyers.ports'
import { GiftCardVault } from '../gift-cards/gift-card.ports'
import { PaymentMethodVault } from '../payment-methods/payment-method.ports'
import { TransactionStore } from '../transactions/transaction.ports'
import { Clock } from '../shared/clock.ports'
import { Unavailable } from '../shared/errors'
import { deliveriesOf } from './webhook-delivery'
import { WebhookDeliveryStore, WebhookOutbox } from './webhook-delivery.ports'
import { OutboxEntry, WebhookEventName } from './webhook-event'

export type HandOver = (entry: OutboxEntry) => TE.TaskEither<Unavailable, void>

/** Stores an event's deliveries (those that exist already stay as they are), then forgets its outbox entry. */
export const makeHandOver =
  (deps: { outbox: WebhookOutbox; deliveries: WebhookDeliveryStore }): HandOver =>
  (entry) =>
    pipe(
      deps.deliveries.enqueue(deliveriesOf(entry)),
      TE.flatMap(() => deps.outbox.remove(entry.event_id)),
    )

interface Sources {
  readonly buyers: BuyerRepository
  readonly giftCardVault: GiftCardVault
  readonly paymentMethods: PaymentMethodVault
  readonly transactions: TransactionStore
}

/** The `updated_at` of the resource an entry's event carries; none when the body does not say (then nothing is sure). */
const updatedAtOf = (e: OutboxEntry): O.Option<string> => {
  const body = pipe(
    E.tryCatch((): unknown => JSON.parse(e.body), E.toError),
    E.flatMap((json) => E.mapLeft(() => new Error('no updated_at'))(t.type({ target: t.type({ updated_at: t.string }) }).decode(json))),
  )
  return E.isRight(body) ? O.some(body.right.target.updated_at) : O.none
}

/** Whether a version of the transaction with this state was written: its `updated_at` and status (a refund's: the refund's). */
const transactionWritten =
  (what: 'transaction' | 'refund') =>
  (s: Sources, e: OutboxEntry): TE.TaskEither<Unavailable, boolean> => {
    const sent = pipe(
      E.tryCatch((): unknown => JSON.parse(e.body), E.toError),
      E.flatMap((json) =>
        E.mapLeft(() => new Error('no target'))(
          t
            .type({ target: t.type({ updated_at: t.string, status: t.string, transaction_id: t.union([t.string, t.undefined]) }) })
            .decode(json),
        ),
      ),
    )
    if (E.isLeft(sent)) return TE.right(false)
    const { updated_at, status, transaction_id } = sent.right.target
    const transactionId = what === 'refund' ? (transaction_id ?? '') : e.target_id
    return TE.map(
      (
        versions: readonly { updated_at: string; status: string; refunds: readonly { id: string; status: string; updated_at: string }[] }[],
      ) =>
        versions.some((v) =>
          what === 'transaction'
            ? v.updated_at === updated_at && v.status === status
            : v.refunds.some((x) => x.id === e.target_id && x.status === status && x.updated_at === updated_at),
        ),
    )(s.transactions.history(e.merchant_account_id, transactionId))
  }

/** How the relay tells, for each kind of event, that the write which raised it happened. */
const HAPPENED: Readonly<Record<WebhookEventName, (s: Sources, e: OutboxEntry) => TE.TaskEither<Unavailable, boolean>>> = {
  'buyer.created': (s, e) => TE.map((b: O.Option<unknown>) => O.isSome(b))(s.buyers.findById(e.merchant_account_id, e.target_id)),
  // The buyer stored is the one the event carries (same `updated_at`). Updated again since, it is
  // not sure that this update was ever stored: the event is dropped (the later one has its own).
  'buyer.updated': (s, e) =>
    TE.map((b: O.Option<Buyer>) =>
      pipe(
        O.Do,
        O.bind('stored', () => b),
        O.bind('sent', () => updatedAtOf(e)),
        O.exists(({ stored, sent }) => stored.updated_at === sent),
      ),
    )(s.buyers.findById(e.merchant_account_id, e.target_id)),
  // The event is raised before the delete: the buyer gone means the delete happened.
  'buyer.deleted': (s, e) => TE.map((b: O.Option<unknown>) => O.isNone(b))(s.buyers.findById(e.merchant_account_id, e.target_id)),
  'gift-card.created': (s, e) =>
    TE.map((c: O.Option<unknown>) => O.isSome(c))(s.giftCardVault.findById(e.merchant_account_id, e.target_id)),
  // The card is gone: the delete happened (an entry is only added for a card that was there).
  'gift-card.deleted': (s, e) =>
    TE.map((c: O.Option<unknown>) => O.isNone(c))(s.giftCardVault.findById(e.merchant_account_id, e.target_id)),
  'payment-method.created': (s, e) =>
    TE.map((m: O.Option<unknown>) => O.isSome(m))(s.paymentMethods.findById(e.merchant_account_id, e.target_id)),
  'payment-method.deleted': (s, e) =>
    TE.map((m: O.Option<unknown>) => O.isNone(m))(s.paymentMethods.findById(e.merchant_account_id, e.target_id)),
  'transaction.authorized': transactionWritten('transaction'),
  'transaction.captured': transactionWritten('transaction'),
  'transaction.declined': transactionWritten('transaction'),
  'transaction.failed': transactionWritten('transaction'),
  'transaction.voided': transactionWritten('transaction'),
  'refund.succeeded': transactionWritten('refund'),
  'refund.declined': transactionWritten('refund'),
  'refund.failed': transactionWritten('refund'),
}

export interface RelayConfig {
  /**
   * An entry younger than this may belong to a write still under way, and is left alone. Longer
   * than any write takes (storage calls time out well within it), so that an entry whose write
   * is not found by then belongs to a write that did not happen.
   */
  readonly graceMs: number
  readonly batch: number
}

/**
 * Settles outbox entries left behind by processes that stopped between storing an event and
 * handing it over: an entry whose write happened is handed over, one whose write did not is
 * dropped. Returns how many of each.
 */
export const makeRelayOutbox =
  (deps: Sources & { outbox: WebhookOutbox; deliveries: WebhookDeliveryStore; clock: Clock; config: RelayConfig }) =>
  (): TE.TaskEither<Unavailable, { readonly handedOver: number; readonly dropped: number }> => {
    const handOver = makeHandOver(deps)
    const before = new Date(deps.clock.now().getTime() - deps.config.graceMs)
    return pipe(
      deps.outbox.olderThan(before, deps.config.batch),
      TE.flatMap(
        TE.traverseSeqArray((entry) =>
          pipe(
            HAPPENED[entry.event_name](deps, entry),
            TE.flatMap((happened) =>
              happened
                ? TE.map(() => 'handedOver' as const)(handOver(entry))
                : TE.map(() => 'dropped' as const)(deps.outbox.remove(entry.event_id)),
            ),
          ),
        ),
      ),
      TE.map((done) => ({
        handedOver: done.filter((d) => d === 'handedOver').length,
        dropped: done.filter((d) => d === 'dropped').length,
      })),
    )
  }
