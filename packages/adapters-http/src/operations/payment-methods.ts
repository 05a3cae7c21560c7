import * as t from 'io-ts'
import {
  BuyerCreate,
  BuyerPaymentMethodsSortBy,
  canonicalUuid,
  CardPaymentMethodStore,
  cardReach,
  Country,
  Currency,
  MAX_BUYER_PAYMENT_METHODS,
  ONE_BUYER_RULES,
  OrderBy,
  pageOf,
  PaymentMethod,
  PaymentMethodCreate,
  PaymentMethodStatus,
  PaymentMethodSummaries,
  PaymentMethodUpdate,
  keyActor,
} from '@orka/domain'
import { listParam } from '../decode/decode'
import { BUYERS } from './buyers'
import { defineOperation, Tag } from './operation'
import { PAGE_QUERY } from './page'

const PAYMENT_METHODS: Tag = {
  name: 'Payment methods',
  description:
    "Cards on file: cards stored in the vault for the merchant account's buyers (or for none), which later payments name by id. " +
    'A stored card shows its scheme, BIN, last 4 digits, expiry and keyed fingerprint; its number is sealed and never shown again, ' +
    'and no security code is ever kept.',
}

/** What an embed token reaches of stored payment methods (see `cardReach`). */
const EMBED_READS =
  'An `embed` token reaches only the payment methods of the buyer its `embed` claim names (`buyer_id` or ' +
  "`buyer_external_identifier`): another buyer's are `404` to it, and a token naming no buyer is a `403`."

/** Path ids are UUIDs compared case-insensitively: decoded to lower case, the form stored ids have. */
const PAYMENT_METHOD_ID = { payment_method_id: { codec: canonicalUuid, description: 'The ID of the payment method.' } }

export const createPaymentMethod = defineOperation({
  method: 'POST',
  path: '/payment-methods',
  scope: 'payment-methods.write',
  operationId: 'create_payment_method',
  rateLimit: 'embed',
  doc: {
    tag: PAYMENT_METHODS,
    summary: 'Create payment method',
    description:
      'Stores a card in the vault, for no buyer or for one buyer (`buyer_id` or `buyer_external_identifier`): a card sent as ' +
      '`{method: "card", number, expiration_date, security_code?}`, or the card a checkout session holds, ' +
      '`{method: "checkout-session", id}` (the session gives it up: its card data is used once). The number is sealed and never ' +
      'shown again; the security code is used for nothing and never kept. The card is not checked at a card service, so it is ' +
      '`succeeded` at once; it pays a later transaction named by `{method: "id", id}`.\n\n' +
      'A number that fails the Luhn check or is not 13-19 digits, an expiry that is not `MM/YY`, a security code that is not 3-4 ' +
      'digits and unknown properties are a `422`; a card past its expiry month is a `400` on `expiration_date` (type ' +
      '`expired_card`), a checkout session that is unknown, expired or holds no card a `400` on `id` (type `no_card_data`), an ' +
      'unknown buyer a `404` whose detail names the field.\n\n' +
      'The vault holds one method per buyer and card: the same card stored again for the same buyer is that method, answered `201` ' +
      'as it is, its `expiration_date` moved to the one sent when that is later (a renewed card keeps its number). For another ' +
      'buyer, or for no buyer, it is another method. Subscribers receive `payment-method.created` for a new method only.\n\n' +
      'An `embed` token may store a card for no buyer or for the buyer its `embed` claim names; naming another buyer is a `403`, ' +
      'whether or not that buyer exists. With an `idempotency-key`, the same key and body replay the stored method ' +
      '(`Idempotent-Replayed: true`), another body with the key is a `400`, and a request while the first still runs is a `425`. ' +
      'Only a stored method is replayed: a refused request runs afresh when retried.',
  },
  idempotent: true,
  body: PaymentMethodCreate,
  success: {
    status: 201,
    codec: PaymentMethod,
    description: 'The stored payment method (the one already stored for this buyer and card).',
  },
  handle: (u) => (req) =>
    u.storePaymentMethod({
      merchantAccountId: req.access.merchantAccount.id,
      actor: keyActor(req.access.principal.key),
      input: req.body,
      idempotencyKey: req.idempotencyKey,
      reach: cardReach(req.access, 'payment-methods.write'),
    }),
})

