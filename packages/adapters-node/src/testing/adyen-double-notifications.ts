import { createHmac } from 'node:crypto'
import { AdyenEvent } from './adyen-document'

/** What one notification item says, before the double signs it. */
export interface AdyenItemFields {
  readonly eventCode: AdyenEvent | (string & {})
  readonly pspReference: string
  readonly originalReference?: string
  readonly merchantAccountCode: string
  readonly merchantReference?: string
  readonly amount: { readonly value: number; readonly currency: string }
  readonly success: boolean
  readonly reason?: string
  readonly paymentMethod?: string
  readonly operations?: readonly string[]
}

/** A standard notification as Adyen POSTs it: one signed item, the body's exact text. */
export interface SignedNotification {
  readonly eventCode: string
  readonly pspReference: string
  readonly body: string
}

/**
 * The `hmacSignature` Adyen puts in an item's additionalData: HMAC-SHA256, keyed by the
 * hex-decoded HMAC key, of pspReference, originalReference, merchantAccountCode,
 * merchantReference, value, currency, eventCode and success joined by colons (missing ones
 * empty), in base64. Written here apart from the connector's check, so the one tests the other.
 */
export const adyenItemSignature = (hmacKey: string, f: AdyenItemFields): string => {
  const data = [
    f.pspReference,
    f.originalReference ?? '',
    f.merchantAccountCode,
    f.merchantReference ?? '',
    String(f.amount.value),
    f.amount.currency,
    f.eventCode,
    String(f.success),
  ].join(':')
  return createHmac('sha256', Buffer.from(hmacKey, 'hex')).update(data, 'utf8').digest('base64')
}

/** Adyen's date format for `eventDate` (ISO 8601 with an offset, no milliseconds). */
const eventDate = (at: Date) => at.toISOString().replace(/\.\d{3}Z$/, '+00:00')

/** The item as Adyen sends it (its key order, `success` as a string), signed with `hmacKey`. */
export const signedNotification = (hmacKey: string, f: AdyenItemFields, at: Date = new Date()): SignedNotification => {
  const item = {
    additionalData: { hmacSignature: adyenItemSignature(hmacKey, f) },
    amount: { currency: f.amount.currency, value: f.amount.value },
    eventCode: f.eventCode,
    eventDate: eventDate(at),
    merchantAccountCode: f.merchantAccountCode,
    ...(f.merchantReference === undefined ? {} : { merchantReference: f.merchantReference }),
    ...(f.operations === undefined ? {} : { operations: f.operations }),
    ...(f.originalReference === undefined ? {} : { originalReference: f.originalReference }),
    paymentMethod: f.paymentMethod ?? 'visa',
    pspReference: f.pspReference,
    reason: f.reason ?? '',
    success: String(f.success),
  }
  return {
    eventCode: f.eventCode,
    pspReference: f.pspReference,
    body: JSON.stringify({ live: 'false', notificationItems: [{ NotificationRequestItem: item }] }),
  }
}
