import {
  canonicalUuid,
  cardReach,
  GiftCard,
  GiftCardActivationCreate,
  GiftCardBalanceRequest,
  GiftCardCreate,
  GiftCardSummaries,
  MAX_BALANCE_ITEMS,
  pageOf,
  keyActor,
} from '@orka/domain'
import { defineOperation, OperationRequest, ParameterDocs, Tag } from './operation'
import { PAGE_QUERY } from './page'

const GIFT_CARDS: Tag = {
  name: 'Gift cards',
  description: "Gift cards activated or checked through the merchant account's gift card service, and the cards it stores.",
}

/**
 * A replay (same key, same body) answers with the first response's status and bytes plus
 * `Idempotent-Replayed: true`, failures included.
 */
export const activateGiftCard = defineOperation({
  method: 'POST',
  path: '/gift-cards/activations',
  scope: 'gift-cards.write',
  operationId: 'activate_gift_card',
  rateLimit: 'embed',
  doc: {
    tag: GIFT_CARDS,
    summary: 'Activate a gift card',
    description:
      "Activates a physical gift card through the merchant account's primary gift card service. With `store: true` the activated card is " +
      'also stored in the vault (a card number already stored for the account is a `409` naming it).\n\n' +
      'With an `idempotency-key`, the same key and body replay the first outcome (`Idempotent-Replayed: true`), another body with the ' +
      'key is a `400`, and a request while the first still runs is a `425`.',
  },
  idempotent: true,
  body: GiftCardActivationCreate,
  success: { status: 201, codec: GiftCard, description: 'The activated gift card.' },
  handle: (u) => (req) => u.activateGiftCard(cardWrite(req)),
})

/** What an embed token may read of stored cards (see `cardReach`). */
const EMBED_READS =
  'An `embed` token reads only the cards of the buyer its `embed` claim names (`buyer_id` or `buyer_external_identifier`); one naming ' +
  'no buyer is a `403`.'

/** What activating and storing a card take from the request. */
const cardWrite = <B>(req: OperationRequest<ParameterDocs, ParameterDocs, B>) => ({
  merchantAccountId: req.access.merchantAccount.id,
  actor: keyActor(req.access.principal.key),
  input: req.body,
  idempotencyKey: req.idempotencyKey,
  reach: cardReach(req.access, 'gift-cards.write'),
})

/** Path ids are UUIDs compared case-insensitively: decoded to lower case, the form stored ids have. */
const GIFT_CARD_ID = { gift_card_id: { codec: canonicalUuid, description: 'The ID of the gift card.' } }

export const createGiftCard = defineOperation({
  method: 'POST',
  path: '/gift-cards',
  scope: 'gift-cards.write',
  operationId: 'create_gift_card',
  rateLimit: 'embed',
  doc: {
    tag: GIFT_CARDS,
    summary: 'Create gift card',
    description:
      "Stores an existing gift card in the vault, for no buyer or for one buyer. The merchant account's primary gift card service checks " +
      'the card first: a card it refuses is a `400` whose detail points at `/number` (type `invalid_gift_card`, `expired_card`, ...), ' +
      'the service failing is a `502`, not answering in time a `504`. A card number already stored for the account is a `409` naming ' +
      'it; an unknown buyer a `404` whose detail names the field.\n\n' +
      'With an `idempotency-key`, the same key and body replay the stored card (`Idempotent-Replayed: true`), another body with the ' +
      'key is a `400`, and a request while the first still runs is a `425`. Only a stored card is replayed: a refused or failed ' +
      'request runs afresh when retried.',
  },
  idempotent: true,
  body: GiftCardCreate,
  success: { status: 201, codec: GiftCard, description: 'The stored gift card.' },
  handle: (u) => (req) => u.storeGiftCard(cardWrite(req)),
})

