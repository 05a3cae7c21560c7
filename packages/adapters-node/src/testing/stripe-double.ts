import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import http from 'node:http'
import { AddressInfo } from 'node:net'
import path from 'node:path'
import Ajv, { ValidateFunction } from 'ajv'
import { stripeEvent, stripeSignature } from './stripe-double-events'
import { PENDING_REFUND_AMOUNT, refundBook } from './stripe-double-refunds'
import { Answer, error, Maker, Obj, obj, parseForm, withNulls } from './stripe-double-support'
import { stripeMockModule } from './stripe-mock'

/**
 * A stateful stand-in for Stripe's PaymentIntents API, for the lifecycle stripe-mock (stateless)
 * cannot show: intents held, captured in part, cancelled and refunded, Stripe's test cards'
 * declines, idempotency keys replayed, search by metadata, a lost answer, refunds that settle
 * later, and the signed webhooks Stripe sends. Each object starts as the fixture stripe-mock
 * serves, and every answer and event is checked against the OpenAPI document stripe-mock embeds
 * (Stripe's own): `violations` lists any that does not validate.
 */
export interface StripeDouble {
  readonly url: string
  /** Answers that do not validate against Stripe's document: must stay empty. */
  readonly violations: string[]
  /** Every request, as method and path. */
  readonly requests: string[]
  /** Authorizations of this amount are made, then never answered (an answer lost). */
  readonly hangingAmount: number
  /** Refunds of this amount answer `pending` until `settleRefund` (Stripe's settle when the bank does). */
  readonly pendingRefundAmount: number
  /** How far behind the writes Stripe's search runs (Stripe: up to about a minute); 0 by default. */
  searchLagS: number
  /** Settles a pending refund as Stripe later does; answers the Refund as it is now (for `signedEvent`). */
  settleRefund(id: string, status: 'succeeded' | 'failed'): Record<string, unknown>
  /** A PaymentIntent as Stripe shows it now, in a retrieve or an event; undefined when unknown. */
  paymentIntent(id: string): Record<string, unknown> | undefined
  /** The webhook Stripe would send an endpoint with `secret` for an event of `type` about `object`, signed `at`. */
  signedEvent(type: string, object: unknown, secret: string, at?: Date): SignedEvent
  /** What Stripe's document says of `body` as the answer of a route: its errors, none when it validates. */
  check(template: string, method: 'get' | 'post', status: number, body: unknown): string | null
  close(): Promise<void>
}

