import * as fc from 'fast-check'
import { PAYMENT_METHOD_STATUSES } from '@orka/domain'
import type { FuzzRequest } from './requests'
import {
  BuyerListSpec,
  OwnerSpec,
  PmAuth,
  PmFuzzRequest,
  PmListSpec,
  PmSpec,
  PmTarget,
  PmTransport,
  StoreSpec,
} from './payment-method-spec'
import { card, sessionCard } from './transaction-cards'
import { ListParam, Prop, Slot } from './transaction-spec'
import { authOf, bad, ok, oneof, uuid, w, WIRE, word } from './transaction-values'

/**
 * Generated requests to the payment method routes (issue 26), from what each means: cards to
 * store (valid ones for no buyer or the model's buyer, the same card again, a checkout session's
 * card, and every way of breaking one: numbers that fail the Luhn check or are 12 digits, bad
 * and past expiry dates, bad security codes, unknown methods, unknown and faulty buyers, unknown
 * properties), reads, changes and deletes of the methods the run stored (and of unknown,
 * deleted, foreign and malformed ids), and both lists with good and hostile filters. Each is a
 * `PmSpec` the model (payment-method-model.ts) turns into the request and predicts the answer of.
 */

const owner: fc.Arbitrary<OwnerSpec> = oneof(
  w(6, fc.constant<OwnerSpec>('none')),
  w(1, fc.constant<OwnerSpec>('nulls')),
  w(4, fc.constant<OwnerSpec>('buyerId')),
  w(1, fc.constant<OwnerSpec>('buyerIdUpper')),
  w(2, fc.constant<OwnerSpec>('buyerExternal')),
  w(1, fc.constantFrom<OwnerSpec>('unknownId', 'unknownExternal')),
  w(1, fc.constantFrom<OwnerSpec>('both', 'badId', 'badExternal')),
)

/** `external_identifier`: text of 1-200 characters or null, and each way past that. */
const externalIdentifier: fc.Arbitrary<Prop> = oneof(
  w(
    6,
    word(1, 16).map((s) => ok('external_identifier', `ext-${s}`)),
  ),
  w(
    1,
    fc.constantFrom(ok('external_identifier', null), ok('external_identifier', 'x'.repeat(200)), ok('external_identifier', '\u{1f600}$.a')),
  ),
  w(
    1,
    fc.constantFrom<unknown>('', 'x'.repeat(201), 'a\u0000b', 5, ['x']).map((v) => bad('external_identifier', v)),
  ),
)
const unknownKey = fc
  .tuple(
    oneof(
      word(1, 8).map((s) => `zz_${s}`),
      fc.constantFrom('__proto__', 'constructor', 'Number', 'cvv', 'pin'),
    ),
    fc.constantFrom<unknown>(1, 'x', null),
  )
  .map(([k, v]) => bad(k, v))
/** A card's other properties: `card_type` (only null), the identifier, unknown keys. */
const cardExtras: fc.Arbitrary<Prop[]> = fc
  .tuple(
    oneof(w(7, fc.constant(null)), w(2, externalIdentifier)),
    oneof(w(9, fc.constant(null)), w(1, fc.constantFrom(ok('card_type', null), bad('card_type', 'credit')))),
    oneof(w(12, fc.constant(null)), w(1, unknownKey)),
  )
  .map((ps) => ps.filter((p): p is Prop => p !== null))
const sessionExtras: fc.Arbitrary<Prop[]> = fc
  .tuple(
    oneof(w(7, fc.constant(null)), w(2, externalIdentifier)),
    oneof(w(12, fc.constant(null)), w(1, fc.constantFrom(bad('number', '4111111111111111'), bad('security_code', '123')))),
  )
  .map((ps) => ps.filter((p): p is Prop => p !== null))

