import * as t from 'io-ts'
import { OutboxEntry } from '@orka/domain'
import { COLLECTIONS } from './mongo-schema'
import { decoder, Doc, fieldsOf, pick } from './document-decoder'

/**
 * An outbox entry with its event id as `_id`, so that adding it twice is one duplicate-key
 * insert. `created_at` stays the domain's fixed-width UTC ISO string, which sorts as the instant.
 */
export interface OutboxEntryDocument extends Doc {
  created_at: string
}

export const toOutboxEntryDocument = ({ event_id, ...rest }: OutboxEntry): OutboxEntryDocument => ({ _id: event_id, ...rest })

const DELIVERY_FIELDS = ['id', 'subscription_id']

export const fromOutboxEntryDocument = decoder(COLLECTIONS.webhookOutbox, OutboxEntry, (d) => {
  const deliveries = d.deliveries
  return {
    ...pick(d, fieldsOf(OutboxEntry)),
    event_id: d._id,
    // Only the fields the codec knows, as for the document itself.
    deliveries: t.UnknownArray.is(deliveries)
      ? deliveries.map((x) => (typeof x === 'object' && x !== null ? pick(x as Doc, DELIVERY_FIELDS) : x))
      : deliveries,
  }
})
