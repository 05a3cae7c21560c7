import { Access, ApiKeyPairCreate, ApiKeyPairUpdate, ApiKeyPairView, canonicalUuid, keyActor, pageOf } from '@orka/domain'
import { defineOperation, Tag } from './operation'
import { PAGE_QUERY } from './page'

const API_KEY_PAIRS: Tag = {
  name: 'API key pairs',
  description:
    'The ES512 keys that sign the bearer tokens this API accepts. A caller sees the keys of its own reach (a key bound to an ' +
    "account: that account's keys), and gives a key no more than it holds itself: roles whose permissions its token and key both " +
    "grant, its own account (or, bound to none, any one or every one). Suspended or deleted, a key's tokens are refused at once by " +
    'the instance that was asked, and by every other within `LOOKUP_CACHE_MS`.',
}

const KEY_ID = { api_key_pair_id: { codec: canonicalUuid, description: 'The ID of the API key pair.' } }

const REACH =
  "A key beyond the caller's reach (another account's, or an instance-wide one for a key bound to an account) is a `404`; one " +
  'whose roles grant what the caller cannot is a `403`.'

const adminOf = (access: Access) => ({ actor: keyActor(access.principal.key), caller: access.principal })

export const createApiKeyPair = defineOperation({
  method: 'POST',
  path: '/api-key-pairs',
  scope: 'api-key-pairs.write',
  serverOnly: true,
  operationId: 'create_api_key_pair',
  doc: {
    tag: API_KEY_PAIRS,
    summary: 'Create an API key pair',
    description:
      'Without `public_key`, generates an ECDSA P-521 pair and answers its `private_key` in this response only: it is stored ' +
      'nowhere and never shown again. With `public_key` (a PEM-encoded P-521 public key), registers it; a public key already ' +
      'registered, a deleted one included, is a `409` naming its thumbprint. `role_ids` must name roles assignable to a key whose ' +
      'permissions the calling token and key both grant (else `403`); `merchant_account_ids` names one account the caller reaches, ' +
      'or none for every account (a key bound to an account must name its own).',
  },
  body: ApiKeyPairCreate,
  success: { status: 201, codec: ApiKeyPairView, description: 'The new API key pair, with its private key when Orka made it.' },
  handle: (u) => (req) => u.createApiKeyPair({ ...adminOf(req.access), input: req.body }),
})

export const listApiKeyPairs = defineOperation({
  method: 'GET',
  path: '/api-key-pairs',
  scope: 'api-key-pairs.read',
  serverOnly: true,
  operationId: 'list_api_key_pairs',
  doc: {
    tag: API_KEY_PAIRS,
    summary: 'List API key pairs',
    description: 'The keys the caller reaches, newest first; deleted keys are not listed.',
  },
  query: PAGE_QUERY,
  success: { status: 200, codec: pageOf('CollectionAPIKeyPair', ApiKeyPairView), description: 'A page of API key pairs.' },
  handle: (u) => (req) => u.listApiKeyPairs({ caller: req.access.principal, ...req.query }),
})

export const getApiKeyPair = defineOperation({
  method: 'GET',
  path: '/api-key-pairs/{api_key_pair_id}',
  scope: 'api-key-pairs.read',
  serverOnly: true,
  operationId: 'get_api_key_pair',
  doc: {
    tag: API_KEY_PAIRS,
    summary: 'Get an API key pair',
    description: `A deleted key, and one beyond the caller's reach, is a \`404\`. \`last_used_at\` is written about once a minute.`,
  },
  params: KEY_ID,
  success: { status: 200, codec: ApiKeyPairView, description: 'The API key pair.' },
  handle: (u) => (req) => u.getApiKeyPair({ caller: req.access.principal, id: req.params.api_key_pair_id }),
})

export const updateApiKeyPair = defineOperation({
  method: 'PUT',
  path: '/api-key-pairs/{api_key_pair_id}',
  scope: 'api-key-pairs.write',
  serverOnly: true,
  operationId: 'update_api_key_pair',
  doc: {
    tag: API_KEY_PAIRS,
    summary: 'Update an API key pair',
    description:
      'Changes what the body names (absent or `null`: left as it is): `active` false suspends the key and true resumes it; new ' +
      `\`role_ids\` and \`merchant_account_ids\` are checked as at creation. ${REACH}`,
  },
  params: KEY_ID,
  body: ApiKeyPairUpdate,
  success: { status: 200, codec: ApiKeyPairView, description: 'The API key pair as updated.' },
  handle: (u) => (req) => u.updateApiKeyPair({ ...adminOf(req.access), id: req.params.api_key_pair_id, input: req.body }),
})

export const deleteApiKeyPair = defineOperation({
  method: 'DELETE',
  path: '/api-key-pairs/{api_key_pair_id}',
  scope: 'api-key-pairs.write',
  serverOnly: true,
  operationId: 'delete_api_key_pair',
  doc: {
    tag: API_KEY_PAIRS,
    summary: 'Delete an API key pair',
    description: `Revokes the key for good: its tokens are refused, and its public key cannot be registered again. ${REACH}`,
  },
  params: KEY_ID,
  success: { status: 204, description: 'Deleted; no body.' },
  handle: (u) => (req) => u.deleteApiKeyPair({ ...adminOf(req.access), id: req.params.api_key_pair_id }),
})

export const API_KEY_PAIR_OPERATIONS = [createApiKeyPair, listApiKeyPairs, getApiKeyPair, updateApiKeyPair, deleteApiKeyPair]
