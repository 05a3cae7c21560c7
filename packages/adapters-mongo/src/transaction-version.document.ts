import { redemptionsOf, TransactionRecord, WrittenWith } from '@orka/domain'
import { Doc } from './document-decoder'
import { compositeId } from './text-escaping'

/**
 * One version of a transaction. The record itself is kept as JSON text (`record`): it holds
 * names the client chose (metadata keys) that need not be valid field names, and it is read
 * back exactly as written. Beside it, the fields lists filter and sort on.
 */
export interface TransactionVersionDocument extends Doc {
  transaction_id: string
  merchant_account_id: string
  version: number
  /** A later version exists. Set some time after that one is written (`SupersededMarks`), or never: readers check. */
  superseded: boolean
  pending: boolean
  status: string
  created_at: string
  created_at_ms: number
  updated_at_ms: number
  amount: number
  currency: string
  buyer_id: string | null
  buyer_external_identifier: string | null
  external_identifier: string | null
  checkout_session_id: string | null
  refund_ids: string[]
  /** The stored gift cards its redemptions spend (absent on versions written before gift cards could pay). */
  gift_card_ids?: string[]
  has_gift_card_redemptions?: boolean
  record: string
  /** What this version was written with (`WrittenWith`: audit entries, webhook events), as JSON text, until folded (then unset with the flag). */
  written?: string
  unfolded?: true
}

// 12 digits: ids of one transaction sort by version.
export const versionId = (transactionId: string, version: number): string => compositeId(transactionId, String(version).padStart(12, '0'))

export const toTransactionVersionDocument = (r: TransactionRecord, written: Partial<WrittenWith> = {}): TransactionVersionDocument => ({
  _id: versionId(r.id, r.version),
  transaction_id: r.id,
  merchant_account_id: r.merchant_account_id,
  version: r.version,
  superseded: false,
  pending: r.pending,
  status: r.status,
  created_at: r.created_at,
  created_at_ms: Date.parse(r.created_at),
  updated_at_ms: Date.parse(r.updated_at),
  amount: r.amount,
  currency: r.currency,
  buyer_id: r.buyer?.id ?? null,
  buyer_external_identifier: r.buyer?.external_identifier ?? null,
  external_identifier: r.external_identifier,
  checkout_session_id: r.checkout_session_id,
  refund_ids: r.refunds.map((x) => x.id),
  gift_card_ids: redemptionsOf(r).flatMap((x) => (x.gift_card.id === null ? [] : [x.gift_card.id])),
  has_gift_card_redemptions: redemptionsOf(r).length > 0,
  record: JSON.stringify(r),
  ...writtenFields({ audit: written.audit ?? [], events: written.events ?? [] }),
})

const writtenFields = (w: WrittenWith) =>
  w.audit.length === 0 && w.events.length === 0 ? {} : { written: JSON.stringify(w), unfolded: true as const }
