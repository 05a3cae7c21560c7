import { GiftCardService, GiftCardServiceRecord } from '@orka/domain'
import { COLLECTIONS } from './mongo-schema'
import { decoder, Doc, fieldsOf, pick } from './document-decoder'

/**
 * A configured service with the service's id as `_id`. `promoted_seq` orders promotions to
 * primary (null when not primary): the latest promotion wins even if two race, since no
 * transaction can demote the others in the same step.
 */
export interface GiftCardServiceDocument extends Doc {
  merchant_account_id: string
  primary: boolean
  promoted_seq: number | null
  service: Omit<GiftCardService, 'id'>
}

export const toGiftCardServiceDocument = (r: GiftCardServiceRecord, promotedSeq: number | null): GiftCardServiceDocument => {
  const { id, ...service } = r.service
  return { _id: id, merchant_account_id: r.merchant_account_id, primary: r.primary, promoted_seq: promotedSeq, service }
}

export const fromGiftCardServiceDocument = decoder(COLLECTIONS.giftCardServices, GiftCardServiceRecord, (d) => {
  const service = typeof d.service === 'object' && d.service !== null ? (d.service as Doc) : undefined
  return {
    ...pick(d, ['merchant_account_id', 'primary']),
    service: service === undefined ? undefined : { ...pick(service, fieldsOf(GiftCardService)), id: d._id },
  }
})
