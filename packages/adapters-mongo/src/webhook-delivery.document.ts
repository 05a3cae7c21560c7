import * as t from 'io-ts'
import { WebhookDeliveryAttempt, WebhookDeliveryRecord } from '@orka/domain'
import { COLLECTIONS } from './mongo-schema'
import { BsonDate, decoder, Doc, fieldsOf, pick } from './document-decoder'
import { compositeId } from './text-escaping'

/**
 * A delivery with its id as `_id`. `next_attempt_at`, `created_at` and `updated_at` stay the
 * domain's fixed-width UTC ISO strings, which compare and sort as the instants they name.
 * A type, not an interface extending `Doc`: without an index signature the driver can type
 * `$push` onto `attempts`.
 */
export type WebhookDeliveryDocument = { _id: string } & Omit<WebhookDeliveryRecord, 'id'>

export const toWebhookDeliveryDocument = ({ id, ...rest }: WebhookDeliveryRecord): WebhookDeliveryDocument => ({ _id: id, ...rest })

const ATTEMPT_FIELDS = fieldsOf(WebhookDeliveryAttempt)

export const fromWebhookDeliveryDocument = decoder(COLLECTIONS.webhookDeliveries, WebhookDeliveryRecord, (d) => {
  const attempts = d.attempts
  return {
    ...pick(d, fieldsOf(WebhookDeliveryRecord)),
    id: d._id,
    // Only the fields the codec knows, as for the document itself.
    attempts: t.UnknownArray.is(attempts)
      ? attempts.map((a) => (typeof a === 'object' && a !== null ? pick(a as Doc, ATTEMPT_FIELDS) : a))
      : attempts,
  }
})

/**
 * Who runs attempt `n` of a delivery, until when: `_id` is (delivery id, n), so of racing
 * claims on one attempt exactly one insert succeeds, on any server. `lease_until` is a date
 * (the claiming instance's clock) so that the sweep can compare it.
 */
export interface DeliveryClaimDocument extends Doc {
  delivery_id: string
  owner: string
  lease_until: Date
}

export const deliveryClaimId = (deliveryId: string, attempt: number): string => compositeId(deliveryId, String(attempt))

const DeliveryClaimFields = t.type({ delivery_id: t.string, owner: t.string, lease_until: BsonDate })

export const fromDeliveryClaimDocument = decoder(COLLECTIONS.webhookDeliveryClaims, DeliveryClaimFields, (d) =>
  pick(d, fieldsOf(DeliveryClaimFields)),
)
