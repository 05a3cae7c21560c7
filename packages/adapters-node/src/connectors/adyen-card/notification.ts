import { createHmac, timingSafeEqual } from 'node:crypto'
import * as E from 'fp-ts/Either'
import { ProviderEvent, ProviderNotification, WebhookRefused } from '@orka/domain'
import { declineCodeOf, refusalOfReason } from './codes'
import { text } from './responses'

/** One `NotificationRequestItem` of Adyen's standard webhook, as far as Orka reads it. */
export interface AdyenNotificationItem {
  readonly pspReference: string
  readonly originalReference?: string
  readonly merchantAccountCode?: string
  readonly merchantReference?: string
  readonly amount?: { readonly value: number; readonly currency: string }
  readonly eventCode: string
  readonly success: 'true' | 'false'
  readonly reason?: string
  readonly additionalData?: Readonly<Record<string, string>>
}

/** What Adyen expects back once a notification is taken (anything else and it sends it again). */
export const ADYEN_REPLY = { contentType: 'text/plain', body: '[accepted]' } as const

const refused = (reason: WebhookRefused['reason']): E.Either<WebhookRefused, never> => E.left({ _tag: 'WebhookRefused', reason })

/** An HMAC key as Adyen's Customer Area shows it: hex, an even count of digits. */
const HMAC_KEY = /^(?:[0-9A-Fa-f]{2}){16,128}$/

/**
 * The string Adyen signs for an item: eight fields joined by colons, missing ones empty, nothing
 * escaped (docs.adyen.com, "Verify HMAC signatures", and Adyen's libraries' `getDataToSign`).
 */
export const signedData = (i: AdyenNotificationItem): string =>
  [
    i.pspReference,
    i.originalReference ?? '',
    i.merchantAccountCode ?? '',
    i.merchantReference ?? '',
    i.amount === undefined ? '' : String(i.amount.value),
    i.amount?.currency ?? '',
    i.eventCode,
    i.success,
  ].join(':')

/** HMAC-SHA256 of the item's signed data under the hex-decoded key, in base64: its `hmacSignature`. */
export const adyenSignature = (hmacKey: string, item: AdyenNotificationItem): string =>
  createHmac('sha256', Buffer.from(hmacKey, 'hex')).update(signedData(item), 'utf8').digest('base64')

/** Whether the item carries the signature of `hmacKey`, compared in constant time. */
const signedBy = (hmacKey: string, item: AdyenNotificationItem): boolean => {
  const given = Buffer.from(item.additionalData?.hmacSignature ?? '', 'base64')
  const expected = Buffer.from(adyenSignature(hmacKey, item), 'base64')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

type Obj = Readonly<Record<string, unknown>>
const obj = (v: unknown): Obj | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined)
const optionalString = (v: unknown) => v === undefined || typeof v === 'string'

/** The item, if `raw` has the shape Adyen sends (what is signed, typed as Adyen types it). */
const itemOf = (raw: unknown): AdyenNotificationItem | undefined => {
  const i = obj(obj(raw)?.NotificationRequestItem)
  if (i === undefined) return undefined
  const amount = obj(i.amount)
  const data = obj(i.additionalData)
  const well =
    typeof i.pspReference === 'string' &&
    i.pspReference !== '' &&
    typeof i.eventCode === 'string' &&
    i.eventCode !== '' &&
    (i.success === 'true' || i.success === 'false') &&
    ['originalReference', 'merchantAccountCode', 'merchantReference', 'reason'].every((k) => optionalString(i[k])) &&
    (i.amount === undefined || (amount !== undefined && Number.isSafeInteger(amount.value) && typeof amount.currency === 'string')) &&
    (i.additionalData === undefined || (data !== undefined && Object.values(data).every((v) => typeof v === 'string')))
  return well ? (i as unknown as AdyenNotificationItem) : undefined
}

/** The items of a standard notification's body, if it is one. */
const itemsOf = (body: string): readonly AdyenNotificationItem[] | undefined => {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return undefined
  }
  const list = obj(parsed)?.notificationItems
  if (!Array.isArray(list) || list.length === 0) return undefined
  const items = list.map(itemOf)
  return items.every((i) => i !== undefined) ? items : undefined
}

/** Adyen's event codes Orka reads, with the kind of call each tells of and whether it says that call failed. */
const EVENTS: Readonly<Record<string, { readonly kind: ProviderEvent['kind']; readonly failed: boolean }>> = {
  AUTHORISATION: { kind: 'authorization', failed: false },
  CAPTURE: { kind: 'capture', failed: false },
  CAPTURE_FAILED: { kind: 'capture', failed: true },
  CANCELLATION: { kind: 'void', failed: false },
  TECHNICAL_CANCEL: { kind: 'void', failed: false },
  CANCEL_OR_REFUND: { kind: 'void', failed: false },
  REFUND: { kind: 'refund', failed: false },
  REFUND_FAILED: { kind: 'refund', failed: true },
  REFUNDED_REVERSED: { kind: 'refund', failed: true },
}

/** The item as Orka's event, or undefined for an event code Orka does not read (taken all the same). */
export const eventOf = (i: AdyenNotificationItem): ProviderEvent | undefined => {
  const known = EVENTS[i.eventCode]
  if (known === undefined) return undefined
  const failed = known.failed || i.success === 'false'
  const reason = text(i.reason)
  const authorization = known.kind === 'authorization'
  const errorCode = authorization ? declineCodeOf(null, reason) : (refusalOfReason(reason) ?? 'refused_transaction')
  return {
    id: `${i.eventCode}:${i.pspReference}:${i.success}`,
    name: i.eventCode,
    kind: known.kind,
    reference: text(i.merchantReference),
    serviceTransactionId: authorization ? i.pspReference : text(i.originalReference),
    serviceId: i.pspReference,
    outcome: failed ? 'failed' : 'succeeded',
    errorCode: failed ? errorCode : null,
    rawResponseCode: i.eventCode,
    // An authorisation's reason, when it succeeded, is its auth code and the card's last digits and expiry: not kept.
    rawResponseDescription: authorization && !failed ? null : reason,
  }
}

/**
 * Reads Adyen's standard webhook (JSON): every item must carry the HMAC signature of the
 * service's key, or the whole request is refused and nothing of it read. Events Orka does not
 * read are left out, and the request is still taken. Nothing of it is logged.
 */
export const readAdyenNotification = (hmacKey: string | undefined, body: string): E.Either<WebhookRefused, ProviderNotification> => {
  if (hmacKey === undefined || !HMAC_KEY.test(hmacKey)) return refused('not-configured')
  const items = itemsOf(body)
  if (items === undefined) return refused('malformed')
  if (!items.every((i) => signedBy(hmacKey, i))) return refused('signature')
  return E.right({ events: items.map(eventOf).filter((e) => e !== undefined), reply: ADYEN_REPLY })
}
