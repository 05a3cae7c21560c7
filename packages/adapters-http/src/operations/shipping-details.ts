import {
  Access,
  canonicalUuid,
  cardReach,
  keyActor,
  MAX_SHIPPING_DETAILS,
  ShippingDetails,
  ShippingDetailsCreate,
  ShippingDetailsList,
  ShippingDetailsUpdate,
} from '@orka/domain'
import { BUYERS } from './buyers'
import { defineOperation } from './operation'

const BUYER_ID = { buyer_id: { codec: canonicalUuid, description: 'The ID of the buyer.' } }
const SHIPPING_DETAILS_ID = {
  ...BUYER_ID,
  shipping_details_id: { codec: canonicalUuid, description: 'The ID of the shipping details.' },
}

const REACH =
  'An unknown buyer, and shipping details of another buyer or another merchant account, are a `404`. An `embed` token reaches only ' +
  'the buyer its `embed` claim names (another buyer is a `404` to it, a token naming no buyer a `403`).'

/** The buyer the path names, and who may reach it with the scope the route needs. */
const ofBuyer = (req: { readonly access: Access; readonly params: { readonly buyer_id: string } }, scope: 'read' | 'write') => ({
  merchantAccountId: req.access.merchantAccount.id,
  buyerId: req.params.buyer_id,
  reach: cardReach(req.access, `buyers.shipping-details.${scope}`),
})

export const createShippingDetails = defineOperation({
  method: 'POST',
  path: '/buyers/{buyer_id}/shipping-details',
  scope: 'buyers.shipping-details.write',
  operationId: 'add_buyer_shipping_details',
  rateLimit: 'embed',
  doc: {
    tag: BUYERS,
    summary: 'Add buyer shipping details',
    description:
      'Keeps a shipping address and contact for the buyer; a payment names them by `shipping_details_id`. Every field may be left ' +
      'out (it is then `null`); the address and phone number have the rules of `billing_details`. A buyer holds at most ' +
      `${String(MAX_SHIPPING_DETAILS)}: one more is a \`409\`. ${REACH}`,
  },
  params: BUYER_ID,
  body: ShippingDetailsCreate,
  success: { status: 201, codec: ShippingDetails, description: 'The new shipping details.' },
  handle: (u) => (req) => u.createShippingDetails({ ...ofBuyer(req, 'write'), actor: keyActor(req.access.principal.key), input: req.body }),
})

export const listShippingDetails = defineOperation({
  method: 'GET',
  path: '/buyers/{buyer_id}/shipping-details',
  scope: 'buyers.shipping-details.read',
  operationId: 'list_buyer_shipping_details',
  rateLimit: 'embed',
  doc: {
    tag: BUYERS,
    summary: 'List buyer shipping details',
    description: `All of the buyer's shipping details, newest first (as the original API, unpaginated: a buyer holds at most ${String(MAX_SHIPPING_DETAILS)}). ${REACH}`,
  },
  params: BUYER_ID,
  success: { status: 200, codec: ShippingDetailsList, description: "The buyer's shipping details." },
  handle: (u) => (req) => u.listShippingDetails(ofBuyer(req, 'read')),
})

export const getShippingDetails = defineOperation({
  method: 'GET',
  path: '/buyers/{buyer_id}/shipping-details/{shipping_details_id}',
  scope: 'buyers.shipping-details.read',
  operationId: 'get_buyer_shipping_details',
  rateLimit: 'embed',
  doc: { tag: BUYERS, summary: 'Get buyer shipping details', description: `One of the buyer's shipping details. ${REACH}` },
  params: SHIPPING_DETAILS_ID,
  success: { status: 200, codec: ShippingDetails, description: 'The shipping details.' },
  handle: (u) => (req) => u.getShippingDetails({ ...ofBuyer(req, 'read'), id: req.params.shipping_details_id }),
})

export const updateShippingDetails = defineOperation({
  method: 'PUT',
  path: '/buyers/{buyer_id}/shipping-details/{shipping_details_id}',
  scope: 'buyers.shipping-details.write',
  operationId: 'update_buyer_shipping_details',
  rateLimit: 'embed',
  doc: {
    tag: BUYERS,
    summary: 'Update buyer shipping details',
    description:
      'Changes what the body names, as the original API does with `PUT`: an absent property is left as it is, `null` clears it, ' +
      `and \`address\` is replaced whole. ${REACH}`,
  },
  params: SHIPPING_DETAILS_ID,
  body: ShippingDetailsUpdate,
  success: { status: 200, codec: ShippingDetails, description: 'The shipping details as updated.' },
  handle: (u) => (req) =>
    u.updateShippingDetails({
      ...ofBuyer(req, 'write'),
      actor: keyActor(req.access.principal.key),
      id: req.params.shipping_details_id,
      input: req.body,
    }),
})

export const deleteShippingDetails = defineOperation({
  method: 'DELETE',
  path: '/buyers/{buyer_id}/shipping-details/{shipping_details_id}',
  scope: 'buyers.shipping-details.write',
  operationId: 'delete_buyer_shipping_details',
  rateLimit: 'embed',
  doc: {
    tag: BUYERS,
    summary: 'Delete buyer shipping details',
    description: `Removes them for good; a second delete is a \`404\`. Deleting a buyer deletes its shipping details with it. ${REACH}`,
  },
  params: SHIPPING_DETAILS_ID,
  success: { status: 204, description: 'Deleted; no body.' },
  handle: (u) => (req) =>
    u.deleteShippingDetails({ ...ofBuyer(req, 'write'), actor: keyActor(req.access.principal.key), id: req.params.shipping_details_id }),
})

export const SHIPPING_DETAILS_OPERATIONS = [
  createShippingDetails,
  listShippingDetails,
  getShippingDetails,
  updateShippingDetails,
  deleteShippingDetails,
]
