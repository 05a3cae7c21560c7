import { GiftCard, VaultedGiftCard } from '@orka/domain'
import { COLLECTIONS } from './mongo-schema'
import { decoder, Doc, fieldsOf, pick } from './document-decoder'

/**
 * A vaulted card with the card's id as `_id`. The account is lifted out of the card so that
 * (merchant_account_id, fingerprint) can carry the unique index that makes the vault dedup.
 */
export interface VaultedGiftCardDocument extends Doc {
  merchant_account_id: string
  fingerprint: string
  sealed_number: string
  sealed_pin: string | null
  card: Omit<GiftCard, 'id' | 'merchant_account_id'>
}

export const toVaultedGiftCardDocument = (v: VaultedGiftCard): VaultedGiftCardDocument => {
  const { id, merchant_account_id, ...card } = v.card
  return { _id: id, merchant_account_id, fingerprint: v.fingerprint, sealed_number: v.sealed_number, sealed_pin: v.sealed_pin, card }
}

export const fromVaultedGiftCardDocument = decoder(COLLECTIONS.vaultedGiftCards, VaultedGiftCard, (d) => {
  const card = typeof d.card === 'object' && d.card !== null ? (d.card as Doc) : undefined
  return {
    ...pick(d, ['fingerprint', 'sealed_number', 'sealed_pin']),
    card: card === undefined ? undefined : { ...pick(card, fieldsOf(GiftCard)), id: d._id, merchant_account_id: d.merchant_account_id },
  }
})
