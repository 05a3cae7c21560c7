import { expired, KnownMethod } from './payment-method-vault'
import { AmountSpec, CardSpec, CreateSpec, OperationSpec, PaymentMethodSpec, Prop, ReadSpec, SessionCase, TxAuth } from './transaction-spec'

/**
 * What the model predicts a transaction request gets, from docs/payments.md ("Payments", "Card
 * services and test cards", "Errors") and the schema: the status, and where it says more, the
 * 422's locations, the 400's pointers, or the properties of the 2xx body. The rules are written
 * here from the documentation, not taken from the server's code: the order of the gates, the
 * mock card service's answers by amount and card number, the AVS and CVV codes.
 */

type Json = Record<string, unknown>
export type Account = 'default' | 'acme'
export const MAX_AMOUNT = 99_999_999

export interface Expectation {
  readonly status: number
  /** A short, stable reason: part of a failure's signature. */
  readonly why: string
  /** 422: the locations the details name (compared as a set). */
  readonly locs?: readonly (readonly (string | number)[])[]
  /** 400 (and a 404 naming a field): the pointers the details name (as a set). */
  readonly pointers?: readonly string[]
  /** 400, 404, 409: the type of the first detail. */
  readonly detailType?: string
  /** 2xx: properties the body has, nested objects compared by the properties given. */
  readonly body?: Json
  /** A replay: the first answer, byte for byte, with `Idempotent-Replayed: true`. */
  readonly text?: string
  /** A list: a reason when an item breaks a filter. */
  readonly item?: (item: Json) => string | undefined
  readonly limit?: number
}

const of = (status: number, why: string, more: Partial<Expectation> = {}): Expectation => ({ status, why, ...more })

/** Authentication (401) and the route's scope (403 before the body is read), for each kind of caller. */
export const gate = (auth: TxAuth, scope: 'read' | 'write'): Expectation | undefined => {
  if (auth === 'none' || auth === 'expired' || auth === 'badSignature') return of(401, `${auth} token`)
  if (auth === 'giftCardOperator' || auth === 'narrow' || auth === 'acmeAdminOnDefault') return of(403, `${auth} token`)
  if (auth === 'readOnly' && scope === 'write') return of(403, 'read-only key writing')
  if ((auth === 'embed' || auth === 'embedPinned' || auth === 'embedBuyer') && scope === 'read') return of(403, 'embed token reading')
  return undefined
}
export const isEmbed = (auth: TxAuth) => auth === 'embed' || auth === 'embedPinned' || auth === 'embedBuyer'

/** The mock card service's answer to an amount (docs/payments.md, "Card services and test cards"); the slow one times out here (300 ms). */
export const mockRule = (amount: number): { k: 'approve' } | { k: 'decline' | 'fail'; code: string } | { k: 'timeout' } => {
  const declined = (
    'canceled_payment_method disputed_transaction duplicate_transaction expired_authorization expired_payment_method ' +
    'incorrect_billing_address incorrect_country incorrect_currency incorrect_cvv incorrect_expiry_date insufficient_funds ' +
    'issuer_decline other_decline requires_buyer_authentication refused_transaction service_decline suspected_fraud ' +
    'unavailable_payment_method unknown_payment_method unsupported_transaction unsupported_payment_method cancelled_buyer_approval'
  ).split(' ')
  const failed = (
    'insufficient_service_permissions invalid_amount invalid_payment_method invalid_service_configuration ' +
    'invalid_service_credentials invalid_service_response invalid_tax_identifier missing_billing_address missing_cvv ' +
    'missing_shipping_address'
  ).split(' ')
  if (amount >= 200_001 && amount <= 200_022) return { k: 'decline', code: declined[amount - 200_001]! }
  if (amount >= 300_001 && amount <= 300_010) return { k: 'fail', code: failed[amount - 300_001]! }
  if (amount >= 300_011 && amount <= 300_015) return { k: 'fail', code: 'service_error' }
  if (amount >= 400_000 && amount <= 400_099) return { k: 'fail', code: 'internal_error' }
  if (amount === 300_998 || amount === 300_999) return { k: 'timeout' }
  return { k: 'approve' }
}
const DECLINED_CARDS: Readonly<Record<string, string>> = { '4000000000000002': 'issuer_decline', '4000000000009995': 'insufficient_funds' }
export const cvvOf = (code: unknown) => (code == null || code === '222' ? 'not_provided' : code === '333' ? 'no_match' : 'match')
const avsOf = (postal: string | null) =>
  postal === null
    ? null
    : postal.includes('77')
      ? 'no_match'
      : postal.includes('88')
        ? 'partial_match_postcode'
        : postal.includes('99')
          ? 'partial_match_address'
          : 'match'
