import * as t from 'io-ts'
import { GiftCardErrorCode, GiftCardService } from '../gift-cards/gift-card.codecs'
import { bool, intRange, nullable, oneOf, str, uuid } from '../shared/codecs'
import { GiftCardRedemption, GiftCardRedemptionStatus } from './transaction.codecs'

/** A call that gives money back to a gift card (a reversal): recorded before it is made, settled after. */
export const CreditRecord = t.type({
  reference: str,
  status: oneOf('CreditStatus', ['pending', 'succeeded']),
  requested_at: str,
  answered_at: nullable(str),
})
export type CreditRecord = t.TypeOf<typeof CreditRecord>

/**
 * One gift card's part of a transaction, as stored. Recorded (`created`, `requested_at` null)
 * with the transaction's first version; `requested_at` is written before the provider is
 * asked, the answer after. `reference` names the redemption to the provider, which applies it
 * once. The card's number and PIN are kept sealed, as the vault keeps them, for the reversal
 * and refunds the redemption may need after the request is gone (a stored card may be deleted
 * meanwhile). `unknown`: the provider gave no answer, so it may have taken the amount; such a
 * redemption is reversed like a succeeded one.
 */
export const RedemptionRecord = t.type({
  id: uuid,
  reference: str,
  amount: intRange('amount', 1),
  status: GiftCardRedemptionStatus,
  error_code: nullable(GiftCardErrorCode),
  unknown: bool,
  requested_at: nullable(str),
  answered_at: nullable(str),
  gift_card: t.type({ id: nullable(uuid), bin: str, sub_bin: str, last4: str }),
  /** The service it is redeemed at: a stored card's own, else the account's primary one (null: none, so it fails). */
  service: nullable(GiftCardService),
  sealed_number: str,
  sealed_pin: nullable(str),
  reversal: nullable(CreditRecord),
})
export type RedemptionRecord = t.TypeOf<typeof RedemptionRecord>

/** The reference of redemption `n` (1-based) of a transaction: the provider applies it once. */
export const redemptionReference = (transactionId: string, n: number): string => `${transactionId}:redeem:${n}`

/** Whether the provider may hold money of this redemption: it took it, or never said. */
export const mayHaveTaken = (x: RedemptionRecord): boolean => x.status === 'succeeded' || x.unknown

/** The redemption as a transaction shows it, with what its refunds gave back. A reversal gives the whole amount back: it shows as refunded. */
export const toGiftCardRedemption = (x: RedemptionRecord, refunded: number): GiftCardRedemption => ({
  type: 'gift-card-redemption',
  id: x.id,
  status: x.status,
  amount: x.amount,
  refunded_amount: x.status === 'succeeded' && x.reversal?.status === 'succeeded' ? x.amount : refunded,
  gift_card_service_redemption_id: null,
  error_code: x.error_code,
  raw_error_code: null,
  raw_error_message: null,
  gift_card: { type: 'gift-card', id: x.gift_card.id, bin: x.gift_card.bin, sub_bin: x.gift_card.sub_bin, last4: x.gift_card.last4 },
})
