import { Buyer } from '../buyers/buyer'
import { CheckoutSessionRecord } from '../checkout-sessions/checkout-session'
import { PaymentMethod } from '../payment-methods/payment-method.codecs'
import { PaymentServiceRecord, revisionOf } from '../payments/payment-service'
import { Mac } from '../shared/crypto.ports'
import { TransactionRecord } from '../transactions/transaction'
import { WebhookSubscriptionRecord } from '../webhooks/webhook-subscription'
import { ShippingDetailsRecord } from '../shipping-details/shipping-details'
import { MerchantAccount } from '../merchant-accounts/merchant-account'

/**
 * What an update leaves in a resource, as a MAC: the entry keeps no data of the resource, yet
 * the relay can tell the stored state is the one this update wrote. Each list holds every
 * field an update may change, so that no other update leaves the same witness.
 */
const witnessOf = (mac: Mac, fields: readonly unknown[]): string => mac.mac('audit-witness', JSON.stringify(fields))

export const buyerWitness = (mac: Mac, b: Pick<Buyer, 'updated_at'>): string => witnessOf(mac, [b.updated_at])

export const shippingDetailsWitness = (mac: Mac, r: Pick<ShippingDetailsRecord, 'updated_at'>): string => witnessOf(mac, [r.updated_at])

export const merchantAccountWitness = (mac: Mac, a: Pick<MerchantAccount, 'updated_at'>): string => witnessOf(mac, [a.updated_at ?? null])

export const apiKeyPairWitness = (mac: Mac, k: { readonly updated_at?: string }): string => witnessOf(mac, [k.updated_at ?? null])

export const paymentMethodWitness = (mac: Mac, m: Pick<PaymentMethod, 'updated_at'>): string => witnessOf(mac, [m.updated_at])

export const subscriptionWitness = (mac: Mac, r: WebhookSubscriptionRecord): string =>
  witnessOf(mac, [r.url, r.active, r.authentication, r.sealed_secret, r.previous_sealed_secret, r.previous_secret_expires_at])

export const paymentServiceWitness = (mac: Mac, r: Pick<PaymentServiceRecord, 'revision' | 'updated_at'>): string =>
  witnessOf(mac, [revisionOf(r), r.updated_at])

export const sessionWitness = (mac: Mac, r: CheckoutSessionRecord): string =>
  witnessOf(mac, [r.amount, r.currency, r.metadata, r.cart_items, r.buyer, r.payment_service_id, r.expires_at])

/** A transaction's versions are kept: the version an operation wrote is found among them. */
export const versionWitness = (r: Pick<TransactionRecord, 'version' | 'updated_at' | 'status'>): string =>
  `${String(r.version)} ${r.updated_at} ${r.status}`