/** A webhook as Stripe sends it: the exact body, and its headers. */
export interface SignedEvent {
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** Stripe's test cards: the decline (code, decline code) each one answers with. */
const DECLINES: Readonly<Record<string, readonly [string, string | null]>> = {
  '4000000000000002': ['card_declined', 'generic_decline'],
  '4000000000009995': ['card_declined', 'insufficient_funds'],
  '4000000000000069': ['expired_card', null],
  '4000000000000127': ['incorrect_cvc', null],
  '4000000000000119': ['processing_error', null],
}
const DEBIT = '4000056655665556'

export const startStripeDouble = async (): Promise<StripeDouble> => {
  const dir = stripeMockModule()
  const spec = withNulls(JSON.parse(readFileSync(path.join(dir, 'spec3.json'), 'utf8'))) as Obj
  const fixtures = obj(obj(JSON.parse(readFileSync(path.join(dir, 'fixtures3.json'), 'utf8')) as Obj).resources)
  const fixture = (name: string): Obj => structuredClone(obj(fixtures[name]))
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: false })
  ajv.addSchema(spec, 'stripe')
  const validators = new Map<string, ValidateFunction>()
  const schemaOf = (template: string, method: string, status: number): ValidateFunction => {
    const ref = `stripe#/paths/${template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}/responses/${status === 200 ? '200' : 'default'}/content/application~1json/schema`
    let v = validators.get(ref)
    if (v === undefined) {
      v = ajv.compile({ $ref: ref })
      validators.set(ref, v)
    }
    return v
  }

  // Compiled before the first request: compiling one answer's schema takes longer than a connector waits.
  const ROUTES = [
    ['/v1/balance', 'get'],
    ['/v1/payment_methods', 'post'],
    ['/v1/payment_intents', 'post'],
    ['/v1/payment_intents/search', 'get'],
    ['/v1/payment_intents/{intent}/capture', 'post'],
    ['/v1/payment_intents/{intent}/cancel', 'post'],
    ['/v1/refunds', 'post'],
    ['/v1/refunds', 'get'],
    ['/v1/payment_intents/{intent}', 'get'],
  ] as const
  for (const [template, method] of ROUTES) for (const status of [200, 400]) schemaOf(template, method, status)
  const eventSchema = ajv.compile({ $ref: 'stripe#/components/schemas/event' })

  const violations: string[] = []
  const requests: string[] = []
  const methods = new Map<string, Obj>()
  const intents = new Map<string, Obj>()
  const keys = new Map<string, { fingerprint: string; status: number; body: Obj }>()
  const hangingAmount = 999_999
  const tuning = { searchLagS: 0 }
  const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`
  const now = () => Math.floor(Date.now() / 1000)
  const make: Maker = { fixture, id, now }
  const refunds = refundBook(make)
  /** An intent as a retrieve (or an event) shows it: its charge by id, unexpanded. */
  const retrieved = (i: Obj): Obj => {
    const charge = i.latest_charge
    return { ...i, latest_charge: typeof charge === 'object' && charge !== null ? String(obj(charge).id) : charge }
  }

  const chargeOf = (intent: Obj, method: Obj): Obj => {
    const card = obj(method.card)
    const charge = fixture('charge')
    const details = obj(charge.payment_method_details)
    Object.assign(charge, {
      id: id('ch'),
      amount: intent.amount,
      currency: intent.currency,
      payment_intent: intent.id,
      payment_method: method.id,
      captured: intent.status === 'succeeded',
      status: 'succeeded',
      payment_method_details: {
        ...details,
        type: 'card',
        card: {
          ...obj(details.card),
          brand: card.brand,
          last4: card.last4,
          funding: card.funding,
          checks: card.checks,
          authorization_code: String(100_000 + (Number(card.last4) % 900_000)),
          network_transaction_id: `${String(Date.now())}${String(card.last4)}`.slice(-15),
        },
      },
    })
    return charge
  }

  const createIntent = (p: Obj): Answer => {
    const amount = Number(p.amount)
    if (!Number.isInteger(amount) || amount < 1)
      return error(400, { type: 'invalid_request_error', code: 'parameter_invalid_integer', param: 'amount' })
    if (p.payment_method === undefined && p.confirm === undefined) {
      // An intent made without a card (as a lost answer's probe makes one): it holds nothing.
      const bare = fixture('payment_intent')
      Object.assign(bare, {
        id: id('pi'),
        amount,
        currency: String(p.currency),
        status: 'requires_payment_method',
        payment_method: null,
        metadata: obj(p.metadata),
        created: now(),
        livemode: false,
        last_payment_error: null,
        latest_charge: null,
        amount_capturable: 0,
        amount_received: 0,
        canceled_at: null,
        cancellation_reason: null,
      })
      intents.set(String(bare.id), bare)
      return { status: 200, body: bare }
    }
    const method = methods.get(String(p.payment_method))
    if (method === undefined) return error(400, { type: 'invalid_request_error', code: 'resource_missing', param: 'payment_method' })
    const intent = fixture('payment_intent')
    Object.assign(intent, {
      id: id('pi'),
      amount,
      currency: String(p.currency),
      capture_method: p.capture_method === 'manual' ? 'manual' : 'automatic',
      payment_method: method.id,
      metadata: obj(p.metadata),
      created: now(),
      livemode: false,
      last_payment_error: null,
      canceled_at: null,
      cancellation_reason: null,
    })
    const decline = DECLINES[String(obj(method.card).__number)]
    if (decline !== undefined) {
      const [code, declineCode] = decline
      Object.assign(intent, { status: 'requires_payment_method', amount_capturable: 0, amount_received: 0, latest_charge: null })
      const lastError = {
        type: 'card_error',
        code,
        ...(declineCode === null ? {} : { decline_code: declineCode }),
        message: 'Your card was declined.',
      }
      intent.last_payment_error = lastError
      intents.set(String(intent.id), intent)
      return error(402, { ...lastError, payment_intent: intent })
    }
    const manual = intent.capture_method === 'manual'
    Object.assign(intent, {
      status: manual ? 'requires_capture' : 'succeeded',
      amount_capturable: manual ? amount : 0,
      amount_received: manual ? 0 : amount,
    })
    intent.latest_charge = chargeOf(intent, method)
    intents.set(String(intent.id), intent)
    return amount === hangingAmount ? { hang: intent } : { status: 200, body: intent }
  }

  const route = (method: string, url: URL, p: Obj): { template: string; answer: Answer } => {
    const parts = url.pathname.split('/')
    if (method === 'GET' && url.pathname === '/v1/balance')
      return { template: '/v1/balance', answer: { status: 200, body: fixture('balance') } }
    if (method === 'POST' && url.pathname === '/v1/payment_methods') {
      const card = obj(p.card)
      const number = typeof card.number === 'string' ? card.number : ''
      const pm = fixture('payment_method')
      const cvc = card.cvc === undefined ? null : DECLINES[number]?.[0] === 'incorrect_cvc' ? 'fail' : 'pass'
      const postal = obj(obj(p.billing_details).address).postal_code
      Object.assign(pm, {
        id: id('pm'),
        type: 'card',
        created: now(),
        customer: null,
        card: {
          ...obj(pm.card),
          brand: number.startsWith('5') ? 'mastercard' : 'visa',
          last4: number.slice(-4),
          exp_month: Number(card.exp_month),
          exp_year: Number(card.exp_year),
          funding: number === DEBIT ? 'debit' : 'credit',
          checks: { address_line1_check: null, address_postal_code_check: postal === undefined ? null : 'pass', cvc_check: cvc },
        },
      })
      // The number stays in the double's memory (to decide at confirmation), never in an answer.
      methods.set(String(pm.id), { ...pm, card: { ...obj(pm.card), __number: number } })
      return { template: '/v1/payment_methods', answer: { status: 200, body: pm } }
    }
    if (method === 'POST' && url.pathname === '/v1/payment_intents') {
      const answer = createIntent(p)
      return { template: '/v1/payment_intents', answer }
    }
    if (method === 'GET' && url.pathname === '/v1/payment_intents/search') {
      const m = /^metadata\['([^']+)'\]:'([^']*)'$/.exec(url.searchParams.get('query') ?? '')
      const shown = (i: Obj) => Number(i.created) <= now() - tuning.searchLagS
      const data = m === null ? [] : [...intents.values()].filter((i) => obj(i.metadata)[m[1] ?? ''] === m[2] && shown(i))
      return {
        template: '/v1/payment_intents/search',
        answer: {
          status: 200,
          body: { object: 'search_result', data, has_more: false, next_page: null, url: '/v1/payment_intents/search' },
        },
      }
    }
    const intent = parts[3] === undefined ? undefined : intents.get(parts[3])
    const unexpected = (i: Obj) => error(400, { type: 'invalid_request_error', code: 'payment_intent_unexpected_state', payment_intent: i })
    if (method === 'POST' && parts[4] === 'capture') {
      const template = '/v1/payment_intents/{intent}/capture'
      if (intent === undefined) return { template, answer: error(404, { type: 'invalid_request_error', code: 'resource_missing' }) }
      if (intent.status !== 'requires_capture') return { template, answer: unexpected(intent) }
      const amount = p.amount_to_capture === undefined ? Number(intent.amount_capturable) : Number(p.amount_to_capture)
      if (amount > Number(intent.amount_capturable))
        return { template, answer: error(400, { type: 'invalid_request_error', code: 'amount_too_large', param: 'amount_to_capture' }) }
      Object.assign(intent, { status: 'succeeded', amount_received: amount, amount_capturable: 0 })
      intent.latest_charge = String(obj(intent.latest_charge).id ?? intent.latest_charge)
      return { template, answer: { status: 200, body: intent } }
    }
    if (method === 'POST' && parts[4] === 'cancel') {
      const template = '/v1/payment_intents/{intent}/cancel'
      if (intent === undefined) return { template, answer: error(404, { type: 'invalid_request_error', code: 'resource_missing' }) }
      if (intent.status !== 'requires_capture' && intent.status !== 'requires_payment_method')
        return { template, answer: unexpected(intent) }
      Object.assign(intent, { status: 'canceled', canceled_at: now(), cancellation_reason: 'requested_by_customer', amount_capturable: 0 })
      if (typeof intent.latest_charge === 'object' && intent.latest_charge !== null)
        intent.latest_charge = String(obj(intent.latest_charge).id)
      return { template, answer: { status: 200, body: intent } }
    }
    if (method === 'POST' && url.pathname === '/v1/refunds')
      return { template: '/v1/refunds', answer: refunds.create(intents.get(String(p.payment_intent)), p) }
    if (method === 'GET' && url.pathname === '/v1/refunds') {
      const data = refunds.list(url.searchParams.get('payment_intent') ?? '')
      return { template: '/v1/refunds', answer: { status: 200, body: { object: 'list', data, has_more: false, url: '/v1/refunds' } } }
    }
    if (method === 'GET' && parts.length === 4 && parts[2] === 'payment_intents') {
      const template = '/v1/payment_intents/{intent}'
      if (intent === undefined) return { template, answer: error(404, { type: 'invalid_request_error', code: 'resource_missing' }) }
      return { template, answer: { status: 200, body: retrieved(intent) } }
    }
    return { template: '', answer: error(404, { type: 'invalid_request_error', code: 'resource_missing' }) }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://double')
      const method = req.method ?? 'GET'
      requests.push(`${method} ${url.pathname}`)
      const body = Buffer.concat(chunks).toString()
      const send = (status: number, payload: Obj) => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(payload))
      }
      const auth = req.headers.authorization ?? ''
      if (!/^Bearer sk_test_\w+$/.test(auth) || auth === 'Bearer sk_test_refused') {
        send(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****' } })
        return
      }
      const key = req.headers['idempotency-key']
      const fingerprint = `${method} ${url.pathname} ${body}`
      if (typeof key === 'string') {
        const seen = keys.get(key)
        if (seen !== undefined) {
          if (seen.fingerprint === fingerprint) send(seen.status, seen.body)
          else
            send(400, {
              error: { type: 'idempotency_error', message: 'Keys for idempotent requests can only be used with the same parameters' },
            })
          return
        }
      }
      const { template, answer } = route(method, url, parseForm(body))
      if ('hang' in answer) {
        if (typeof key === 'string') keys.set(key, { fingerprint, status: 200, body: answer.hang })
        return
      }
      if (template !== '') {
        const validate = schemaOf(template, method.toLowerCase(), answer.status)
        if (!validate(answer.body)) violations.push(`${method} ${template} ${String(answer.status)}: ${ajv.errorsText(validate.errors)}`)
      }
      if (typeof key === 'string' && answer.status < 500) keys.set(key, { fingerprint, status: answer.status, body: answer.body })
      send(answer.status, answer.body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${String(port)}`,
    violations,
    requests,
    hangingAmount,
    pendingRefundAmount: PENDING_REFUND_AMOUNT,
    get searchLagS() {
      return tuning.searchLagS
    },
    set searchLagS(s: number) {
      tuning.searchLagS = s
    },
    settleRefund: (refundId, status) => refunds.settle(refundId, status),
    paymentIntent: (intentId) => {
      const i = intents.get(intentId)
      return i === undefined ? undefined : structuredClone(retrieved(i))
    },
    signedEvent: (type, object, secret, at = new Date()) => {
      const atS = Math.floor(at.getTime() / 1000)
      const event = stripeEvent(make, type, object, atS)
      if (!eventSchema(event)) violations.push(`event ${type}: ${ajv.errorsText(eventSchema.errors)}`)
      const body = JSON.stringify(event)
      return { headers: { 'content-type': 'application/json', 'stripe-signature': stripeSignature(body, secret, atS) }, body }
    },
    check: (template, method, status, body) => {
      const validate = schemaOf(template, method, status)
      return validate(body) ? null : ajv.errorsText(validate.errors)
    },
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
