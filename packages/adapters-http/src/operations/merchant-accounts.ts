import {
  Access,
  keyActor,
  MerchantAccountCreate,
  MerchantAccountId,
  MerchantAccountUpdate,
  MerchantAccountView,
  pageOf,
} from '@orka/domain'
import { defineOperation, Tag } from './operation'
import { PAGE_QUERY } from './page'

const MERCHANT_ACCOUNTS: Tag = {
  name: 'Merchant accounts',
  description:
    'The accounts an instance serves: each has its own buyers, cards, payment services, webhooks and audit log. Administered by ' +
    'keys bound to no account; a key bound to one account reads and changes that account only, and creates none.',
}

const ACCOUNT_ID = { merchant_account_id: { codec: MerchantAccountId, description: 'The ID of the merchant account.' } }

const SECRETS_NOTE =
  '`loon_client_key`, `loon_secret_key`, `account_updater_request_encryption_key` and `account_updater_response_decryption_key` ' +
  'are sealed when stored and always answered `null`.'

/** Who administers: the request's key and the account it is bound to, if any. */
const adminOf = (access: Access) => ({ actor: keyActor(access.principal.key), boundTo: access.principal.key.merchant_account_id })

export const createMerchantAccount = defineOperation({
  method: 'POST',
  path: '/merchant-accounts',
  scope: 'merchant-accounts.write',
  serverOnly: true,
  operationId: 'create_merchant_account',
  doc: {
    tag: MERCHANT_ACCOUNTS,
    summary: 'Create a merchant account',
    description:
      'Creates an account with the id the body gives (1-64 letters, digits, `.`, `_` and `-`, starting with a letter or digit), ' +
      'starting as a seeded one does: a primary mock gift card service and an active mock card service. A taken id is a `409` naming ' +
      `it. A key bound to a merchant account is refused (\`403\`). ${SECRETS_NOTE}`,
  },
  body: MerchantAccountCreate,
  success: { status: 201, codec: MerchantAccountView, description: 'The new merchant account.' },
  handle: (u) => (req) => u.createMerchantAccount({ ...adminOf(req.access), input: req.body }),
})

export const listMerchantAccounts = defineOperation({
  method: 'GET',
  path: '/merchant-accounts',
  scope: 'merchant-accounts.read',
  serverOnly: true,
  operationId: 'list_merchant_accounts',
  doc: {
    tag: MERCHANT_ACCOUNTS,
    summary: 'List merchant accounts',
    description: "The instance's accounts, newest first; a key bound to an account lists that account alone.",
  },
  query: PAGE_QUERY,
  refusedQuery: ['search'],
  success: { status: 200, codec: pageOf('MerchantAccounts', MerchantAccountView), description: 'A page of merchant accounts.' },
  handle: (u) => (req) => u.listMerchantAccounts({ admin: adminOf(req.access), ...req.query }),
})

export const getMerchantAccount = defineOperation({
  method: 'GET',
  path: '/merchant-accounts/{merchant_account_id}',
  scope: 'merchant-accounts.read',
  serverOnly: true,
  operationId: 'get_merchant_account',
  doc: {
    tag: MERCHANT_ACCOUNTS,
    summary: 'Get a merchant account',
    description: `An unknown account, and for a key bound to an account any other, is a \`404\`. ${SECRETS_NOTE}`,
  },
  params: ACCOUNT_ID,
  success: { status: 200, codec: MerchantAccountView, description: 'The merchant account.' },
  handle: (u) => (req) => u.getMerchantAccount({ admin: adminOf(req.access), id: req.params.merchant_account_id }),
})

export const updateMerchantAccount = defineOperation({
  method: 'PUT',
  path: '/merchant-accounts/{merchant_account_id}',
  scope: 'merchant-accounts.write',
  serverOnly: true,
  operationId: 'update_merchant_account',
  doc: {
    tag: MERCHANT_ACCOUNTS,
    summary: 'Update a merchant account',
    description:
      'Changes what the body names: an absent property is left as it is, `null` clears it, a flag is set to what is sent (the ' +
      'original SDK sends both flags, `false` unless given, with every update). An unknown account, and for a key bound to an account any other, is a `404`. ' +
      SECRETS_NOTE,
  },
  params: ACCOUNT_ID,
  body: MerchantAccountUpdate,
  success: { status: 200, codec: MerchantAccountView, description: 'The merchant account as updated.' },
  handle: (u) => (req) => u.updateMerchantAccount({ ...adminOf(req.access), id: req.params.merchant_account_id, input: req.body }),
})

export const MERCHANT_ACCOUNT_OPERATIONS = [createMerchantAccount, listMerchantAccounts, getMerchantAccount, updateMerchantAccount]
