import * as fc from 'fast-check'
import { TRANSACTION_STATUSES } from '@orka/domain'
import { Obj, Raw } from './model'
import { paymentMethodRequest } from './payment-method-requests'
import { FuzzRequest, fuzzRequest } from './requests'
import { cleanCreateSpec, createSpec, absent } from './transaction-cards'
import {
  AmountSpec,
  ListParam,
  ListSpec,
  OperationName,
  OperationSpec,
  Prop,
  ReadName,
  ReadSpec,
  Slot,
  TargetSpec,
  TxAuth,
  TxFuzzRequest,
  TxSpec,
  TxTransport,
} from './transaction-spec'
import { authOf, bad, ISO, metadataProp, ok, oneof, prop, text, unknownProp, uuid, w, WIRE } from './transaction-values'

/** Some gift card redemption's id (none of the fuzzed transactions has gift cards). */
const REDEMPTION_ID = '7c0b8f3e-2a4d-4b6e-9f1a-3c5d7e9b1a2c'

/**
 * Generated requests to the transaction routes (issue 23), from what each means: a payment by
 * card or checkout session, valid or with hostile properties (NUL, lone surrogates, huge and
 * fractional numbers, cards that fail the Luhn check or expired, unknown currencies, unknown
 * and unsupported properties, duplicate keys), captures, voids, refunds and updates of the
 * transactions the run made (and of unknown, foreign and malformed ids), reads, and lists with
 * hostile filters. Each is a `TxSpec` the model (transaction-model.ts) turns into the request
 * and predicts the answer of; the suite sends it like any other request and checks both.
 */

const target: fc.Arbitrary<TargetSpec> = oneof(
  w(
    16,
    fc.record({
      k: fc.constant('pooled' as const),
      pick: fc.nat(1 << 20),
      upper: oneof(w(5, fc.constant(false)), w(1, fc.constant(true))),
    }),
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
        '11111111-1111-4111-8111-111111111111x',
        'a'.repeat(300),
        '%00',
        '%ED%A0%80',
        '%E2%82%AC',
        '__proto__',
      )
      .map((segment) => ({ k: 'malformed' as const, segment })),
  ),
)
const opAmount: fc.Arbitrary<AmountSpec> = oneof(
  w(4, fc.constant({ k: 'absent' as const })),
  w(1, fc.constant({ k: 'null' as const })),
  w(
    4,
    fc.double({ min: 0.05, max: 1, noNaN: true }).map((share) => ({ k: 'share' as const, share })),
  ),
  w(1, fc.constant({ k: 'over' as const })),
  w(
    2,
    fc.constantFrom(200_011, 200_003, 300_001, 300_011, 400_007).map((amount) => ({ k: 'fixed' as const, amount })),
  ),
  w(
    1,
    fc.constantFrom<unknown>(0, -1, 1.5, '5', 100_000_000, true, new Raw('1e400')).map((tree) => ({ k: 'bad' as const, tree })),
  ),
)
const flag = (key: string, fine: boolean) =>
  fc.constantFrom<Prop>(ok(key, fine), { key, tree: !fine, effect: '400', value: !fine }, bad(key, null), bad(key, 'yes'))
const OPERATION_PROPS: Record<OperationName, fc.Arbitrary<Prop[]>> = {
  capture: fc
    .tuple(
      absent(flag('final', true), 3),
      absent(flag('reauthorize_if_authorization_expired', false), 1),
      absent(text('external_identifier', 200), 2),
      absent(
        fc
          .tuple(fc.constantFrom('airline', 'cart_items'), fc.constantFrom<unknown>(null, new Obj([]), []))
          .map(([k, v]): Prop => (v === null ? ok(k, null) : { key: k, tree: v, effect: '400', value: v })),
        1,
      ),
      absent(unknownProp, 1),
    )
    .map((ps) => ps.filter((p): p is Prop => p !== null)),
  void: fc.constant([]),
  refund: fc
    .tuple(
      absent(text('reason', 200), 3),
      absent(text('external_identifier', 200), 2),
      absent(prop('target_type', fc.constant('payment-method'), fc.constantFrom<unknown>(null, 'card', '')), 2),
      // A redemption's id without `target_type: gift-card-redemption` is a 400; not a UUID, a 422.
      absent(
        fc.constantFrom<Prop>(
          ok('target_id', null),
          { key: 'target_id', tree: 'pm-1', effect: '422', value: 'pm-1' },
          { key: 'target_id', tree: REDEMPTION_ID, effect: '400', value: REDEMPTION_ID },
        ),
        1,
      ),
      absent(unknownProp, 1),
    )
    .map((ps) => ps.filter((p): p is Prop => p !== null)),
  refundAll: fc
    .tuple(absent(text('reason', 200), 3), absent(text('external_identifier', 200), 2), absent(unknownProp, 1))
    .map((ps) => ps.filter((p): p is Prop => p !== null)),
  update: fc
    .tuple(
      absent(text('external_identifier', 200), 5),
      absent(metadataProp, 5),
      absent(
        fc.constantFrom<Prop>(ok('connection_options', null), { key: 'connection_options', tree: new Obj([]), effect: '400', value: {} }),
        1,
      ),
      absent(unknownProp, 1),
    )
    .map((ps) => ps.filter((p): p is Prop => p !== null)),
  cancel: fc.constantFrom<Prop[]>([], [ok('reason', 'x')]),
}
const operationSpec: fc.Arbitrary<OperationSpec> = fc
  .constantFrom<OperationName>(
    'capture',
    'capture',
    'capture',
    'void',
    'void',
    'refund',
    'refund',
    'refund',
    'refundAll',
    'update',
    'update',
    'cancel',
  )
  .chain((op) =>
    fc.record({
      op: fc.constant(op),
      target,
      amount:
        op === 'capture' || op === 'refund'
          ? opAmount
          : op === 'refundAll'
            ? oneof(w(9, fc.constant({ k: 'absent' as const })), w(1, fc.constant({ k: 'fixed' as const, amount: 5 })))
            : fc.constant({ k: 'absent' as const }),
      props: OPERATION_PROPS[op],
      bodyless: oneof(w(3, fc.constant(false)), w(1, fc.constant(true))),
      prefer: fc.boolean(),
    }),
  )