export const listGiftCards = defineOperation({
  method: 'GET',
  path: '/gift-cards',
  scope: 'gift-cards.read',
  operationId: 'list_gift_cards',
  doc: {
    tag: GIFT_CARDS,
    summary: 'List gift cards',
    description: `Lists the gift cards stored for the merchant account, newest first. ${EMBED_READS}`,
  },
  query: {
    ...PAGE_QUERY,
    // The filters have the constraints of the fields they filter on.
    buyer_id: { codec: canonicalUuid, description: 'Only the cards stored for the buyer with this ID.' },
    buyer_external_identifier: {
      codec: GiftCardCreate.inner.optional.buyer_external_identifier.inner,
      description: 'Only the cards stored for the buyer with this `external_identifier` (none when the account has no such buyer).',
    },
  },
  success: { status: 200, codec: pageOf('GiftCards', GiftCard), description: 'A page of gift cards.' },
  handle: (u) => (req) => {
    const { buyer_id, buyer_external_identifier, ...page } = req.query
    return u.listGiftCards({
      merchantAccountId: req.access.merchantAccount.id,
      reach: cardReach(req.access, 'gift-cards.read'),
      filter: {
        ...(buyer_id === undefined ? {} : { buyer_id }),
        ...(buyer_external_identifier === undefined ? {} : { buyer_external_identifier }),
      },
      ...page,
    })
  },
})

export const getGiftCard = defineOperation({
  method: 'GET',
  path: '/gift-cards/{gift_card_id}',
  scope: 'gift-cards.read',
  operationId: 'get_gift_card',
  doc: { tag: GIFT_CARDS, summary: 'Get gift card', description: `A gift card stored for the merchant account. ${EMBED_READS}` },
  params: GIFT_CARD_ID,
  success: { status: 200, codec: GiftCard, description: 'The gift card.' },
  handle: (u) => (req) =>
    u.getGiftCard({
      merchantAccountId: req.access.merchantAccount.id,
      id: req.params.gift_card_id,
      reach: cardReach(req.access, 'gift-cards.read'),
    }),
})

export const deleteGiftCard = defineOperation({
  method: 'DELETE',
  path: '/gift-cards/{gift_card_id}',
  scope: 'gift-cards.write',
  operationId: 'delete_gift_card',
  doc: {
    tag: GIFT_CARDS,
    summary: 'Delete a gift card',
    description:
      'Removes a stored gift card: its number and PIN are destroyed, not hidden, and a second delete is a `404`. ' +
      'Subscribers receive `gift-card.deleted`. An `embed` token deletes only the cards of the buyer its `embed` claim names.',
  },
  params: GIFT_CARD_ID,
  success: { status: 204, description: 'Deleted; no body.' },
  handle: (u) => (req) =>
    u.deleteGiftCard({
      merchantAccountId: req.access.merchantAccount.id,
      actor: keyActor(req.access.principal.key),
      id: req.params.gift_card_id,
      reach: cardReach(req.access, 'gift-cards.write'),
    }),
})

export const listGiftCardBalances = defineOperation({
  method: 'POST',
  path: '/gift-cards/balances',
  scope: 'gift-cards.read',
  operationId: 'list_gift_card_balances',
  rateLimit: 'embed',
  doc: {
    tag: GIFT_CARDS,
    summary: 'List gift card balances',
    description:
      `Fetches the balance of each item, answered in request order: a card by \`number\` and \`pin\` (used for the check and forgotten: ` +
      `never stored or logged) or a stored card by \`id\`. At most ${MAX_BALANCE_ITEMS} items: each is a call to the gift card service.\n\n` +
      'Every `id` is resolved first: one that is unknown, deleted or of another merchant account (or, for an `embed` token, of another ' +
      "buyer than its `embed` claim's) makes the whole request a `404` whose detail points at the item. After that one item never " +
      'fails the request: a card the service refuses carries its `balance_error_code` (`invalid_gift_card`, `expired_card`, ...), and a ' +
      'service that fails or does not answer in time gives each of its items `service_error` or `service_network_error`, never a ' +
      '`502` for all. An error item has `balance` and `currency` null; a card given by number has no `id` and no usage (0).',
  },
  body: GiftCardBalanceRequest,
  success: { status: 200, codec: GiftCardSummaries, description: 'The balance of each item, in request order.' },
  handle: (u) => (req) =>
    u.checkBalances({
      merchantAccountId: req.access.merchantAccount.id,
      items: req.body.items,
      reach: cardReach(req.access, 'gift-cards.read'),
    }),
})

export const GIFT_CARD_OPERATIONS = [activateGiftCard, listGiftCardBalances, createGiftCard, listGiftCards, getGiftCard, deleteGiftCard]
