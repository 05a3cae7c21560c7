import { WebhookSubscriptionRecord } from '@orka/domain'
import { COLLECTIONS } from './mongo-schema'
import { decoder, Doc, fieldsOf, pick } from './document-decoder'

/** A subscription with its id as `_id`; `merchant_account_id` null is instance-wide. */
export interface WebhookSubscriptionDocument extends Doc {
  merchant_account_id: string | null
  active: boolean
  created_at: string
}

export const toWebhookSubscriptionDocument = ({ id, ...rest }: WebhookSubscriptionRecord): WebhookSubscriptionDocument => ({
  _id: id,
  ...rest,
})

/** Documents stored before secret rotation existed have no previous secret: they read as not rotating. */
const BEFORE_ROTATION = { previous_sealed_secret: null, previous_secret_expires_at: null }

export const fromWebhookSubscriptionDocument = decoder(COLLECTIONS.webhookSubscriptions, WebhookSubscriptionRecord, (d) => ({
  ...BEFORE_ROTATION,
  ...pick(d, fieldsOf(WebhookSubscriptionRecord)),
  id: d._id,
}))