const SCHEMES: readonly (readonly [string, RegExp])[] = [
  ['amex', /^3[47]/],
  ['diners-club', /^3(0[0-5]|[68])/],
  ['jcb', /^35(2[89]|[3-8])/],
  ['visa', /^4/],
  ['mastercard', /^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/],
  ['discover', /^(6011|65|64[4-9])/],
  ['unionpay', /^62/],
  ['maestro', /^(5[06-9]|6\d)/],
]
export const schemeOf = (digits: string) => SCHEMES.find(([, re]) => re.test(digits))?.[0] ?? null

/** `MM/YY` for now plus `months` (UTC). */
export const expiryText = (now: Date, months: number) => {
  const m = now.getUTCFullYear() * 12 + now.getUTCMonth() + months
  return `${String((m % 12) + 1).padStart(2, '0')}/${String(Math.floor(m / 12) % 100).padStart(2, '0')}`
}

/** A property name the client chose is shown only when it is a plain identifier (docs/api-conventions.md, "Errors"). */
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/
const body = (...loc: readonly (string | number)[]) => [
  'body',
  ...loc.map((k) => (typeof k === 'number' || PLAIN_NAME.test(k) ? k : '<property>')),
]
const faultsOf = (props: readonly Prop[], at: readonly string[] = []) =>
  props.filter((p) => p.effect === '422').map((p) => body(...at, ...(p.loc ?? [p.key])))
const refusedOf = (props: readonly Prop[], at: readonly string[] = []) =>
  props.filter((p) => p.effect === '400').map((p) => `/${[...at, ...(p.loc ?? [p.key])].join('/')}`)
const cardFaults = (c: CardSpec) => [
  ...(c.numberOk ? [] : [body('payment_method', 'number')]),
  ...('bad' in c.expiry ? [body('payment_method', 'expiration_date')] : []),
  ...(c.cvvOk ? [] : [body('payment_method', 'security_code')]),
]
const invalid = (why: string, pointer: string, type: string) => of(400, why, { pointers: [pointer], detailType: type })

/** A property sent twice counts once, as its last value (JSON.parse keeps the last). */
const lastWins = (pm: PaymentMethodSpec): PaymentMethodSpec =>
  pm.kind === 'card' || pm.kind === 'session' || pm.kind === 'stored'
    ? { ...pm, extras: pm.extras.filter((p, i) => !pm.extras.slice(i + 1).some((q) => q.key === p.key)) }
    : pm

export interface CreateContext {
  readonly account: Account
  readonly auth: TxAuth
  readonly now: Date
  readonly badKey: boolean
  /** The key was used before with another body. */
  readonly reused: boolean
  readonly buyer: { readonly id: string; readonly external: string; readonly name: string }
  readonly serviceId: string
  /** What the session named is, once the model made it (`fresh`: it holds the card). */
  readonly session: { readonly id: string; readonly state: SessionCase } | null
  readonly pin: number | null
  /** The stored method a payment names (by id, or on its session): null when the id names none the model knows. */
  readonly stored: { readonly method: KnownMethod | null } | null
  /** With `store: true`: the method the vault holds already for the card and the model's buyer (none: a new one is kept). */
  readonly keep: { readonly existing: KnownMethod | undefined } | null
  /** Fingerprints the run learned, by card number. */
  readonly fingerprints: ReadonlyMap<string, string>
}

