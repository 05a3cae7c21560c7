import * as t from 'io-ts'
import { DateTime } from '../buyers/buyer'
import { SortKey } from '../pagination/page'
import { SecretBox } from '../shared/crypto.ports'
import { bool, boundedList, boundedString, closed, intRange, literal, nullable, str } from '../shared/codecs'

/** Any stored account's id (seeded ones included): what the header and the path carry. */
export const MerchantAccountId = boundedString('MerchantAccountId', { min: 1, max: 200 })
/** An id a client chooses for a new account: short, and safe in a header, a path and a log line. */
export const NewMerchantAccountId = boundedString('id', { min: 1, max: 64, pattern: /^[A-Za-z0-9][A-Za-z0-9._-]*$/ })

const text = (name: string, max = 200) => nullable(boundedString(name, { min: 1, max }))

/** Settings the original API keeps on an account, shown as set: ids, flags and limits, no secret. */
const SETTINGS = {
  account_updater_enabled: bool,
  async_network_tokens_enabled: bool,
  over_capture_amount: nullable(intRange('over_capture_amount', 0, 99_999_999)),
  over_capture_percentage: nullable(intRange('over_capture_percentage', 0, 100)),
  loon_accepted_schemes: nullable(boundedList(boundedString('scheme', { min: 1, max: 50 }), 32)),
  account_updater_request_encryption_key_id: text('account_updater_request_encryption_key_id'),
  account_updater_response_decryption_key_id: text('account_updater_response_decryption_key_id'),
  visa_network_tokens_requestor_id: text('visa_network_tokens_requestor_id'),
  visa_network_tokens_app_id: text('visa_network_tokens_app_id'),
  amex_network_tokens_requestor_id: text('amex_network_tokens_requestor_id'),
  amex_network_tokens_app_id: text('amex_network_tokens_app_id'),
  mastercard_network_tokens_requestor_id: text('mastercard_network_tokens_requestor_id'),
  mastercard_network_tokens_app_id: text('mastercard_network_tokens_app_id'),
}
type Settings = { readonly [K in keyof typeof SETTINGS]: t.TypeOf<(typeof SETTINGS)[K]> }

/** Keys and credentials: sealed when stored, and never answered (always `null`), as payment service credentials are. */
export const MERCHANT_ACCOUNT_SECRETS = [
  'loon_client_key',
  'loon_secret_key',
  'account_updater_request_encryption_key',
  'account_updater_response_decryption_key',
] as const
type SecretName = (typeof MERCHANT_ACCOUNT_SECRETS)[number]
const SECRETS = Object.fromEntries(MERCHANT_ACCOUNT_SECRETS.map((k) => [k, text(k, 8192)])) as Readonly<
  Record<SecretName, ReturnType<typeof text>>
>

const DEFAULT_SETTINGS: Settings = {
  account_updater_enabled: false,
  async_network_tokens_enabled: false,
  over_capture_amount: null,
  over_capture_percentage: null,
  loon_accepted_schemes: null,
  account_updater_request_encryption_key_id: null,
  account_updater_response_decryption_key_id: null,
  visa_network_tokens_requestor_id: null,
  visa_network_tokens_app_id: null,
  amex_network_tokens_requestor_id: null,
  amex_network_tokens_app_id: null,
  mastercard_network_tokens_requestor_id: null,
  mastercard_network_tokens_app_id: null,
}

/** As stored: what authorization reads (`locked`), and what the API sets, its secrets sealed by name. */
export const MerchantAccount = closed(
  'MerchantAccountRecord',
  { id: MerchantAccountId, display_name: boundedString('display_name', { min: 1, max: 200 }), locked: bool },
  {
    // Absent on accounts stored before accounts were made by API: they read as created at the epoch.
    created_at: DateTime,
    updated_at: DateTime,
    settings: closed('MerchantAccountSettings', SETTINGS),
    sealed: t.readonly(t.record(str, str)),
  },
)
export type MerchantAccount = t.TypeOf<typeof MerchantAccount>

/** The original API's MerchantAccount, as answered. */
export const MerchantAccountView = closed('MerchantAccount', {
  type: literal('merchant-account'),
  id: MerchantAccountId,
  display_name: str,
  ...SETTINGS,
  ...SECRETS,
  created_at: DateTime,
  updated_at: DateTime,
})
export type MerchantAccountView = t.TypeOf<typeof MerchantAccountView>

const OPTIONAL_SETTINGS = { ...SETTINGS, ...SECRETS }
export const MerchantAccountCreate = closed(
  'MerchantAccountCreate',
  { id: NewMerchantAccountId, display_name: boundedString('display_name', { min: 1, max: 200 }) },
  OPTIONAL_SETTINGS,
)
export type MerchantAccountCreate = t.TypeOf<typeof MerchantAccountCreate>
export const MerchantAccountUpdate = closed(
  'MerchantAccountUpdate',
  {},
  { display_name: boundedString('display_name', { min: 1, max: 200 }), ...OPTIONAL_SETTINGS },
)
export type MerchantAccountUpdate = t.TypeOf<typeof MerchantAccountUpdate>

const EPOCH = '1970-01-01T00:00:00.000Z'
export const merchantAccountSortKey = (a: MerchantAccount): SortKey => [a.created_at ?? EPOCH, a.id]

export const toMerchantAccountView = (a: MerchantAccount): MerchantAccountView => ({
  type: 'merchant-account',
  id: a.id,
  display_name: a.display_name,
  ...DEFAULT_SETTINGS,
  ...a.settings,
  loon_client_key: null,
  loon_secret_key: null,
  account_updater_request_encryption_key: null,
  account_updater_response_decryption_key: null,
  created_at: a.created_at ?? EPOCH,
  updated_at: a.updated_at ?? a.created_at ?? EPOCH,
})

/**
 * The account with what `input` names changed: an absent property is left as it is, `null`
 * clears it (a flag is set to what is sent); a secret sent is sealed (nothing reads it back yet:
 * no account updater or network token service is connected).
 */
export const applyMerchantAccountChanges = (
  a: MerchantAccount,
  input: Partial<MerchantAccountUpdate>,
  now: string,
  box: SecretBox,
): MerchantAccount => {
  const settings = { ...DEFAULT_SETTINGS, ...a.settings }
  for (const k of Object.keys(SETTINGS) as (keyof Settings)[]) if (input[k] !== undefined) Object.assign(settings, { [k]: input[k] })
  const sealed = Object.fromEntries(
    MERCHANT_ACCOUNT_SECRETS.flatMap((k): [string, string][] => {
      const v = input[k]
      if (v === undefined) return a.sealed?.[k] === undefined ? [] : [[k, a.sealed[k]]]
      return v === null ? [] : [[k, box.seal(v)]]
    }),
  )
  return {
    ...a,
    display_name: input.display_name ?? a.display_name,
    settings,
    sealed,
    created_at: a.created_at ?? now,
    updated_at: now,
  }
}

export const newMerchantAccount = (input: MerchantAccountCreate, now: string, box: SecretBox): MerchantAccount =>
  applyMerchantAccountChanges({ id: input.id, display_name: input.display_name, locked: false, created_at: now }, input, now, box)

/** The account as its audit entries name it. */
export const merchantAccountResource = (a: Pick<MerchantAccount, 'id' | 'display_name'>) => ({
  type: 'merchant-account' as const,
  id: a.id,
  name: a.display_name,
})
