import * as t from 'io-ts'
import { DateTime } from '../buyers/buyer'
import { MerchantAccount, MerchantAccountId, toMerchantAccountView } from '../merchant-accounts/merchant-account'
import { Role } from '../roles/role'
import { bool, boundedList, boundedString, closed, literal, nullable, oneOf, str, uuid } from '../shared/codecs'
import { ApiKeyPair, isKeyLive, keyDisplayName } from './api-key-pair'

const DisplayName = boundedString('display_name', { min: 1, max: 200 })
/** A PEM of a P-521 public key is about 270 characters; room for line ending variants, not for a payload. */
const PublicKeyPem = boundedString('public_key', { min: 1, max: 4096, anyCharacters: true })
const RoleIds = boundedList(boundedString('role_id', { min: 1, max: 200 }), 20)
const AccountIds = boundedList(MerchantAccountId, 20)

/** ES512 is the one algorithm: `RSA`, which the original API also names, is refused. */
export const KeyAlgorithm = oneOf('algorithm', ['ECDSA'] as const)

export const ApiKeyPairCreate = closed(
  'ApiKeyPairCreate',
  { display_name: DisplayName, role_ids: RoleIds },
  { algorithm: KeyAlgorithm, active: bool, merchant_account_ids: AccountIds, public_key: nullable(PublicKeyPem) },
)
export type ApiKeyPairCreate = t.TypeOf<typeof ApiKeyPairCreate>

/** The original SDK sends `null` for what it leaves alone: absent and `null` both leave a property as it is. */
export const ApiKeyPairUpdate = closed(
  'ApiKeyPairUpdate',
  {},
  { display_name: nullable(DisplayName), active: nullable(bool), role_ids: nullable(RoleIds), merchant_account_ids: nullable(AccountIds) },
)
export type ApiKeyPairUpdate = t.TypeOf<typeof ApiKeyPairUpdate>

export const MerchantAccountSummary = closed('MerchantAccountSummary', {
  type: literal('merchant-account'),
  id: MerchantAccountId,
  display_name: str,
  created_at: DateTime,
  updated_at: DateTime,
})
export type MerchantAccountSummary = t.TypeOf<typeof MerchantAccountSummary>

const CreatorView = closed('ApiKeyPairCreator', { id: str, name: str, email_address: t.null, thumbprint: nullable(str) })

/** The original API's APIKeyPair: never the public key's PEM; the private key only in the answer that made it. */
export const ApiKeyPairView = closed(
  'ApiKeyPair',
  {
    type: literal('api-key-pair'),
    id: uuid,
    thumbprint: str,
    display_name: str,
    algorithm: KeyAlgorithm,
    active: bool,
    created_at: DateTime,
    updated_at: DateTime,
    last_used_at: nullable(DateTime),
    creator: nullable(CreatorView),
    merchant_accounts: t.readonlyArray(MerchantAccountSummary),
    roles: t.readonlyArray(Role),
  },
  { private_key: str },
)
export type ApiKeyPairView = t.TypeOf<typeof ApiKeyPairView>

export const toMerchantAccountSummary = (a: MerchantAccount): MerchantAccountSummary => {
  const { type, id, display_name, created_at, updated_at } = toMerchantAccountView(a)
  return { type, id, display_name, created_at, updated_at }
}

/** `merchant_accounts` empty: the key reaches every account (the original API's meaning). */
export const toApiKeyPairView = (
  k: ApiKeyPair,
  reach: { readonly account: MerchantAccount | null; readonly roles: readonly Role[] },
): ApiKeyPairView => ({
  type: 'api-key-pair',
  id: k.id,
  thumbprint: k.thumbprint,
  display_name: keyDisplayName(k),
  algorithm: 'ECDSA',
  active: isKeyLive(k),
  created_at: k.created_at,
  updated_at: k.updated_at ?? k.created_at,
  last_used_at: k.last_used_at ?? null,
  creator: k.creator === undefined ? null : { ...k.creator, email_address: null },
  merchant_accounts: reach.account === null ? [] : [toMerchantAccountSummary(reach.account)],
  roles: reach.roles,
})
