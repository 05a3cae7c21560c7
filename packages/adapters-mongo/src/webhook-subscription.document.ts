import { WebhookSubscriptionRecord } from '@orka/domain'
import { COLLECTIONS } from './mongo-schema'
import { decoder, Doc, fieldsOf, pick } from './mongo-support'

/** A subscription with its id as `_id`; `merchant_account_id` null is instance-wide. */
export interface WebhookSubscriptionDocument extends Doc {
  merchant_account_id: string | null
  created_at: string
}

export const toWebhookSubscriptionDocument = ({ id, ...rest }: WebhookSubscriptionRecord): WebhookSubscriptionDocument => ({ _id: id, ...rest })

export const fromWebhookSubscriptionDocument = decoder(COLLECTIONS.webhookSubscriptions, WebhookSubscriptionRecord, (d) => ({
  ...pick(d, fieldsOf(WebhookSubscriptionRecord)),
  id: d._id,
}))