/** `POST /transactions`: the gates in the order docs/payments.md gives, then the mock service's answer. */
export const expectCreate = (spec: CreateSpec, ctx: CreateContext): Expectation => {
  const gated = gate(ctx.auth, 'write')
  if (gated) return gated
  const pm = lastWins(spec.pm)
  // The header and the body are decoded apart: a fault of each is reported, and the body's rules once its properties hold.
  const header = ctx.badKey ? [['header', 'idempotency-key']] : []
  const faults = [
    ...faultsOf(spec.props),
    ...(pm.kind === 'card' ? [...cardFaults(pm.card), ...faultsOf(pm.extras)] : []),
    ...(pm.kind === 'session' ? [...(pm.session === 'malformed' ? [body('payment_method', 'id')] : []), ...faultsOf(pm.extras)] : []),
    ...(pm.kind === 'malformed' && pm.refined !== true ? [body(...pm.loc)] : []),
    ...(pm.kind === 'stored'
      ? [
          ...(pm.pick === 'malformed' ? [body('payment_method', 'id')] : []),
          ...(pm.cvvOk ? [] : [body('payment_method', 'security_code')]),
          ...faultsOf(pm.extras),
        ]
      : []),
  ]
  if (faults.length > 0) return of(422, 'schema', { locs: [...header, ...faults] })
  const value = (key: string): unknown => spec.props.find((p) => p.key === key)?.value
  const amount = value('amount') as number
  const intent = (value('intent') as string | undefined) ?? 'authorize'
  const named = {
    id: value('buyer_id') as string | null | undefined,
    external: value('buyer_external_identifier') as string | null | undefined,
  }
  const rules = [
    ...(named.id != null && named.external != null ? [body('buyer_external_identifier')] : []),
    ...(intent === 'capture' && amount === 0 ? [body('amount')] : []),
    ...(pm.kind === 'malformed' ? [body(...pm.loc)] : []),
  ]
  if (rules.length > 0 || header.length > 0)
    return of(422, rules.length > 0 ? 'cross-field rule' : 'schema', { locs: [...header, ...rules] })
  const refused = [
    ...refusedOf(spec.props),
    ...(pm.kind === 'card' || pm.kind === 'session' || pm.kind === 'stored' ? refusedOf(pm.extras, ['payment_method']) : []),
  ]
  if (refused.length > 0) return of(400, 'unsupported', { pointers: refused, detailType: 'unsupported' })
  // `store: true` keeps the card that pays for the transaction's buyer: it needs one named.
  const store = value('store') === true
  if (store && named.id == null && named.external == null) return invalid('store without a buyer', '/store', 'buyer_required')
  if (ctx.auth === 'embedPinned' && ctx.pin !== amount) return of(403, 'outside the embed pins')
  if (ctx.auth === 'embedBuyer' && named.external !== 'known') return of(403, "outside the embed claim's buyer")
  // An embed token keeps a card only for its claim's buyer (as `POST /payment-methods`): one naming none, for nobody.
  if (store && (ctx.auth === 'embed' || ctx.auth === 'embedPinned')) return of(403, 'embed token keeping a card for a buyer')
  if (ctx.reused) return invalid('key reused', '/idempotency-key', 'idempotency_key_reused')
  if (named.id === 'unknown') return invalid('unknown buyer', '/buyer_id', 'unknown_buyer')
  if (named.external === 'unknown') return invalid('unknown buyer', '/buyer_external_identifier', 'unknown_buyer')
  if (value('payment_service_id') === 'unknown') return invalid('unknown service', '/payment_service_id', 'unknown_payment_service')
  const card = pm.kind === 'card' || pm.kind === 'session' ? pm.card : null
  if (pm.kind === 'session' && ctx.session?.state !== 'fresh' && ctx.session?.state !== 'stored') {
    const state = ctx.session?.state
    if (state === 'empty') return invalid('session without a card', '/payment_method/id', 'no_card_data')
    if (state === 'used') return invalid('session used', '/payment_method/id', 'used_checkout_session')
    return invalid('unknown session', '/payment_method/id', 'unknown_checkout_session')
  }
  const guest = value('buyer') as { postal: string | null } | undefined
  const known = named.id === 'known' || named.external === 'known'
  // A stored method (by id, or named on the session): one of the caller's reach that can pay, else one 400 that does not say why.
  const storedRef = pm.kind === 'stored' || ctx.session?.state === 'stored' ? (ctx.stored ?? { method: null }) : null
  const m = storedRef?.method ?? null
  if (storedRef !== null) {
    const reach =
      ctx.auth === 'embed' || ctx.auth === 'embedPinned' ? false : ctx.auth === 'embedBuyer' ? m?.owner?.id === ctx.buyer.id : true
    if (m === null || m.deleted || m.status !== 'succeeded' || !reach)
      return invalid('stored method that cannot pay', '/payment_method/id', 'unknown_payment_method')
    if (expired(m.expiry, ctx.now)) return invalid('stored card expired', '/payment_method/id', 'expired_card')
    // A buyer's method pays for that buyer: a request naming another (or a guest) is refused.
    if (m.owner !== null && (known ? m.owner.id !== ctx.buyer.id : value('buyer') != null))
      return invalid("another buyer's stored method", '/payment_method/id', 'payment_method_buyer_mismatch')
  } else {
    if (card?.digits == null || 'bad' in card.expiry) throw new Error('a payment without a card passed every check')
    if (card.expiry.months < 0) return invalid('expired card', '/payment_method/expiration_date', 'expired_card')
  }
  const digits = m !== null ? m.digits : card!.digits!
  const expiry = m !== null ? m.expiry : expiryText(ctx.now, (card!.expiry as { months: number }).months)
  const code = pm.kind === 'stored' ? pm.cvv : card?.cvv
  const rule = mockRule(amount)
  const declined = rule.k === 'decline' ? rule.code : rule.k === 'approve' ? DECLINED_CARDS[digits] : undefined
  const status =
    rule.k === 'fail' || rule.k === 'timeout'
      ? 'authorization_failed'
      : declined !== undefined
        ? 'authorization_declined'
        : intent === 'capture'
          ? 'capture_succeeded'
          : 'authorization_succeeded'
  const succeeded = status === 'authorization_succeeded' || status === 'capture_succeeded'
  // The method the payment shows: the stored one it paid with, the one `store: true` kept (its id when the model can tell), or none.
  const methodId = m !== null ? { id: m.id } : store ? (ctx.keep?.existing !== undefined ? { id: ctx.keep.existing.id } : {}) : { id: null }
  const owner = m?.owner ?? null
  return of(201, `${status.replace('authorization_', '')}${m !== null ? ' (stored method)' : store ? ' (kept)' : ''}`, {
    body: {
      type: 'transaction',
      merchant_account_id: ctx.account,
      amount,
      currency: value('currency'),
      intent,
      status,
      authorized_amount: succeeded ? amount : 0,
      captured_amount: status === 'capture_succeeded' ? amount : 0,
      refunded_amount: 0,
      intent_outcome: succeeded ? 'succeeded' : 'failed',
      ...(rule.k === 'timeout' ? {} : { error_code: rule.k === 'fail' ? rule.code : (declined ?? null) }),
      external_identifier: value('external_identifier') ?? null,
      metadata: value('metadata') ?? null,
      country: value('country') ?? null,
      payment_source: value('payment_source') ?? 'ecommerce',
      checkout_session_id: pm.kind === 'session' ? (ctx.session?.id ?? null) : null,
      payment_method: {
        type: 'payment-method',
        method: 'card',
        ...methodId,
        label: digits.slice(-4),
        scheme: schemeOf(digits),
        expiration_date: expiry,
        details: { bin: digits.slice(0, 6), card_type: null },
        ...(ctx.fingerprints.has(digits) ? { fingerprint: ctx.fingerprints.get(digits) } : {}),
        ...(m !== null ? { external_identifier: m.externalId } : {}),
      },
      ...(succeeded ? { cvv_response_code: cvvOf(code), avs_response_code: avsOf(guest?.postal ?? null) } : {}),
      buyer: known
        ? { type: 'buyer', id: ctx.buyer.id, external_identifier: ctx.buyer.external, display_name: ctx.buyer.name }
        : guest === undefined || value('buyer') === null
          ? owner === null
            ? null
            : { type: 'buyer', id: owner.id, external_identifier: owner.external, display_name: owner.name }
          : { type: 'buyer', id: null },
      payment_service: { id: ctx.serviceId, payment_service_definition_id: 'mock-card' },
    },
  })
}