// The filters have the constraints of the fields they filter on.
const identifier = CardPaymentMethodStore.inner.optional.external_identifier.inner

export const listPaymentMethods = defineOperation({
  method: 'GET',
  path: '/payment-methods',
  scope: 'payment-methods.read',
  operationId: 'list_payment_methods',
  doc: {
    tag: PAYMENT_METHODS,
    summary: 'List payment methods',
    description:
      'Lists the payment methods stored for the merchant account, newest first; every filter given must hold, and a cursor only serves ' +
      `the filters it was issued with. ${EMBED_READS}`,
  },
  query: {
    ...PAGE_QUERY,
    buyer_id: { codec: canonicalUuid, description: 'Only the methods stored for the buyer with this ID.' },
    buyer_external_identifier: {
      codec: BuyerCreate.optional.external_identifier.inner,
      description: 'Only the methods stored for the buyer with this `external_identifier` (none when the account has no such buyer).',
    },
    status: {
      codec: t.array(PaymentMethodStatus),
      description: 'Only methods in one of these statuses (repeat the parameter, or separate with commas).',
      parse: listParam,
    },
    external_identifier: { codec: identifier, description: 'Only the methods with this `external_identifier`.' },
  },
  success: { status: 200, codec: pageOf('PaymentMethods', PaymentMethod), description: 'A page of payment methods.' },
  handle: (u) => (req) => {
    const { buyer_id, buyer_external_identifier, status, external_identifier, ...page } = req.query
    return u.listPaymentMethods({
      merchantAccountId: req.access.merchantAccount.id,
      reach: cardReach(req.access, 'payment-methods.read'),
      filter: {
        ...(buyer_id === undefined ? {} : { buyer_id }),
        ...(buyer_external_identifier === undefined ? {} : { buyer_external_identifier }),
        ...(status === undefined ? {} : { status }),
        ...(external_identifier === undefined ? {} : { external_identifier }),
      },
      ...page,
    })
  },
})

export const getPaymentMethod = defineOperation({
  method: 'GET',
  path: '/payment-methods/{payment_method_id}',
  scope: 'payment-methods.read',
  operationId: 'get_payment_method',
  doc: {
    tag: PAYMENT_METHODS,
    summary: 'Get payment method',
    description: `A payment method stored for the merchant account; an unknown, deleted or another account's method is a \`404\`. ${EMBED_READS}`,
  },
  params: PAYMENT_METHOD_ID,
  success: { status: 200, codec: PaymentMethod, description: 'The payment method.' },
  handle: (u) => (req) =>
    u.getPaymentMethod({
      merchantAccountId: req.access.merchantAccount.id,
      id: req.params.payment_method_id,
      reach: cardReach(req.access, 'payment-methods.read'),
    }),
})

export const updatePaymentMethod = defineOperation({
  method: 'PUT',
  path: '/payment-methods/{payment_method_id}',
  scope: 'payment-methods.write',
  operationId: 'update_payment_method',
  doc: {
    tag: PAYMENT_METHODS,
    summary: 'Update payment method',
    description:
      'Changes what the body names: an absent property is left as it is, `null` clears it (the expiry cannot be cleared). ' +
      '`updated_at` moves. `expiration_date` is checked for its form only (`MM/YY`): a card past it is kept, and refused when it ' +
      "pays. An unknown, deleted or another account's method is a `404`. " +
      EMBED_READS,
  },
  params: PAYMENT_METHOD_ID,
  body: PaymentMethodUpdate,
  success: { status: 200, codec: PaymentMethod, description: 'The payment method as updated.' },
  handle: (u) => (req) =>
    u.updatePaymentMethod({
      merchantAccountId: req.access.merchantAccount.id,
      actor: keyActor(req.access.principal.key),
      id: req.params.payment_method_id,
      input: req.body,
      reach: cardReach(req.access, 'payment-methods.write'),
    }),
})

