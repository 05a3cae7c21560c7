import * as t from 'io-ts'
import { IdempotencyRecord } from '@orka/domain'
import { COLLECTIONS } from './mongo-schema'
import { compositeId, decoder, Doc, escapeText, fieldsOf, pick, unescapeText } from './mongo-support'

/**
 * A record under `_id` (account, key): one live record per key, which a plain insert decides.
 * `key` holds U+0000 by the domain's design, so it is stored escaped (see `escapeText`).
 * `expiresAt` repeats `expires_at` as a date for the sweep and the TTL index.
 */
export interface IdempotencyRecordDocument extends Doc {
  merchant_account_id: string
  key: string
  fingerprint: string
  state: IdempotencyRecord['state']
  outcome: IdempotencyRecord['outcome']
  created_at: string
  expires_at: string
  expiresAt: Date
}

export const idempotencyRecordId = (merchantAccountId: string, key: string): string => compositeId(merchantAccountId, key)

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
  expiresAt: expiryDate(r.expires_at),
})

export const fromIdempotencyRecordDocument = decoder(COLLECTIONS.idempotencyRecords, IdempotencyRecord, (d) => {
  const fields = pick(d, fieldsOf(IdempotencyRecord))
  return { ...fields, key: t.string.is(fields['key']) ? unescapeText(fields['key']) : fields['key'] }
})
