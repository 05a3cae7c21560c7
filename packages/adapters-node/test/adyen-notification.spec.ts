import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { hmacValidator as HmacValidator } from '@adyen/api-library'
import { CardConnector, ProviderEvent } from '@orka/domain'
import { AdyenCardConnector } from '../src/connectors/adyen-card/connector'
import { AdyenNotificationItem, adyenSignature, eventOf, signedData } from '../src/connectors/adyen-card/notification'

/**
 * Adyen's own test vectors (adyen-node-api-library, src/__tests__/hmacValidator.spec.ts): the
 * key, the item, the string it signs and the signatures, as Adyen's library expects them.
 */
const ADYEN_KEY = 'DFB1EB5485895CFA84146406857104ABB4CBCABDC8AAF103A624C8F6A3EAAB00'
const VECTOR: AdyenNotificationItem = {
  pspReference: 'pspReference',
  originalReference: 'originalReference',
  merchantAccountCode: 'merchantAccount',
  merchantReference: 'reference',
  amount: { currency: 'EUR', value: 1000 },
  eventCode: 'REPORT_AVAILABLE',
  success: 'true',
  reason: 'reason',
}
const VECTOR_SIGNED = 'pspReference:originalReference:merchantAccount:reference:1000:EUR:REPORT_AVAILABLE:true'
const VECTOR_SIGNATURE = 'ZNBPtI+oDyyRrLyD1XirkKnQgIAlFc07Vj27TeHsDRE='
const EVENT_SIGNATURE = 'ipnxGCaUZ4l8TUW75a71/ghd2Fe5ffvX0pV4TLTntIc='

/** Signatures made by Adyen's own Node library. */
const adyen = new HmacValidator()
type LibraryItem = Parameters<HmacValidator['validateHMAC']>[0]
const librarySigned = (item: AdyenNotificationItem, key = ADYEN_KEY): AdyenNotificationItem => ({
  ...item,
  additionalData: { ...item.additionalData, hmacSignature: adyen.calculateHmac(item as unknown as LibraryItem, key) },
})
const body = (...items: AdyenNotificationItem[]) =>
  JSON.stringify({ live: 'false', notificationItems: items.map((i) => ({ NotificationRequestItem: i })) })

const fields = (hmacKey?: string) => [
  { key: 'api_key', value: 'AQE_test' },
  { key: 'merchant_account', value: 'OrkaECOM' },
  ...(hmacKey === undefined ? [] : [{ key: 'hmac_key', value: hmacKey }]),
]
const connector: CardConnector = new AdyenCardConnector({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 1000 })
const read = (text: string, hmacKey: string | null = ADYEN_KEY) =>
  connector.readNotification(fields(hmacKey ?? undefined), { headers: { 'content-type': 'application/json' }, body: text }, new Date())
const refusedFor = (text: string, hmacKey: string | null = ADYEN_KEY) => {
  const r = read(text, hmacKey)
  return E.isLeft(r) ? r.left.reason : 'accepted'
}

const capture: AdyenNotificationItem = {
  pspReference: 'JDD6LKT8MBLZNN84',
  originalReference: 'QFQTPCQ8HXSKGK82',
  merchantAccountCode: 'OrkaECOM',
  merchantReference: 'tx-1:capture',
  amount: { currency: 'EUR', value: 500 },
  eventCode: 'CAPTURE',
  success: 'true',
  reason: '',
}

