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

/** The webhook events a version raises: its status change, or the refund it settled; none for the other steps. */
export const eventsOf = (deps: Pick<TransactionDeps, 'events'>, r: TransactionRecord): readonly OutboxEntry[] => {
  const changed = r.events.find((e) => e.name === 'transaction-updated-status')
  // Back to authorized from a capture or void the provider then refused: no second `transaction.authorized`.
  const fellBack = r.status === 'authorization_succeeded' && PENDING.includes(String(changed?.context.from))
  const name = changed === undefined || fellBack ? undefined : ON_STATUS[r.status]
  if (name !== undefined) return [deps.events.prepare(name, r.merchant_account_id, toTransaction(r))]
  const settled = r.events.find((e) => /^(gift-card-)?refund-(succeeded|declined|failed)$/.test(e.name))
  const refund = r.refunds.find((x) => x.id === settled?.context.refund_id)
  if (settled === undefined || refund === undefined || refund.status === 'processing' || refund.status === 'voided') return []
  return [deps.events.prepare(`refund.${refund.status}`, r.merchant_account_id, toRefund(r, refund))]
}