const storeSpec: fc.Arbitrary<StoreSpec> = oneof(
  w(
    10,
    fc.record({
      op: fc.constant('store' as const),
      source: card.map((c) => ({ k: 'card' as const, card: c })),
      owner,
      extras: cardExtras,
    }),
  ),
  w(
    3,
    fc.record({
      op: fc.constant('store' as const),
      source: fc.record({ k: fc.constant('again' as const), pick: fc.nat(1 << 20), months: fc.integer({ min: 0, max: 120 }) }),
      owner: fc.constant<OwnerSpec>('none'),
      extras: fc.constant([]),
    }),
  ),
  w(
    2,
    fc.record({
      op: fc.constant('store' as const),
      source: fc.record({
        k: fc.constant('session' as const),
        state: oneof(
          w(6, fc.constant('fresh' as const)),
          w(1, fc.constantFrom('empty' as const, 'unknown' as const, 'otherAccount' as const, 'malformed' as const)),
        ),
        card: sessionCard,
      }),
      owner,
      extras: sessionExtras,
    }),
  ),
  w(
    1,
    fc.record({
      op: fc.constant('store' as const),
      source: fc
        .constantFrom<unknown>(undefined, 'CARD', 'paypal', 'id', null, 1, '')
        .map((method) => ({ k: 'badMethod' as const, method })),
      owner,
      extras: fc.constant([]),
    }),
  ),
)

const target: fc.Arbitrary<PmTarget> = oneof(
  w(
    14,
    fc.record({
      k: fc.constant('pooled' as const),
      pick: fc.nat(1 << 20),
      upper: oneof(w(5, fc.constant(false)), w(1, fc.constant(true))),
    }),
  ),
  w(
    2,
    fc.nat(1 << 20).map((pick) => ({ k: 'deleted' as const, pick })),
  ),
  w(
    1,
    uuid.map((id) => ({ k: 'unknown' as const, id })),
  ),
  w(
    1,
    fc.nat(1 << 20).map((pick) => ({ k: 'otherAccount' as const, pick })),
  ),
  w(
    1,
    fc
      .constantFrom(
        'abc',
        'null',
        '11111111111141118111111111111111',
        '%7B11111111-1111-4111-8111-111111111111%7D',
        'a'.repeat(300),
        '%00',
        '%E2%82%AC',
        '__proto__',
      )
      .map((segment) => ({ k: 'malformed' as const, segment })),
  ),
)

const SCHEMES = ['visa', 'mastercard', 'amex', 'discover', 'jcb', 'diners-club', 'unionpay', 'maestro']
/** `PUT` properties: absent leaves one, null clears it (not the expiry, which cannot be cleared). */
const nullableText = (key: string) =>
  oneof(
    w(
      5,
      word(1, 16).map((s) => ok(key, `${key.slice(0, 3)}-${s}`)),
    ),
    w(2, fc.constant(ok(key, null))),
    w(
      1,
      fc.constantFrom<unknown>('', 'x'.repeat(201), 'a\u0000', 7).map((v) => bad(key, v)),
    ),
  )
const updateProps: fc.Arbitrary<Prop[]> = fc
  .tuple(
    oneof(
      w(4, fc.constant(null)),
      w(
        6,
        fc.integer({ min: -24, max: 120 }).map((months) => ({ months })),
      ),
      w(
        1,
        fc.constantFrom<unknown>('13/30', '1/30', '12/2035', null, '', 1230).map((v) => bad('expiration_date', v)),
      ),
    ),
    oneof(w(5, fc.constant(null)), w(4, nullableText('external_identifier'))),
    oneof(w(7, fc.constant(null)), w(2, nullableText('scheme_transaction_id'))),
    oneof(
      w(7, fc.constant(null)),
      w(
        2,
        fc.constantFrom<string | null>(null, ...SCHEMES).map((v) => ok('scheme_transaction_id_scheme', v)),
      ),
      w(
        1,
        fc.constantFrom<unknown>('VISA', 'amex ', '', 1).map((v) => bad('scheme_transaction_id_scheme', v)),
      ),
    ),
    oneof(w(7, fc.constant(null)), w(2, nullableText('transaction_link_id'))),
    oneof(w(12, fc.constant(null)), w(1, unknownKey), w(1, fc.constantFrom(bad('number', '4111111111111111'), bad('buyer_id', null)))),
  )
  .map(([exp, ...rest]) => [
    ...(exp === null ? [] : 'months' in exp ? [expiryProp(exp.months)] : [exp]),
    ...rest.filter((p): p is Prop => p !== null),
  ])
