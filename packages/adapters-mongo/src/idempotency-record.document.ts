import * as t from 'io-ts'
import { IdempotencyRecord, keptUntil } from '@orka/domain'
import { COLLECTIONS } from './mongo-schema'
import { decoder, Doc, fieldsOf, pick } from './document-decoder'
import { compositeId, escapeText, unescapeText } from './text-escaping'

/**
 * A record under `_id` (account, key): one live record per key, which a plain insert decides.
 * `key` holds U+0000 by the domain's design, so it is stored escaped (see `escapeText`).
 * `expiresAt` is the record's `keptUntil` as a date, for the sweep and the TTL index: an
 * in-flight record outlives its lease until `retain_until`, so that a retry of its request,
 * even after a crash and a long outage, still learns what its attempts reserved.
 * The lease fields are absent from records written before leases existed.
 */
export interface IdempotencyRecordDocument extends Doc {
  merchant_account_id: string
  key: string
  fingerprint: string
  state: IdempotencyRecord['state']
  outcome: IdempotencyRecord['outcome']
  created_at: string
  expires_at: string
  lease?: string
  attempt?: number
  reserved_id?: string
  earlier_ids?: string[]
  retain_until?: string
  expiresAt: Date
}

export const idempotencyRecordId = (merchantAccountId: string, key: string): string => compositeId(merchantAccountId, key)

/**
 * The `_id` of the takeover of the record `superseded`, exactly as it was read (lease, attempt,
 * state, `expires_at`): whoever inserts it decides who takes that version of the record over
 * (see `MongoIdempotencyStore.claim`). Another version of the record (released, completed, taken
 * over) is another takeover. More than two parts, so it never equals a record's `_id`.
 */
export const takeoverId = (superseded: IdempotencyRecordDocument): string =>
  compositeId(
    superseded.merchant_account_id,
    unescapeText(superseded.key),
    'takeover',
    superseded.lease ?? '',
    String(superseded.attempt ?? 0),
    superseded.state,
    superseded.expires_at,
  )

/** The instant an ISO timestamp names, as a date the server can compare (an unparseable one counts as already expired). */
export const expiryDate = (iso: string): Date => {
  const ms = Date.parse(iso)
  return new Date(Number.isNaN(ms) ? 0 : ms)
}

export const toIdempotencyRecordDocument = (r: IdempotencyRecord): IdempotencyRecordDocument => ({
  _id: idempotencyRecordId(r.merchant_account_id, r.key),
  merchant_account_id: r.merchant_account_id,
  key: escapeText(r.key),
  fingerprint: r.fingerprint,
  state: r.state,
  outcome: r.outcome,
  created_at: r.created_at,
  expires_at: r.expires_at,
  // Absent fields stay absent: the driver would store `undefined` as null, which does not decode.
  ...(r.lease === undefined ? {} : { lease: r.lease }),
  ...(r.attempt === undefined ? {} : { attempt: r.attempt }),
  ...(r.reserved_id === undefined ? {} : { reserved_id: r.reserved_id }),
  ...(r.earlier_ids === undefined ? {} : { earlier_ids: [...r.earlier_ids] }),
  ...(r.retain_until === undefined ? {} : { retain_until: r.retain_until }),
  expiresAt: expiryDate(keptUntil(r)),
})

export const fromIdempotencyRecordDocument = decoder(COLLECTIONS.idempotencyRecords, IdempotencyRecord, (d) => {
  const fields = pick(d, fieldsOf(IdempotencyRecord))
  return { ...fields, key: t.string.is(fields.key) ? unescapeText(fields.key) : fields.key }
})
