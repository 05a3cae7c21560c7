import * as t from 'io-ts'
import { COLLECTIONS } from './mongo-schema'
import { BsonDate, decoder, Doc, fieldsOf, pick } from './document-decoder'
import { compositeId } from './text-escaping'

/**
 * Admission number `n` of a key: the key's admissions are numbered 0, 1, 2, ... and each
 * number is taken by exactly one insert, since it is part of `_id`. `key` is stored escaped
 * (see `escapeText`); `expiresAt` is when the admission leaves its window.
 */
export interface RateLimitAdmissionDocument extends Doc {
  key: string
  n: number
  at: Date
  expiresAt: Date
}

// 16 digits: every safe integer fits, and ids of one key sort by number.
export const admissionId = (key: string, n: number): string => compositeId(key, String(n).padStart(16, '0'))

const RateLimitAdmission = t.type({
  key: t.string,
  n: t.refinement(t.number, (n) => Number.isSafeInteger(n) && n >= 0, 'AdmissionNumber'),
  at: BsonDate,
  expiresAt: BsonDate,
})
export type RateLimitAdmission = t.TypeOf<typeof RateLimitAdmission>

export const fromRateLimitAdmissionDocument = decoder(COLLECTIONS.rateLimitAdmissions, RateLimitAdmission, (d) =>
  pick(d, fieldsOf(RateLimitAdmission)),
)