/** An expiry `months` from now, made when the request is (a `Slot` of the model's clock). */
const expiryProp = (months: number): Prop => ({
  key: 'expiration_date',
  tree: new Slot('now', months),
  effect: 'ok',
  value: new Slot('now', months),
})

const filter = (name: string, value: string | Slot): ListParam => ({ name, value, filter: value })
const fault = (name: string, value: string, loc: readonly (string | number)[] = ['query', name]): ListParam => ({ name, value, fault: loc })
const STATUSES = [...PAYMENT_METHOD_STATUSES]
const buyerParams: fc.Arbitrary<readonly ListParam[]> = oneof(
  w(
    6,
    fc.constantFrom(new Slot('buyerId'), new Slot('buyerIdUpper')).map((v) => [filter('buyer_id', v)]),
  ),
  w(3, fc.constant([filter('buyer_external_identifier', new Slot('buyerExternal'))])),
  w(1, fc.constant([filter('buyer_id', new Slot('buyerId')), filter('buyer_external_identifier', new Slot('buyerExternal'))])),
  w(
    1,
    uuid.map((u) => [filter('buyer_id', u)]),
  ),
  w(
    1,
    word(1, 10).map((s) => [filter('buyer_external_identifier', `nobody-${s}`)]),
  ),
  w(
    1,
    fc
      .constantFrom<ListParam>(
        fault('buyer_id', 'x'),
        fault('buyer_id', '11111111111141118111111111111111'),
        fault('buyer_external_identifier', ''),
      )
      .map((p) => [p]),
  ),
)
const listParams: fc.Arbitrary<ListParam[]> = fc
  .tuple(
    oneof(w(2, fc.constant([])), w(8, buyerParams)),
    oneof(
      w(4, fc.constant([])),
      w(
        3,
        fc.subarray(STATUSES, { minLength: 1, maxLength: 3 }).map((s) => [filter('status', s.join(','))]),
      ),
      w(
        1,
        fc.subarray(STATUSES, { minLength: 2, maxLength: 2 }).map((s) => s.map((x) => filter('status', x))),
      ),
      w(
        1,
        fc
          .tuple(fc.constantFrom(...STATUSES), fc.constantFrom('nope', '', 'SUCCEEDED', 'succeeded '))
          .map(([good, nope]) => [fault('status', `${good},${nope}`, ['query', 'status', 1])]),
      ),
    ),
    oneof(
      w(6, fc.constant([])),
      w(1, fc.constant([filter('external_identifier', new Slot('externalId', 0))])),
      w(
        1,
        fc.constantFrom('ext-none', '\u{1f600}').map((v) => [filter('external_identifier', v)]),
      ),
      w(
        1,
        fc.constantFrom('', 'x'.repeat(201)).map((v) => [fault('external_identifier', v)]),
      ),
    ),
    oneof(
      w(5, fc.constant([])),
      w(
        3,
        fc.integer({ min: 1, max: 100 }).map((n) => [{ name: 'limit', value: String(n) }]),
      ),
      w(
        1,
        fc.constantFrom('0', '101', '-1', 'x', '1.5').map((v) => [fault('limit', v)]),
      ),
    ),
  )
  .map((ps) => ps.flat())
const buyerListParams: fc.Arbitrary<ListParam[]> = fc
  .tuple(
    oneof(w(12, buyerParams), w(1, fc.constant([]))),
    oneof(
      w(5, fc.constant([])),
      w(2, fc.constant([{ name: 'sort_by', value: 'last_used_at' }])),
      w(
        1,
        fc.constantFrom('usage_count', '', 'LAST_USED_AT').map((v) => [fault('sort_by', v)]),
      ),
    ),
    oneof(
      w(5, fc.constant([])),
      w(
        2,
        fc.constantFrom('asc', 'desc').map((v) => [{ name: 'order_by', value: v }]),
      ),
      w(
        1,
        fc.constantFrom('up', '', 'ASC').map((v) => [fault('order_by', v)]),
      ),
    ),
    oneof(
      w(6, fc.constant([])),
      w(
        2,
        fc.constantFrom('US', 'GB', 'DE').map((v) => [{ name: 'country', value: v }]),
      ),
      w(
        1,
        fc.constantFrom('gb', 'GBR', '').map((v) => [fault('country', v)]),
      ),
    ),
    oneof(
      w(6, fc.constant([])),
      w(
        2,
        fc.constantFrom('USD', 'EUR', 'JPY').map((v) => [{ name: 'currency', value: v }]),
      ),
      w(
        1,
        fc.constantFrom('usd', 'XYZ', '').map((v) => [fault('currency', v)]),
      ),
    ),
  )
  .map((ps) => ps.flat())

