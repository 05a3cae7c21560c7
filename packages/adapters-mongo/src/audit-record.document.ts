import * as t from 'io-ts'
import { AuditRecord, ChangeCheck } from '@orka/domain'
import { COLLECTIONS } from './mongo-schema'
import { decoder, Doc, fieldsOf, pick } from './document-decoder'

/**
 * An audit record with its id as `_id`, so that adding it twice is one duplicate-key insert.
 * `timestamp` stays the domain's fixed-width UTC ISO string, which sorts as the instant it names.
 */
export interface AuditRecordDocument extends Doc {
  merchant_account_id: string | null
  timestamp: string
  committed: boolean
}

export const toAuditRecordDocument = ({ id, ...rest }: AuditRecord): AuditRecordDocument => ({ _id: id, ...rest })

// Only the fields the codecs know, in the nested objects as in the document itself.
const nested = (u: unknown, codec: t.Mixed) => (typeof u === 'object' && u !== null ? pick(u as Doc, fieldsOf(codec)) : u)

export const fromAuditRecordDocument = decoder(COLLECTIONS.auditLog, AuditRecord, (d) => ({
  ...pick(d, fieldsOf(AuditRecord)),
  id: d._id,
  resource: nested(d.resource, AuditRecord.props.resource),
  user: nested(d.user, AuditRecord.props.user),
  check: nested(d.check, ChangeCheck),
  // Entries written before `changes` existed name none.
  changes: d.changes ?? null,
}))