/** A transaction as the model knows it. */
export interface TxState {
  readonly id: string
  readonly account: Account
  readonly amount: number
  readonly currency: string
  readonly cvv: string | null
  readonly sessionId: string | null
  status: string
  authorized: number
  captured: number
  captures: string[]
  refunds: { id: string; amount: number; status: string }[]
  externalId: string | null
  metadata: unknown
  busy: boolean
}
export const refundable = (t: TxState) =>
  t.captured - t.refunds.filter((r) => r.status === 'succeeded' || r.status === 'processing').reduce((a, r) => a + r.amount, 0)

/** An amount relative to `base` (what is authorized, or left to refund); a fault (422) is `null`. */
const amountOf = (a: AmountSpec, base: number): { value: number | 'all'; fault: boolean } => {
  switch (a.k) {
    case 'absent':
    case 'null':
      return { value: 'all', fault: false }
    case 'fixed':
      return { value: a.amount, fault: false }
    case 'share':
      return { value: Math.max(1, Math.floor(base * a.share)), fault: false }
    case 'over':
      return { value: base + 1, fault: base + 1 > MAX_AMOUNT }
    case 'bad':
      return { value: 0, fault: true }
  }
}
export const amountTree = (a: AmountSpec, base: number): unknown =>
  a.k === 'bad' ? a.tree : a.k === 'null' ? null : a.k === 'absent' ? undefined : amountOf(a, base).value

