import { randomBytes, randomInt } from 'node:crypto'
import { readFileSync } from 'node:fs'
import http from 'node:http'
import { AddressInfo } from 'node:net'
import { ADYEN_ROUTES, AdyenDocument, adyenCheckoutDocument, AdyenEvent, AdyenRoute, loadAdyenDocument } from './adyen-document'
import { AdyenItemFields, SignedNotification, signedNotification } from './adyen-double-notifications'

/**
 * A stateful stand-in for Adyen's Checkout API (v71), for what Prism (stateless) cannot show:
 * payments held, captured in part, cancelled (by pspReference or by Orka's reference) and
 * refunded; refusals; idempotency keys replayed; an answer lost; and the signed notification
 * Adyen sends for each outcome, for a test to deliver when and as often as it likes. Every
 * request, answer and notification is checked against Adyen's own documents: `violations` lists
 * any that does not validate.
 */
export interface AdyenDouble {
  readonly url: string
  /** The key the double takes (`X-API-Key`); `REFUSED_ADYEN_KEY` is refused, `LIMITED_ADYEN_KEY` may not pay. */
  readonly apiKey: string
  readonly merchantAccount: string
  /** The key its notifications are signed with (hex, as Adyen's Customer Area shows it). */
  readonly hmacKey: string
  /** Requests, answers and notifications that do not validate against Adyen's documents: must stay empty. */
  readonly violations: string[]
  /** Every request, as method and path. */
  readonly requests: string[]
  /** Payments of this amount are made, then never answered (an answer lost). */
  readonly hangingAmount: number
  /** Every notification Adyen would have sent so far, in order, signed with `hmacKey`. */
  notifications(): readonly SignedNotification[]
  /** A notification for any item, signed as Adyen signs them (with `hmacKey` unless given another). */
  sign(fields: AdyenItemFields, hmacKey?: string): SignedNotification
  /** What Adyen's documents say of bodies. */
  readonly document: AdyenDocument
  close(): Promise<void>
}

export const REFUSED_ADYEN_KEY = 'AQE_refused_by_the_double'
export const LIMITED_ADYEN_KEY = 'AQE_may_not_pay'

/**
 * The double's cards, by number. Adyen's test platform picks a refusal by the cardholder's name,
 * which Orka does not send, so these are the double's own (Luhn-valid, so Adyen would take them).
 */
const REFUSALS: Readonly<Record<string, readonly [code: string, reason: string]>> = {
  '4000000000000002': ['2', 'Refused'],
  '4000000000009995': ['12', 'Not enough balance'],
  '4000000000000069': ['6', 'Expired Card'],
  '4000000000000127': ['24', 'CVC Declined'],
  '4100000000000019': ['20', 'FRAUD'],
}
const ERROR_CARD = '4000000000000119'
const THREE_DS_CARD = '4000000000003220'
const FUNDING: Readonly<Record<string, string>> = { '4000056655665556': 'DEBIT', '4000000000000051': 'PREPAID_RELOADABLE' }

const luhn = (n: string) =>
  /^\d{12,19}$/.test(n) &&
  Array.from(n, Number)
    .reverse()
    .reduce((sum, c, i) => {
      const d = c * (i % 2 === 1 ? 2 : 1)
      return sum + (d > 9 ? d - 9 : d)
    }, 0) %
    10 ===
    0

type Obj = Record<string, unknown>
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {})
interface Money {
  readonly value: number
  readonly currency: string
}
interface Payment {
  readonly psp: string
  readonly reference: string
  readonly amount: Money
  readonly method: string
  authorised: boolean
  /** Still held, to capture or cancel. */
  capturable: number
  captured: number
  refunded: number
  cancelled: boolean
}
interface Answer {
  readonly status: number
  readonly body: Obj
}