export const deletePaymentMethod = defineOperation({
  method: 'DELETE',
  path: '/payment-methods/{payment_method_id}',
  scope: 'payment-methods.write',
  operationId: 'delete_payment_method',
  doc: {
    tag: PAYMENT_METHODS,
    summary: 'Delete payment method',
    description:
      'Removes a stored payment method: its sealed number is destroyed, not hidden, it can pay no more (a payment naming it is a ' +
      '`400`), and a second delete is a `404`. Subscribers receive `payment-method.deleted`. Deleting a buyer deletes its methods ' +
      'with it. ' +
      EMBED_READS,
  },
  params: PAYMENT_METHOD_ID,
  success: { status: 204, description: 'Deleted; no body.' },
  handle: (u) => (req) =>
    u.deletePaymentMethod({
      merchantAccountId: req.access.merchantAccount.id,
      actor: keyActor(req.access.principal.key),
      id: req.params.payment_method_id,
      reach: cardReach(req.access, 'payment-methods.write'),
    }),
})

export const listBuyerPaymentMethods = defineOperation({
  method: 'GET',
  path: '/buyers/payment-methods',
  scope: 'payment-methods.read',
  operationId: 'list_buyer_payment_methods',
  doc: {
    tag: BUYERS,
    summary: 'List payment methods for a buyer',
    description:
      `The buyer's stored cards that can pay now: \`succeeded\` and not past their expiry month (at most its ` +
      `${MAX_BUYER_PAYMENT_METHODS} newest). An unknown buyer has no methods (\`items\` is empty). An \`embed\` token reads only ` +
      'the buyer its `embed` claim names (another buyer has no methods for it); one naming no buyer is a `403`.',
  },
  query: {
    buyer_id: { codec: canonicalUuid, description: 'The ID of the buyer.' },
    buyer_external_identifier: {
      codec: BuyerCreate.optional.external_identifier.inner,
      description: 'The `external_identifier` of the buyer.',
    },
    sort_by: {
      codec: BuyerPaymentMethodsSortBy,
      description: 'The field to sort the methods by (a method never used sorts as the oldest use); newest first when absent.',
    },
    order_by: { codec: OrderBy, default: 'desc', description: 'The direction to sort the methods in.' },
    country: {
      codec: Country,
      description: 'The country the buyer pays in. Accepted and checked, but it narrows nothing: a stored card pays in any country.',
    },
    currency: {
      codec: Currency,
      description: 'The currency the buyer pays in. Accepted and checked, but it narrows nothing: a stored card pays in any currency.',
    },
  },
  queryRules: ONE_BUYER_RULES,
  success: { status: 200, codec: PaymentMethodSummaries, description: "The buyer's usable payment methods." },
  handle: (u) => (req) => {
    const { buyer_id, buyer_external_identifier, sort_by, order_by } = req.query
    return u.listBuyerPaymentMethods({
      merchantAccountId: req.access.merchantAccount.id,
      buyer: buyer_id !== undefined ? { id: buyer_id } : { externalIdentifier: buyer_external_identifier ?? '' },
      sortBy: sort_by ?? null,
      orderBy: order_by ?? 'desc',
      reach: cardReach(req.access, 'payment-methods.read'),
    })
  },
})

export const PAYMENT_METHOD_OPERATIONS = [
  createPaymentMethod,
  listPaymentMethods,
  getPaymentMethod,
  updatePaymentMethod,
  deletePaymentMethod,
  listBuyerPaymentMethods,
]
