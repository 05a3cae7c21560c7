import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { Unavailable } from '../shared/errors'
import { OutboxEntry } from '../webhooks/webhook-event'
import { TransactionStatus } from './transaction.codecs'
import { toRefund, toTransaction, TransactionRecord } from './transaction'
import { TransactionDeps } from './transaction-deps'

const ON_STATUS: Partial<
  Record<
    TransactionStatus,
    'transaction.authorized' | 'transaction.captured' | 'transaction.declined' | 'transaction.failed' | 'transaction.voided'
  >
> = {
  authorization_succeeded: 'transaction.authorized',
  capture_succeeded: 'transaction.captured',
  authorization_declined: 'transaction.declined',
  authorization_failed: 'transaction.failed',
  authorization_voided: 'transaction.voided',
}

const PENDING: readonly string[] = ['capture_pending', 'authorization_void_pending'] satisfies TransactionStatus[]

/** The webhook event a version raises: its status change, or the refund it settled; none for the other steps. */
const eventOf = (deps: Pick<TransactionDeps, 'events'>, r: TransactionRecord): TE.TaskEither<Unavailable, O.Option<OutboxEntry>> => {
  const changed = r.events.find((e) => e.name === 'transaction-updated-status')
  // Back to authorized from a capture or void the provider then refused: no second `transaction.authorized`.
  const fellBack = r.status === 'authorization_succeeded' && PENDING.includes(String(changed?.context.from))
  const name = changed === undefined || fellBack ? undefined : ON_STATUS[r.status]
  if (name !== undefined) return deps.events.raise(name, r.merchant_account_id, toTransaction(r))
  const settled = r.events.find((e) => /^(gift-card-)?refund-(succeeded|declined|failed)$/.test(e.name))
  const refund = r.refunds.find((x) => x.id === settled?.context.refund_id)
  if (settled === undefined || refund === undefined || refund.status === 'processing' || refund.status === 'voided') return TE.right(O.none)
  return deps.events.raise(`refund.${refund.status}`, r.merchant_account_id, toRefund(r, refund))
}

/** Writes a version with its webhook event in the outbox first (see `makeRecordWithEvent`). */
export const withEvent = <A>(
  deps: Pick<TransactionDeps, 'events'>,
  r: TransactionRecord,
  write: TE.TaskEither<Unavailable, A>,
): TE.TaskEither<Unavailable, A> =>
  pipe(
    eventOf(deps, r),
    TE.flatMap((event) => deps.events.record(event, write)),
  )
