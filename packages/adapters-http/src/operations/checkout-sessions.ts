import {
  canonicalUuid,
  CheckoutSession,
  CheckoutSessionCreate,
  CheckoutSessionFields,
  CheckoutSessionUpdate,
  MAX_EXPIRES_IN_S,
  MIN_EXPIRES_IN_S,
  keyActor,
} from '@orka/domain'
import { defineOperation, Tag } from './operation'

const CHECKOUT_SESSIONS: Tag = {
  name: 'Checkout sessions',
  description:
    'A checkout in progress: what is to be paid, and the card and gift cards a browser sends through Secure Fields, held sealed ' +
    'until a payment takes them.',
}

/** Path ids are UUIDs compared case-insensitively: decoded to lower case, the form stored ids have. */
const SESSION_ID = { session_id: { codec: canonicalUuid, description: 'The ID of the checkout session.' } }

export const createCheckoutSession = defineOperation({
  method: 'POST',
  path: '/checkout/sessions',
  scope: 'checkout-sessions.write',
  operationId: 'create_checkout_session',
  doc: {
    tag: CHECKOUT_SESSIONS,
    summary: 'Create checkout session',
    description:
      'Creates a checkout session. The body is optional: none, or an empty one, is a session with nothing set that expires in ' +
      `${MIN_EXPIRES_IN_S} seconds. \`expires_in\` is ${MIN_EXPIRES_IN_S}-${MAX_EXPIRES_IN_S} seconds. \`airline\` and a buyer's ` +
      '`shipping_details` are not supported: set, they are a `400` naming them.',
  },
  body: CheckoutSessionCreate,
  optionalBody: true,
  success: { status: 201, codec: CheckoutSession, description: 'The new checkout session.' },
  handle: (u) => (req) =>
    u.createCheckoutSession({
      merchantAccountId: req.access.merchantAccount.id,
      actor: keyActor(req.access.principal.key),
      input: req.body,
    }),
})

export const getCheckoutSession = defineOperation({
  method: 'GET',
  path: '/checkout/sessions/{session_id}',
  scope: 'checkout-sessions.read',
  operationId: 'get_checkout_session',
  doc: {
    tag: CHECKOUT_SESSIONS,
    summary: 'Get checkout session',
    description:
      'Reads a checkout session. Of its card only the scheme, BIN, last 4 digits and fingerprint are shown, of its gift cards ' +
      '(`gift_cards`, absent when none) the BIN, sub-BIN, last 4 digits and amount. Unknown, expired, deleted and another merchant ' +
      "account's sessions are `404`.",
  },
  params: SESSION_ID,
  success: { status: 200, codec: CheckoutSession, description: 'The checkout session.' },
  handle: (u) => (req) => u.getCheckoutSession({ merchantAccountId: req.access.merchantAccount.id, id: req.params.session_id }),
})

export const updateCheckoutSession = defineOperation({
  method: 'PUT',
  path: '/checkout/sessions/{session_id}',
  scope: 'checkout-sessions.write',
  operationId: 'update_checkout_session',
  doc: {
    tag: CHECKOUT_SESSIONS,
    summary: 'Update checkout session',
    description:
      'Merges the body into the session: the properties given replace its own (`null` clears one), the others stay. ' +
      '`expires_in` moves `expires_at` to that many seconds from now, but never past the 5 minutes card data is kept.',
  },
  params: SESSION_ID,
  body: CheckoutSessionUpdate,
  success: { status: 200, codec: CheckoutSession, description: 'The updated checkout session.' },
  handle: (u) => (req) =>
    u.updateCheckoutSession({
      merchantAccountId: req.access.merchantAccount.id,
      actor: keyActor(req.access.principal.key),
      id: req.params.session_id,
      input: req.body,
    }),
})

export const deleteCheckoutSession = defineOperation({
  method: 'DELETE',
  path: '/checkout/sessions/{session_id}',
  scope: 'checkout-sessions.write',
  operationId: 'delete_checkout_session',
  doc: {
    tag: CHECKOUT_SESSIONS,
    summary: 'Delete checkout session',
    description: 'Deletes a checkout session and its card data for good. A second delete is a `404`.',
  },
  params: SESSION_ID,
  success: { status: 204, description: 'Deleted; no body.' },
  handle: (u) => (req) =>
    u.deleteCheckoutSession({
      merchantAccountId: req.access.merchantAccount.id,
      actor: keyActor(req.access.principal.key),
      id: req.params.session_id,
    }),
})

const fields = (method: 'PUT' | 'POST', operationId: string, summary: string) =>
  defineOperation({
    method,
    path: '/checkout/sessions/{session_id}/fields',
    scope: 'checkout-sessions.write',
    tokenOptional: true,
    operationId,
    rateLimit: 'checkout-session',
    doc: {
      tag: CHECKOUT_SESSIONS,
      summary,
      description:
        'Secure Fields: puts a card, gift cards (`gift_cards`, 1-10 of `{number, pin, amount}`) or both on the session, replacing ' +
        'all card data before. **No token is needed**: the session id is the capability, whatever merchant account the session is ' +
        'of (a token sent anyway must be valid and grant the scope). Card data is sealed and never shown again: the session shows ' +
        "the card's scheme, BIN, last 4 digits and fingerprint, each gift card's BIN, sub-BIN, last 4 digits and amount, and now " +
        'expires 5 minutes from now. A card past its expiry month is a `400` on `payment_method.expiration_date`. A stored payment ' +
        'method, `{method: "id", id, security_code?}`, may stand for the card: one of the session\'s merchant account that can pay ' +
        '(`succeeded`, not past its expiry month; else a `400` on `payment_method.id`, type `unknown_payment_method`); the session ' +
        'then shows that method, and the payment made from the session checks that its token may use it (an `embed` token: only ' +
        "its claim's buyer's). The security code is sealed with the session and never kept past the payment. Gift cards are checked " +
        'as a payment checks them, against the ' +
        "session's `amount` when it has one (`400` naming the item or `payment_method`): the same number twice, more than the " +
        'amount, no card for the rest, or a card for nothing.',
    },
    params: SESSION_ID,
    body: CheckoutSessionFields,
    success: { status: 204, description: 'The card data is on the session; no body.' },
    handle: (u) => (req) => u.putCheckoutSessionFields({ id: req.params.session_id, input: req.body }),
  })

export const updateCheckoutSessionFields = fields('PUT', 'update_checkout_session_fields', 'Update checkout session fields')
/** The same, as the spec's Limits table names it. */
export const submitCheckoutSessionFields = fields('POST', 'submit_checkout_session_fields', 'Submit checkout session fields')

export const CHECKOUT_SESSION_OPERATIONS = [
  createCheckoutSession,
  getCheckoutSession,
  updateCheckoutSession,
  deleteCheckoutSession,
  updateCheckoutSessionFields,
  submitCheckoutSessionFields,
]