export interface OperationContext {
  readonly auth: TxAuth
  readonly badKey: boolean
  /** The transaction named: null when it is unknown, another account's, or malformed (`malformed`). */
  readonly tx: TxState | null
  readonly malformed: boolean
}

/** A capture, void, refund, full refund, update or cancel: gates, decoding, then the transaction's state. */
export const expectOperation = (spec: OperationSpec, ctx: OperationContext): Expectation => {
  const gated = gate(ctx.auth, 'write')
  if (gated) return gated
  if (ctx.malformed) return of(422, 'malformed id', { locs: [['path', 'transaction_id']] })
  const t = ctx.tx
  const base = spec.op === 'capture' ? (t?.authorized ?? 1000) : t === null ? 1000 : refundable(t)
  const sent = !spec.bodyless && spec.op !== 'void'
  const amount = sent ? amountOf(spec.amount, base) : { value: 'all' as const, fault: false }
  const faults = [
    ...(ctx.badKey && spec.op !== 'update' && spec.op !== 'cancel' ? [['header', 'idempotency-key']] : []),
    ...(spec.bodyless && spec.op === 'update' ? [['body']] : []),
    ...(sent ? faultsOf(spec.props) : []),
    ...(amount.fault || (sent && spec.op === 'refundAll' && spec.amount.k === 'fixed') ? [body('amount')] : []),
  ]
  if (faults.length > 0) return of(422, 'schema', { locs: faults })
  if (isEmbed(ctx.auth)) return of(403, 'embed token operating')
  const props = spec.bodyless || spec.op === 'void' ? [] : spec.props
  const refused = refusedOf(props)
  if (spec.op === 'update' && refused.length > 0) return invalid('unsupported', refused[0]!, 'unsupported')
  if (t === null) return of(404, 'unknown transaction')
  if (spec.op === 'update') {
    const value = (key: string) => props.find((p) => p.key === key)
    const ext = value('external_identifier')
    const meta = value('metadata')
    return of(200, 'updated', {
      body: { id: t.id, status: t.status, external_identifier: ext ? ext.value : t.externalId, metadata: meta ? meta.value : t.metadata },
    })
  }
  if (spec.op === 'cancel') return invalid('unsupported operation', '', 'unsupported_operation')
  if (spec.op === 'capture') {
    // `final: false`, then reauthorization, then every property a capture does not offer (airline, cart_items) together.
    const first = ['/final', '/reauthorize_if_authorization_expired'].find((p) => refused.includes(p))
    if (first !== undefined) return invalid('unsupported', first, 'unsupported')
    if (refused.length > 0) return of(400, 'unsupported', { pointers: refused, detailType: 'unsupported' })
    if (t.status !== 'authorization_succeeded') return of(409, `capture of ${t.status}`, { detailType: 'invalid_transaction_status' })
    if (t.authorized === 0) return of(409, 'capture of a card check', { detailType: 'invalid_transaction_status' })
    const take = amount.value === 'all' ? t.authorized : amount.value
    if (take > t.authorized) return invalid('capture above authorized', '/amount', 'amount_above_authorized')
    const rule = mockRule(take)
    const captured = rule.k === 'approve'
    const transaction = { id: t.id, status: captured ? 'capture_succeeded' : t.status, captured_amount: captured ? take : 0 }
    const outcome = rule.k === 'approve' ? 'succeeded' : rule.k === 'decline' ? 'declined' : 'failed'
    return of(200, `capture ${outcome}`, {
      body: spec.prefer ? { type: 'transaction-capture', status: outcome, transaction } : { type: 'transaction', ...transaction },
    })
  }
  if (spec.op === 'void') {
    if (t.status !== 'authorization_succeeded') return of(409, `void of ${t.status}`, { detailType: 'invalid_transaction_status' })
    const transaction = { id: t.id, status: 'authorization_voided' }
    return of(200, 'voided', {
      body: spec.prefer ? { type: 'transaction-void', status: 'succeeded', transaction } : { type: 'transaction', ...transaction },
    })
  }
  if (refused.includes('/target_id')) return invalid('a target_id without its target_type', '/target_id', 'invalid')
  if (t.status !== 'capture_succeeded') return of(409, `refund of ${t.status}`, { detailType: 'invalid_transaction_status' })
  const left = refundable(t)
  if (left === 0) return of(409, 'nothing left to refund', { detailType: 'invalid_transaction_status' })
  const give = amount.value === 'all' ? left : amount.value
  if (give > left) return invalid('refund above what is left', '/amount', 'amount_above_refundable')
  const rule = mockRule(give)
  const refund = {
    type: 'refund',
    transaction_id: t.id,
    amount: give,
    currency: t.currency,
    status: rule.k === 'approve' ? 'succeeded' : rule.k === 'decline' ? 'declined' : 'failed',
  }
  return of(201, `refund ${refund.status}`, { body: spec.op === 'refundAll' ? { items: [refund] } : refund })
}