export const startAdyenDouble = async (
  o: { readonly apiKey?: string; readonly merchantAccount?: string; readonly hmacKey?: string } = {},
): Promise<AdyenDouble> => {
  const apiKey = o.apiKey ?? 'AQE_orka_adyen_double'
  const merchantAccount = o.merchantAccount ?? 'OrkaECOM'
  const hmacKey = o.hmacKey ?? randomBytes(32).toString('hex').toUpperCase()
  const document = loadAdyenDocument()
  const threeDs = obj(
    obj(obj(obj(JSON.parse(readFileSync(adyenCheckoutDocument(), 'utf8')) as Obj).components).examples)[
      'post-payments-card-3d-secure-2-web-200'
    ],
  ).value
  const violations: string[] = []
  const requests: string[] = []
  const sent: SignedNotification[] = []
  const payments = new Map<string, Payment>()
  const keys = new Map<string, Answer>()
  const hangingAmount = 999_999
  const psp = () => randomBytes(8).toString('hex').toUpperCase()
  const error = (status: number, errorCode: string, message: string, errorType = 'validation'): Answer => ({
    status,
    body: { status, errorCode, message, errorType, pspReference: psp() },
  })
  const notify = (event: AdyenEvent, f: Omit<AdyenItemFields, 'eventCode' | 'merchantAccountCode'>) => {
    const n = signedNotification(hmacKey, { ...f, eventCode: event, merchantAccountCode: merchantAccount })
    const wrong = document.notification(event, JSON.parse(n.body))
    if (wrong !== null) violations.push(`notification ${event}: ${wrong}`)
    sent.push(n)
  }

  const pay = (b: Obj): Answer | { hang: Answer } => {
    const amount = obj(b.amount) as unknown as Money
    const card = obj(b.paymentMethod)
    const number = String(card.number)
    if (!luhn(number)) return error(422, '101', 'Invalid card number')
    const ref = String(b.reference)
    const method = number.startsWith('5') ? 'mc' : 'visa'
    const p: Payment = {
      psp: psp(),
      reference: ref,
      amount,
      method,
      authorised: false,
      capturable: 0,
      captured: 0,
      refunded: 0,
      cancelled: false,
    }
    payments.set(p.psp, p)
    const refusal = REFUSALS[number]
    const cvcResult = card.cvc === undefined ? '6 No CVC/CVV provided' : refusal?.[0] === '24' ? '2 Does not match' : '1 Matches'
    const base = { pspReference: p.psp, merchantReference: ref, amount }
    const authorisation = (success: boolean, reason: string) => {
      notify('AUTHORISATION', {
        pspReference: p.psp,
        merchantReference: ref,
        amount,
        success,
        reason,
        paymentMethod: method,
        ...(success ? { operations: ['CANCEL', 'CAPTURE', 'REFUND'] } : {}),
      })
    }
    if (number === THREE_DS_CARD) return { status: 200, body: obj(threeDs) }
    if (number === ERROR_CARD) {
      authorisation(false, 'Acquirer Error')
      return { status: 200, body: { ...base, resultCode: 'Error', refusalReason: 'Acquirer Error', refusalReasonCode: '4' } }
    }
    if (refusal !== undefined) {
      authorisation(false, refusal[1])
      const additionalData = { cvcResult, avsResult: '5 No AVS data provided' }
      return {
        status: 200,
        body: { ...base, additionalData, resultCode: 'Refused', refusalReason: refusal[1], refusalReasonCode: refusal[0] },
      }
    }
    // Held when asked (`manualCapture`), else captured at once: Adyen's default for an account.
    const manual = obj(b.additionalData).manualCapture === 'true'
    Object.assign(p, { authorised: true, capturable: manual ? amount.value : 0, captured: manual ? 0 : amount.value })
    const authCode = String(randomInt(100_000, 999_999))
    authorisation(true, `${authCode}:${number.slice(-4)}:${String(card.expiryMonth)}/${String(card.expiryYear)}`)
    const additionalData = {
      authCode,
      cvcResult,
      avsResult: '5 No AVS data provided',
      fundingSource: FUNDING[number] ?? 'CREDIT',
      networkTxReference: String(randomInt(100_000_000, 999_999_999)) + String(randomInt(100_000, 999_999)),
    }
    const answer = { status: 200, body: { ...base, additionalData, resultCode: 'Authorised' } }
    return amount.value === hangingAmount ? { hang: answer } : answer
  }

  /** A modification: `received` at once; its outcome decided now and told by the notification queued. */
  const modify = (route: AdyenRoute, b: Obj, paymentPsp: string | undefined): Answer => {
    const own = psp()
    const reference = typeof b.reference === 'string' ? b.reference : undefined
    const amount = b.amount === undefined ? undefined : (obj(b.amount) as unknown as Money)
    const received = { merchantAccount, pspReference: own, status: 'received', ...(reference === undefined ? {} : { reference }) }
    if (route === '/cancels') {
      const paymentReference = String(b.paymentReference)
      const p = [...payments.values()].reverse().find((x) => x.reference === paymentReference)
      const outcome = p === undefined ? 'Original payment not found' : cancel(p)
      // Adyen's own example: the payment's reference, and its pspReference as the original.
      notify('TECHNICAL_CANCEL', {
        pspReference: own,
        merchantReference: paymentReference,
        ...(p === undefined ? {} : { originalReference: p.psp }),
        amount: p?.amount ?? { value: 0, currency: 'EUR' },
        success: outcome === null,
        reason: outcome ?? '',
      })
      return { status: 201, body: { ...received, paymentReference } }
    }
    const p = payments.get(paymentPsp ?? '')
    const event: AdyenEvent = route.endsWith('captures') ? 'CAPTURE' : route.endsWith('cancels') ? 'CANCELLATION' : 'REFUND'
    const outcome =
      p === undefined
        ? 'Original pspReference not found'
        : event === 'CAPTURE'
          ? capture(p, amount)
          : event === 'REFUND'
            ? refund(p, amount)
            : cancel(p)
    notify(event, {
      pspReference: own,
      originalReference: paymentPsp ?? '',
      merchantReference: reference ?? p?.reference ?? '',
      amount: amount ?? p?.amount ?? { value: 0, currency: 'EUR' },
      success: outcome === null,
      reason: outcome ?? '',
      paymentMethod: p?.method ?? 'visa',
    })
    return { status: 201, body: { ...received, paymentPspReference: paymentPsp ?? '', ...(amount === undefined ? {} : { amount }) } }
  }
  /** Each rule answers why it refuses, or null when it did it. */
  const capture = (p: Payment, amount: Money | undefined): string | null => {
    if (!p.authorised || p.cancelled) return 'Payment is not authorised'
    if (amount?.currency !== p.amount.currency) return 'Currency does not match the payment'
    if (amount.value > p.capturable) return 'Insufficient balance on payment'
    // By default Adyen releases what a partial capture leaves of the authorisation.
    Object.assign(p, { captured: p.captured + amount.value, capturable: 0 })
    return null
  }
  const refund = (p: Payment, amount: Money | undefined): string | null => {
    if (p.captured === 0) return "Transaction hasn't been captured, refund not possible"
    if (amount?.currency !== p.amount.currency) return 'Currency does not match the payment'
    if (amount.value > p.captured - p.refunded) return 'Refund amount exceeds the captured amount'
    p.refunded += amount.value
    return null
  }
  const cancel = (p: Payment): string | null => {
    if (!p.authorised) return 'Payment is not authorised'
    if (p.cancelled) return 'Payment is already cancelled'
    if (p.captured > 0) return 'Payment is already captured'
    Object.assign(p, { cancelled: true, capturable: 0 })
    return null
  }

  const route = (pathname: string): { route: AdyenRoute; psp?: string } | undefined => {
    const m = /^\/payments\/([^/]+)\/(captures|cancels|refunds)$/.exec(pathname)
    if (m !== null) return { route: `/payments/{paymentPspReference}/${m[2] ?? ''}` as AdyenRoute, psp: decodeURIComponent(m[1] ?? '') }
    return ADYEN_ROUTES.find((r) => r === pathname) === undefined ? undefined : { route: pathname as AdyenRoute }
  }

  const answer = (req: http.IncomingMessage, text: string): Answer | { hang: Answer } => {
    const key = req.headers['x-api-key']
    if (typeof key !== 'string' || key === '' || key === REFUSED_ADYEN_KEY)
      return error(401, '000', 'HTTP Status Response - Unauthorized', 'security')
    const found = route(new URL(req.url ?? '/', 'http://double').pathname)
    if (req.method !== 'POST' || found === undefined) return error(404, '000', 'Not Found')
    let b: Obj
    try {
      b = obj(JSON.parse(text))
    } catch {
      return error(400, '000', 'Unable to parse message')
    }
    const wrong = document.request(found.route, b)
    if (wrong !== null) {
      violations.push(`request ${found.route}: ${wrong}`)
      return error(422, '000', wrong)
    }
    if (b.merchantAccount !== merchantAccount) return error(403, '901', 'Invalid Merchant Account', 'security')
    if (key === LIMITED_ADYEN_KEY) return error(403, '010', 'Not allowed', 'security')
    if (found.route === '/paymentMethods')
      return { status: 200, body: { paymentMethods: [{ name: 'Cards', type: 'scheme', brands: ['visa', 'mc'] }] } }
    return found.route === '/payments' ? pay(b) : modify(found.route, b, found.psp)
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      requests.push(`${req.method ?? ''} ${req.url ?? ''}`)
      const key = req.headers['idempotency-key']
      const send = (a: Answer) => {
        res.writeHead(a.status, { 'content-type': 'application/json', ...(typeof key === 'string' ? { 'idempotency-key': key } : {}) })
        res.end(JSON.stringify(a.body))
      }
      // Adyen runs a request under a key once and answers every repeat as the first.
      const seen = typeof key === 'string' ? keys.get(key) : undefined
      if (seen !== undefined) {
        send(seen)
        return
      }
      const a = answer(req, Buffer.concat(chunks).toString())
      const given = 'hang' in a ? a.hang : a
      const at = route(new URL(req.url ?? '/', 'http://double').pathname)
      if (at !== undefined && given.status !== 404) {
        const wrong = document.response(at.route, given.status, given.body)
        if (wrong !== null) violations.push(`answer ${at.route} ${String(given.status)}: ${wrong}`)
      }
      if (typeof key === 'string' && given.status < 500 && given.status !== 401) keys.set(key, given)
      if (!('hang' in a)) send(a)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${String(port)}`,
    apiKey,
    merchantAccount,
    hmacKey,
    violations,
    requests,
    hangingAmount,
    document,
    notifications: () => [...sent],
    sign: (fields, key) => signedNotification(key ?? hmacKey, fields),
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve()
        })
      })
    },
  }
}
