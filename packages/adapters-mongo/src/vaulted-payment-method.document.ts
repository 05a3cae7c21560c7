import { PaymentMethod, VaultedPaymentMethod } from '@orka/domain'
import { COLLECTIONS } from './mongo-schema'
import { decoder, Doc, fieldsOf, pick } from './document-decoder'

/**
 * A vaulted payment method with the method's id as `_id`. The account, the buyer's id (`owner`,
 * null for none) and the fingerprint are lifted out of the method so that they can carry the
 * unique index that keeps one method per (account, buyer, card).
 */
export interface VaultedPaymentMethodDocument extends Doc {
  merchant_account_id: string
  owner: string | null
  /** Absent when the method has none (the connection omits undefined), so that it reads back as stored. */
  fingerprint?: string | null
  sealed_number: string
  method: Omit<PaymentMethod, 'id' | 'merchant_account_id' | 'fingerprint'>
}

export const toVaultedPaymentMethodDocument = (v: VaultedPaymentMethod): VaultedPaymentMethodDocument => {
  const { id, merchant_account_id, fingerprint, ...method } = v.method
  return { _id: id, merchant_account_id, owner: method.buyer?.id ?? null, fingerprint, sealed_number: v.sealed_number, method }
}

export const fromVaultedPaymentMethodDocument = decoder(COLLECTIONS.vaultedPaymentMethods, VaultedPaymentMethod, (d) => {
  const method = typeof d.method === 'object' && d.method !== null ? (d.method as Doc) : undefined
  return {
    ...pick(d, ['sealed_number']),
    method:
      method === undefined
        ? undefined
        : { ...pick(method, fieldsOf(PaymentMethod)), ...pick(d, ['fingerprint']), id: d._id, merchant_account_id: d.merchant_account_id },
  }
})