export interface ReadContext {
  readonly auth: TxAuth
  readonly tx: TxState | null
  readonly malformed: boolean
  /** The capture or refund id named, and whether the transaction has it. */
  readonly sub: { readonly id: string; readonly found: boolean } | null
}

export const expectRead = (spec: ReadSpec, ctx: ReadContext): Expectation => {
  const gated = gate(ctx.auth, 'read')
  if (gated) return gated
  if (ctx.malformed && spec.read !== 'refundById') return of(422, 'malformed id', { locs: [['path', 'transaction_id']] })
  const t = ctx.tx
  if (spec.read === 'refundById') {
    const r = t?.refunds.find((x) => x.id === ctx.sub?.id)
    return r === undefined ? of(404, 'unknown refund') : of(200, 'refund', { body: { id: r.id, amount: r.amount, status: r.status } })
  }
  if (t === null) return of(404, 'unknown transaction')
  switch (spec.read) {
    case 'get':
      return of(200, 'transaction', {
        body: {
          id: t.id,
          status: t.status,
          amount: t.amount,
          authorized_amount: t.authorized,
          captured_amount: t.captured,
          refunded_amount: t.refunds.filter((r) => r.status === 'succeeded').reduce((a, r) => a + r.amount, 0),
          external_identifier: t.externalId,
          metadata: t.metadata,
        },
      })
    case 'events':
      return of(200, 'events')
    case 'captures':
      return of(200, 'captures', { body: { items: t.captures.map((id) => ({ id })) } })
    case 'refunds':
      return of(200, 'refunds', { body: { items: t.refunds.map((r) => ({ id: r.id, amount: r.amount, status: r.status })) } })
    case 'refund': {
      const r = t.refunds.find((x) => x.id === ctx.sub?.id)
      return r === undefined ? of(404, 'unknown refund') : of(200, 'refund', { body: { id: r.id, transaction_id: t.id, amount: r.amount } })
    }
    case 'capture':
      return ctx.sub?.found === true ? of(200, 'capture', { body: { id: ctx.sub.id, transaction_id: t.id } }) : of(404, 'unknown capture')
    case 'actions':
      return of(200, 'no actions', { body: { items: [] } })
    case 'settlement':
      return of(404, 'no settlements')
  }
}