describe('adyen-card: the HMAC signature of Adyen’s notifications', () => {
  it('signs what Adyen’s test vectors sign, into the signatures they give', () => {
    expect(signedData(VECTOR)).to.equal(VECTOR_SIGNED)
    expect(adyenSignature(ADYEN_KEY, VECTOR)).to.equal(VECTOR_SIGNATURE)
    expect(adyenSignature(ADYEN_KEY, { ...VECTOR, eventCode: 'EVENT', reason: undefined })).to.equal(EVENT_SIGNATURE)
  })

  it('signs missing fields as empty strings, as Adyen’s library does', () => {
    const bare: AdyenNotificationItem = {
      pspReference: 'P1',
      eventCode: 'AUTHORISATION',
      success: 'false',
      amount: { value: 0, currency: 'EUR' },
    }
    expect(signedData(bare)).to.equal('P1::::0:EUR:AUTHORISATION:false')
    expect(adyenSignature(ADYEN_KEY, bare)).to.equal(adyen.calculateHmac(bare as unknown as LibraryItem, ADYEN_KEY))
  })

  it('accepts what Adyen’s library signs, and Adyen’s library accepts what the vectors sign', () => {
    const signed = { ...VECTOR, additionalData: { hmacSignature: VECTOR_SIGNATURE } }
    expect(adyen.validateHMAC(signed as unknown as LibraryItem, ADYEN_KEY)).to.equal(true)
    expect(read(body(signed))).to.deep.equal(E.right({ events: [], reply: { contentType: 'text/plain', body: '[accepted]' } }))
    const other = 'A1B2C3D4E5F60718293A4B5C6D7E8F90A1B2C3D4E5F60718293A4B5C6D7E8F90'
    expect(E.isRight(read(body(librarySigned(capture, other)), other))).to.equal(true)
  })

  it('refuses the whole request when any item is not signed with the service’s key, reading nothing of it', () => {
    const good = librarySigned(capture)
    const cases: [string, string, string?][] = [
      ['a changed amount', body({ ...good, amount: { currency: 'EUR', value: 5000 } })],
      ['a changed event', body({ ...good, eventCode: 'REFUND' })],
      ['a changed outcome', body({ ...good, success: 'false' })],
      ['no signature', body({ ...good, additionalData: {} })],
      ['no additionalData', body({ ...capture })],
      ['a signature that is not base64 of 32 bytes', body({ ...good, additionalData: { hmacSignature: 'A'.repeat(44) } })],
      ['another key', body(librarySigned(capture, 'FF'.repeat(32)))],
      ['one good item, one bad', body(good, { ...good, pspReference: 'OTHER' })],
    ]
    for (const [what, text] of cases) expect(refusedFor(text), what).to.equal('signature')
  })

  it('refuses a body that is not Adyen’s notification as malformed', () => {
    const good = librarySigned(capture)
    const cases: [string, string][] = [
      ['not JSON', '{"live":"false",'],
      ['another provider’s event', '{"type":"charge.succeeded"}'],
      ['no items', '{"live":"false","notificationItems":[]}'],
      ['an item without its wrapper', JSON.stringify({ live: 'false', notificationItems: [good] })],
      ['success as a boolean', body({ ...good, success: true as unknown as 'true' })],
      ['an amount that is not an integer', body({ ...good, amount: { currency: 'EUR', value: 5.5 } })],
      ['no pspReference', body({ ...good, pspReference: '' })],
      ['a non-string additionalData value', body({ ...good, additionalData: { hmacSignature: 1 as unknown as string } })],
    ]
    for (const [what, text] of cases) expect(refusedFor(text), what).to.equal('malformed')
  })

  it('refuses every webhook of a service without an HMAC key, or with one that is not Adyen’s hex', () => {
    const good = body(librarySigned(capture))
    expect(refusedFor(good, null)).to.equal('not-configured')
    expect(refusedFor(good, '')).to.equal('not-configured')
    expect(refusedFor(good, 'not-a-hex-key')).to.equal('not-configured')
    expect(refusedFor('{"type":"charge.succeeded"}', null)).to.equal('not-configured')
  })
})

