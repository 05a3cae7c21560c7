import {
  Buyer,
  BuyerCreate,
  BuyerGiftCardsSortBy,
  BuyerUpdate,
  canonicalUuid,
  cardReach,
  GiftCardSummaries,
  MAX_BUYER_GIFT_CARDS,
  ONE_BUYER_RULES,
  OrderBy,
  pageOf,
  keyActor,
} from '@orka/domain'
import { defineOperation, Tag } from './operation'
import { PAGE_QUERY } from './page'

export const BUYERS: Tag = { name: 'Buyers', description: "The merchant's customers." }

/** Path ids are UUIDs compared case-insensitively: decoded to lower case, the form stored ids have. */
const BUYER_ID = { buyer_id: { codec: canonicalUuid, description: 'The ID of the buyer.' } }

export const createBuyer = defineOperation({
  method: 'POST',
  path: '/buyers',
  scope: 'buyers.write',
  operationId: 'add_buyer',
  doc: {
    tag: BUYERS,
    summary: 'Add a buyer',
    description:
      'Creates a buyer in the merchant account. An `external_identifier` already used by another buyer of the account is a `409` naming ' +
      'that buyer.',
  },
  body: BuyerCreate,
  success: { status: 201, codec: Buyer, description: 'The new buyer.' },
  handle: (u) => (req) =>
    u.createBuyer({ merchantAccountId: req.access.merchantAccount.id, actor: keyActor(req.access.principal.key), input: req.body }),
})

export const listBuyers = defineOperation({
  method: 'GET',
  path: '/buyers',
  scope: 'buyers.read',
  operationId: 'list_buyers',
  doc: {
    tag: BUYERS,
    summary: 'List all buyers',
    description:
      "Lists the merchant account's buyers, newest first. `search` and `external_identifier` together keep the buyers that match both; " +
      'a cursor only serves the filters it was issued with.',
  },
  query: {
    ...PAGE_QUERY,
    search: {
      // As long as the fields it searches: a longer value cannot be contained in them.
      codec: BuyerCreate.optional.display_name.inner,
      description:
        'Only the buyers whose `display_name` or `external_identifier` contains this value, ignoring case. On MongoDB this scans the ' +
        "account's buyers.",
    },
    // The filter has the constraints of the field it filters on.
    external_identifier: {
      codec: BuyerCreate.optional.external_identifier.inner,
      description: 'Only the buyer whose `external_identifier` is this value.',
    },
  },
  success: { status: 200, codec: pageOf('Buyers', Buyer), description: 'A page of buyers.' },
  handle: (u) => (req) => {
    const { external_identifier, search, ...page } = req.query
    return u.listBuyers({
      merchantAccountId: req.access.merchantAccount.id,
      filter: {
        ...(external_identifier === undefined ? {} : { external_identifier }),
        ...(search === undefined ? {} : { search }),
      },
      ...page,
    })
  },
})

export const getBuyer = defineOperation({
  method: 'GET',
  path: '/buyers/{buyer_id}',
  scope: 'buyers.read',
  operationId: 'get_buyer',
  doc: {
    tag: BUYERS,
    summary: 'Get a buyer',
    description: "Reads one buyer. Unknown, deleted and another merchant account's buyers are `404`.",
  },
  params: BUYER_ID,
  success: { status: 200, codec: Buyer, description: 'The buyer.' },
  handle: (u) => (req) => u.getBuyer({ merchantAccountId: req.access.merchantAccount.id, id: req.params.buyer_id }),
})

export const updateBuyer = defineOperation({
  method: 'PUT',
  path: '/buyers/{buyer_id}',
  scope: 'buyers.write',
  operationId: 'update_buyer',
  doc: {
    tag: BUYERS,
    summary: 'Update a buyer',
    description:
      'Changes what the body names: an absent property is left as it is, `null` clears it (`billing_details` is replaced whole). ' +
      '`updated_at` moves. An `external_identifier` used by another buyer of the account is a `409` naming that buyer.',
  },
  params: BUYER_ID,
  body: BuyerUpdate,
  success: { status: 200, codec: Buyer, description: 'The updated buyer.' },
  handle: (u) => (req) =>
    u.updateBuyer({
      merchantAccountId: req.access.merchantAccount.id,
      actor: keyActor(req.access.principal.key),
      id: req.params.buyer_id,
      input: req.body,
    }),
})

export const deleteBuyer = defineOperation({
  method: 'DELETE',
  path: '/buyers/{buyer_id}',
  scope: 'buyers.write',
  operationId: 'delete_buyer',
  doc: {
    tag: BUYERS,
    summary: 'Delete a buyer',
    description:
      'Permanently removes a buyer with its stored gift cards (their numbers and PINs destroyed) and payment methods (their numbers ' +
      'destroyed); its `external_identifier` is free ' +
      "again at once. Unknown, already deleted and another account's buyers are all `404`. Subscribers receive `buyer.deleted`.",
  },
  params: BUYER_ID,
  success: { status: 204, description: 'Deleted; no body.' },
  handle: (u) => (req) =>
    u.deleteBuyer({ merchantAccountId: req.access.merchantAccount.id, actor: keyActor(req.access.principal.key), id: req.params.buyer_id }),
})

export const listBuyerGiftCards = defineOperation({
  method: 'GET',
  path: '/buyers/gift-cards',
  scope: 'gift-cards.read',
  operationId: 'list_buyer_gift_cards',
  doc: {
    tag: BUYERS,
    summary: 'List gift cards for a buyer',
    description:
      "The buyer's stored gift cards that can still pay, with their current balances from the gift card service (its " +
      `${MAX_BUYER_GIFT_CARDS} newest cards, checked at once). Cards stored as expired, and cards the service answers are empty or ` +
      'expired, are left out; a card whose balance could not be fetched is listed with its `balance_error_code`. An unknown buyer has ' +
      'no cards (`items` is empty). An `embed` token reads only the buyer its `embed` claim names (another buyer has no cards for it); ' +
      'one naming no buyer is a `403`.',
  },
  query: {
    buyer_id: { codec: canonicalUuid, description: 'The ID of the buyer.' },
    buyer_external_identifier: {
      codec: BuyerCreate.optional.external_identifier.inner,
      description: 'The `external_identifier` of the buyer.',
    },
    sort_by: { codec: BuyerGiftCardsSortBy, description: 'The field to sort the cards by; newest first when absent.' },
    order_by: { codec: OrderBy, default: 'desc', description: 'The direction to sort the cards in.' },
  },
  queryRules: ONE_BUYER_RULES,
  success: { status: 200, codec: GiftCardSummaries, description: "The buyer's usable gift cards." },
  handle: (u) => (req) => {
    const { buyer_id, buyer_external_identifier, sort_by, order_by } = req.query
    return u.listBuyerGiftCards({
      merchantAccountId: req.access.merchantAccount.id,
      buyer: buyer_id !== undefined ? { id: buyer_id } : { externalIdentifier: buyer_external_identifier ?? '' },
      sortBy: sort_by ?? null,
      orderBy: order_by ?? 'desc',
      reach: cardReach(req.access, 'gift-cards.read'),
    })
  },
})

export const BUYER_OPERATIONS = [createBuyer, listBuyers, listBuyerGiftCards, getBuyer, updateBuyer, deleteBuyer]