const AUTH_WRITE: readonly [number, PmAuth][] = [
  [30, 'admin'],
  [6, 'adminAcme'],
  [5, 'embed'],
  [4, 'embedBuyer'],
  [1, 'readOnly'],
  [1, 'narrow'],
  [1, 'giftCardOperator'],
  [1, 'none'],
  [1, 'expired'],
]
const AUTH_READ: readonly [number, PmAuth][] = [
  [30, 'admin'],
  [5, 'adminAcme'],
  [4, 'readOnly'],
  [3, 'embedBuyer'],
  [2, 'embed'],
  [1, 'narrow'],
  [1, 'giftCardOperator'],
  [1, 'none'],
  [1, 'expired'],
]
const transport = (table: readonly [number, PmAuth][], keyed: boolean): fc.Arbitrary<PmTransport> =>
  fc.record({
    auth: authOf(table),
    key: keyed
      ? oneof(
          w(10, fc.constant('none' as const)),
          w(4, fc.constant('fresh' as const)),
          w(1, fc.constant('bad' as const)),
          w(2, fc.constant('replay' as const)),
        )
      : fc.constant('none' as const),
    ...WIRE,
  })

const FAMILY: Record<PmSpec['op'], string> = {
  store: 'create_payment_method',
  get: 'get_payment_method',
  update: 'update_payment_method',
  delete: 'delete_payment_method',
  list: 'list_payment_methods',
  buyerList: 'list_buyer_payment_methods',
}
const familyOf = (s: PmSpec) => `${FAMILY[s.op]}${s.op === 'store' ? ` (${s.source.k})` : ''} [model]`

/** A placeholder request (the model makes the real one): what fast-check shows of the spec, and the family for the histogram. */
const pmRequest = (spec: fc.Arbitrary<PmSpec>, t: fc.Arbitrary<PmTransport>): fc.Arbitrary<FuzzRequest> =>
  fc.tuple(spec, t).map(([s, tr]): PmFuzzRequest => ({
    family: familyOf(s),
    method: 'POST',
    path: ['payment-methods'],
    trailingSlash: false,
    query: [],
    auth: { kind: 'none' },
    merchant: [],
    contentType: [],
    headers: [],
    headerCase: 'lower',
    body: null,
    pm: { spec: s, transport: tr },
  }))

export const paymentMethodRequest: fc.Arbitrary<FuzzRequest> = oneof(
  w(10, pmRequest(storeSpec, transport(AUTH_WRITE, true))),
  w(
    3,
    pmRequest(
      target.map((t): PmSpec => ({ op: 'get', target: t })),
      transport(AUTH_READ, false),
    ),
  ),
  w(
    3,
    pmRequest(
      fc.tuple(target, updateProps).map(([t, props]): PmSpec => ({ op: 'update', target: t, props })),
      transport(AUTH_WRITE, false),
    ),
  ),
  w(
    1,
    pmRequest(
      target.map((t): PmSpec => ({ op: 'delete', target: t })),
      transport(AUTH_WRITE, false),
    ),
  ),
  w(
    3,
    pmRequest(
      listParams.map((params): PmListSpec => ({ op: 'list', params })),
      transport(AUTH_READ, false),
    ),
  ),
  w(
    3,
    pmRequest(
      buyerListParams.map((params): BuyerListSpec => ({ op: 'buyerList', params })),
      transport(AUTH_READ, false),
    ),
  ),
)