const readSpec: fc.Arbitrary<ReadSpec> = fc.record({
  op: fc.constant('read' as const),
  read: fc.constantFrom<ReadName>(
    'get',
    'get',
    'get',
    'events',
    'captures',
    'refunds',
    'refund',
    'refundById',
    'capture',
    'actions',
    'settlement',
  ),
  target,
  known: oneof(w(4, fc.constant(true)), w(1, fc.constant(false))),
})

/** What a status filter may name: the statuses Orka's flow produces. */
const STATUSES: string[] = [...TRANSACTION_STATUSES]
const filter = (name: string, value: string | Slot, meaning: unknown = value): ListParam => ({ name, value, filter: meaning })
const fault = (name: string, value: string, loc: readonly (string | number)[] = ['query', name]): ListParam => ({ name, value, fault: loc })
const encodedFault = (name: string, value: string): ListParam => ({ name, value, encoded: true, fault: ['query', name] })
const listParam: fc.Arbitrary<readonly ListParam[]> = oneof(
  w(
    4,
    fc.subarray(STATUSES, { minLength: 1, maxLength: 3 }).map((s) => [filter('status', s.join(','), s)]),
  ),
  w(
    1,
    fc.subarray(STATUSES, { minLength: 2, maxLength: 2 }).map((s) => s.map((x) => filter('status', x, [x]))),
  ),
  w(
    1,
    fc
      .tuple(fc.constantFrom(...STATUSES), fc.constantFrom('nope', '', 'AUTHORIZATION_SUCCEEDED', 'capture_succeeded '))
      .map(([good, nope]) => [fault('status', `${good},${nope}`, ['query', 'status', 1])]),
  ),
  w(
    3,
    fc
      .tuple(fc.constantFrom('amount_gte', 'amount_lte'), fc.integer({ min: 0, max: 2_000_000 }))
      .map(([n, v]) => [filter(n, String(v), v)]),
  ),
  w(
    1,
    fc
      .tuple(fc.constantFrom('amount_gte', 'amount_lte'), fc.constantFrom('-1', '1.5', 'abc', '100000000', ''))
      .map(([n, v]) => [fault(n, v)]),
  ),
  w(
    2,
    fc.subarray(ISO, { minLength: 1, maxLength: 2 }).map((c) => [filter('currency', c.join(','), c)]),
  ),
  w(
    1,
    fc
      .tuple(fc.constantFrom(...ISO), fc.constantFrom('usd', 'XYZ', ''))
      .map(([good, bad]) => [fault('currency', `${good},${bad}`, ['query', 'currency', 1])]),
  ),
  w(
    1,
    fc
      .constantFrom('search', 'amount_eq', 'metadata', 'payment_method_label', 'payment_service_id')
      .map((n) => [{ name: n, value: 'x', refused: true }]),
  ),
  w(
    2,
    fc.constantFrom<string | Slot>(new Slot('externalId'), 'ext-none', '\u{1f600}').map((e) => [filter('external_identifier', e)]),
  ),
  w(
    1,
    fc.constantFrom('', 'x'.repeat(201)).map((v) => [fault('external_identifier', v)]),
  ),
  w(
    1,
    fc.constantFrom('%00', '%ED%A0%80', 'a%00').map((v) => [encodedFault('external_identifier', v)]),
  ),
  w(
    2,
    fc.constantFrom(new Slot('buyerId'), new Slot('buyerIdUpper')).map((b) => [filter('buyer_id', b)]),
  ),
  w(
    1,
    uuid.map((u) => [filter('buyer_id', u)]),
  ),
  w(
    1,
    fc.constantFrom('x', '11111111111141118111111111111111').map((v) => [fault('buyer_id', v)]),
  ),
  w(1, fc.constant([filter('buyer_external_identifier', new Slot('buyerExternal'))])),
  w(
    1,
    fc.constantFrom<ListParam>(filter('checkout_session_id', new Slot('sessionId')), fault('checkout_session_id', 'x')).map((p) => [p]),
  ),
  w(
    2,
    fc
      .tuple(fc.constantFrom('created_at_gte', 'created_at_lte'), fc.integer({ min: -3, max: 3 }))
      .map(([n, hours]) => [filter(n, new Slot('now', hours))]),
  ),
  w(
    1,
    fc
      .tuple(fc.constantFrom('created_at_gte', 'created_at_lte'), fc.constantFrom('abc', 'yesterday', '2026-13-45T00:00:00Z', '1700000000'))
      .map(([n, v]) => [fault(n, v)]),
  ),
  w(
    2,
    fc.integer({ min: 1, max: 100 }).map((n) => [{ name: 'limit', value: String(n) }]),
  ),
  w(
    1,
    fc.constantFrom('0', '101', '-1', 'x', '1.5').map((v) => [fault('limit', v)]),
  ),
  w(
    1,
    fc.constantFrom('zz', '__proto__', 'sort').map((n) => [{ name: n, value: 'x' }]),
  ),
)
const listSpec: fc.Arbitrary<ListSpec> = fc.record({
  op: fc.constant('list' as const),
  params: fc.array(listParam, { maxLength: 3 }).map((ps) => ps.flat()),
  cursor: oneof(
    w(6, fc.constant('none' as const)),
    w(3, fc.constant('same' as const)),
    w(1, fc.constantFrom('other' as const, 'garbage' as const)),
  ),
})