describe('adyen-card: what Adyen’s notifications mean', () => {
  const event = (o: Partial<AdyenNotificationItem>): ProviderEvent | undefined => eventOf({ ...capture, ...o })
  const brief = (e: ProviderEvent | undefined) => (e === undefined ? 'skipped' : `${e.kind} ${e.outcome} ${String(e.errorCode)}`)

  it('maps each event code Orka reads to its kind and outcome', () => {
    const table: [string, 'true' | 'false', string][] = [
      ['AUTHORISATION', 'true', 'authorization succeeded null'],
      ['AUTHORISATION', 'false', 'authorization failed issuer_decline'],
      ['CAPTURE', 'true', 'capture succeeded null'],
      ['CAPTURE', 'false', 'capture failed refused_transaction'],
      ['CAPTURE_FAILED', 'true', 'capture failed refused_transaction'],
      ['CANCELLATION', 'true', 'void succeeded null'],
      ['CANCELLATION', 'false', 'void failed refused_transaction'],
      ['TECHNICAL_CANCEL', 'true', 'void succeeded null'],
      ['CANCEL_OR_REFUND', 'true', 'void succeeded null'],
      ['REFUND', 'true', 'refund succeeded null'],
      ['REFUND', 'false', 'refund failed refused_transaction'],
      ['REFUND_FAILED', 'true', 'refund failed refused_transaction'],
      ['REFUNDED_REVERSED', 'true', 'refund failed refused_transaction'],
      ['REPORT_AVAILABLE', 'true', 'skipped'],
      ['CHARGEBACK', 'true', 'skipped'],
    ]
    for (const [eventCode, success, expected] of table) {
      const reason = success === 'true' ? '' : eventCode === 'AUTHORISATION' ? 'Refused' : 'Insufficient balance on payment'
      expect(brief(event({ eventCode, success, reason })), `${eventCode} ${success}`).to.equal(expected)
    }
  })

  it('names the call by Orka’s reference and Adyen’s ids, and keeps Adyen’s reason beside Orka’s code', () => {
    expect(event({ eventCode: 'REFUND', success: 'false', reason: 'Transaction hasn\u2019t been captured' })).to.deep.equal({
      id: 'REFUND:JDD6LKT8MBLZNN84:false',
      name: 'REFUND',
      kind: 'refund',
      reference: 'tx-1:capture',
      serviceTransactionId: 'QFQTPCQ8HXSKGK82',
      serviceId: 'JDD6LKT8MBLZNN84',
      outcome: 'failed',
      errorCode: 'refused_transaction',
      rawResponseCode: 'REFUND',
      rawResponseDescription: 'Transaction hasn\u2019t been captured',
    })
    const declined = event({ eventCode: 'AUTHORISATION', success: 'false', reason: 'Not enough balance', originalReference: undefined })
    expect(declined).to.deep.include({ serviceTransactionId: 'JDD6LKT8MBLZNN84', errorCode: 'insufficient_funds' })
    expect(declined?.rawResponseDescription).to.equal('Not enough balance')
  })

  it('keeps nothing of a successful authorisation’s reason (its auth code, last digits and expiry)', () => {
    expect(event({ eventCode: 'AUTHORISATION', reason: '874574:1111:03/2030' })?.rawResponseDescription).to.equal(null)
  })

  it('gives the same event the same id when Adyen delivers it twice, and its outcomes different ids', () => {
    const text = body(librarySigned(capture))
    const [a, b] = [read(text), read(text)]
    expect(a).to.deep.equal(b)
    const failed = read(body(librarySigned({ ...capture, success: 'false' })))
    const ids = [a, failed].map((r) => (E.isRight(r) ? r.right.events[0]?.id : undefined))
    expect(ids[0]).to.not.equal(ids[1])
  })

  it('reads every item of a batch, leaving out those Orka does not read', () => {
    const r = read(
      body(librarySigned(capture), librarySigned(VECTOR), librarySigned({ ...capture, eventCode: 'REFUND', pspReference: 'R2' })),
    )
    expect(E.isRight(r) && r.right.events.map((e) => `${e.name} ${String(e.serviceId)}`)).to.deep.equal([
      'CAPTURE JDD6LKT8MBLZNN84',
      'REFUND R2',
    ])
  })
})
