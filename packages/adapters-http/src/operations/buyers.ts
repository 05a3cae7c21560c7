import { Buyer, BuyerCreate, pageOf } from '@orka/domain'
import { defineOperation, Tag } from './operation'
import { PAGE_QUERY } from './page'

const BUYERS: Tag = { name: 'Buyers', description: "The merchant's customers." }

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
  handle: (u) => (req) => u.createBuyer({ merchantAccountId: req.access.merchantAccount.id, input: req.body }),
})

export const listBuyers = defineOperation({
  method: 'GET',
  path: '/buyers',
  scope: 'buyers.read',
  operationId: 'list_buyers',
  doc: { tag: BUYERS, summary: 'List all buyers', description: "Lists the merchant account's buyers, newest first." },
  query: {
    ...PAGE_QUERY,
    // The filter has the constraints of the field it filters on.
    external_identifier: {
      codec: BuyerCreate.optional.external_identifier.inner,
      description: 'Only the buyer whose `external_identifier` is this value.',
    },
  },
  success: { status: 200, codec: pageOf('Buyers', Buyer), description: 'A page of buyers.' },
  handle: (u) => (req) => {
    const { external_identifier, ...page } = req.query
    return u.listBuyers({
      merchantAccountId: req.access.merchantAccount.id,
      filter: external_identifier === undefined ? {} : { external_identifier },
      ...page,
    })
  },
})

export const BUYER_OPERATIONS = [createBuyer, listBuyers]