const AUTH_CREATE: readonly [number, TxAuth][] = [
  [40, 'admin'],
  [5, 'adminAcme'],
  [3, 'acmeAdmin'],
  [4, 'embed'],
  [2, 'embedPinned'],
  [2, 'embedBuyer'],
  [1, 'acmeAdminOnDefault'],
  [1, 'readOnly'],
  [1, 'giftCardOperator'],
  [1, 'narrow'],
  [1, 'none'],
  [1, 'expired'],
  [1, 'badSignature'],
]
const AUTH_CLEAN: readonly [number, TxAuth][] = [
  [12, 'admin'],
  [3, 'adminAcme'],
  [1, 'embed'],
]
const AUTH_OTHER: readonly [number, TxAuth][] = [
  [40, 'admin'],
  [3, 'adminAcme'],
  [3, 'readOnly'],
  [3, 'embed'],
  [1, 'acmeAdminOnDefault'],
  [1, 'giftCardOperator'],
  [1, 'narrow'],
  [1, 'none'],
  [1, 'expired'],
]
const transport = (table: readonly [number, TxAuth][], keyed: boolean): fc.Arbitrary<TxTransport> =>
  fc.record({
    auth: authOf(table),
    key: keyed
      ? oneof(
          w(8, fc.constant('none' as const)),
          w(6, fc.constant('fresh' as const)),
          w(1, fc.constant('bad' as const)),
          w(2, fc.constant('replay' as const)),
          w(1, fc.constant('reuse' as const)),
        )
      : fc.constant('none' as const),
    ...WIRE,
  })

/** A placeholder request (the model makes the real one): what fast-check shows of the spec, and the family for the histogram. */
const txRequest = (spec: fc.Arbitrary<TxSpec>, t: fc.Arbitrary<TxTransport>): fc.Arbitrary<FuzzRequest> =>
  fc.tuple(spec, t).map(([s, tr]): TxFuzzRequest => ({
    family: familyOf(s),
    method: 'POST',
    path: ['transactions'],
    trailingSlash: false,
    query: [],
    auth: { kind: 'none' },
    merchant: [],
    contentType: [],
    headers: [],
    headerCase: 'lower',
    body: null,
    tx: { spec: s, transport: tr },
  }))

const FAMILY: Record<TxSpec['op'], string> = {
  create: 'create_transaction',
  capture: 'capture_transaction',
  void: 'void_transaction',
  refund: 'create_transaction_refund',
  refundAll: 'create_full_transaction_refund',
  update: 'update_transaction',
  cancel: 'cancel_transaction',
  read: 'read transaction',
  list: 'list_transactions',
}
/** The histogram's name: the operation, what it pays with or reads, and that the model checks it. */
const familyOf = (s: TxSpec) => `${FAMILY[s.op]}${s.op === 'create' ? ` (${s.pm.kind})` : s.op === 'read' ? ` (${s.read})` : ''} [model]`
export const transactionRequest: fc.Arbitrary<FuzzRequest> = oneof(
  w(8, txRequest(cleanCreateSpec, transport(AUTH_CLEAN, true))),
  w(8, txRequest(createSpec, transport(AUTH_CREATE, true))),
  w(9, txRequest(operationSpec, transport(AUTH_OTHER, true))),
  w(5, txRequest(readSpec, transport(AUTH_OTHER, false))),
  w(3, txRequest(listSpec, transport(AUTH_OTHER, false))),
)

/**
 * Every family of requests.ts, the transaction routes (about a fifth of all requests) and the
 * payment method routes' model (about a tenth; requests.ts sends them hostile requests too).
 */
export const anyRequest: fc.Arbitrary<FuzzRequest> = oneof(w(6, fuzzRequest), w(2, transactionRequest), w(1, paymentMethodRequest))
