import * as t from 'io-ts'
import { ApiKeyPair } from '../auth/api-key-pair'
import { Principal } from '../auth/authorize'
import { Buyer, reconciliationId } from '../buyers/buyer'
import { GiftCard, GiftCardService, GiftCardServiceRecord, GiftCardSummary } from '../gift-cards/gift-card.codecs'
import { VaultedGiftCard } from '../gift-cards/gift-card.ports'
import { IdempotencyRecord } from '../idempotency/idempotency'
import { MerchantAccount } from '../merchant-accounts/merchant-account'
import { PaymentMethod } from '../payment-methods/payment-method.codecs'
import { VaultedPaymentMethod } from '../payment-methods/payment-method.ports'
import { Role } from '../roles/role'
import { WebhookSubscriptionRecord } from '../webhooks/webhook-subscription'

/**
 * Builders of valid entities: every result satisfies its domain codec (checked here, so a
 * fixture can never drift from the model), and defaults are unique where the model wants
 * uniqueness (ids, external identifiers, thumbprints, fingerprints).
 */

export const MERCHANT_A = 'acme-retail'
export const MERCHANT_B = 'globex-stores'

/** A fixed instant that fixtures and tests count from. */
export const BASE_TIME = new Date('2025-01-15T10:00:00.000Z')
export const isoAt = (offsetMs: number): string => new Date(BASE_TIME.getTime() + offsetMs).toISOString()
export const dateAt = (offsetMs: number): Date => new Date(BASE_TIME.getTime() + offsetMs)

const hex12 = (n: number) => n.toString(16).padStart(12, '0')
/** A valid v4-shaped UUID that sorts by `n`: for tests that need to control id order. */
export const uuidFor = (n: number): string => `00000000-0000-4000-8000-${hex12(n)}`

let counter = 0
const next = () => ++counter
/** A fresh, valid v4-shaped UUID, distinct from every `uuidFor` value. */
export const nextUuid = (): string => `7a3f0c52-9d4e-4b1a-8c6d-${hex12(next())}`

const valid = <C extends t.Mixed>(codec: C, value: t.TypeOf<C>): t.TypeOf<C> => {
  if (!codec.is(value)) throw new Error(`fixture is not a valid ${codec.name}: ${JSON.stringify(value)}`)
  return value
}

export const aMerchantAccount = (o: Partial<MerchantAccount> = {}): MerchantAccount =>
  valid(MerchantAccount, { id: `merchant-${next()}`, display_name: 'Acme Retail Ltd', locked: false, ...o })

/** A real P-521 public key; the repository stores it verbatim. */
export const P521_PUBLIC_KEY_PEM = `-----BEGIN PUBLIC KEY-----
MIGbMBAGByqGSM49AgEGBSuBBAAjA4GGAAQB1R5cCZ290qUd3cW2N4kjEQ0aGthU
Z5ABLNgtrjPt6+NvggjgQ4BE7HNQsawb8URiIA6VBwJX+0Xa4D0Ps1VvSPQBQ1/3
hHbZk4nZCDYeazc18TCgmXj+jvZZf3qY1BYHvUFcUmYJSSdKHZEGj2B7Wo2gknnT
G9mpy0T9Hb54KCtAKAg=
-----END PUBLIC KEY-----
`

/** 43 base64url characters, like a SHA-256 digest: distinct for distinct `seed`s. */
const digestLike = (seed: string) => Buffer.from(seed.padEnd(32, '.').slice(0, 32), 'utf8').toString('base64url').slice(0, 43)

export const anApiKeyPair = (o: Partial<ApiKeyPair> = {}): ApiKeyPair =>
  valid(ApiKeyPair, {
    id: nextUuid(),
    thumbprint: digestLike(`thumbprint-${next()}`),
    public_key_pem: P521_PUBLIC_KEY_PEM,
    merchant_account_id: null,
    roles: ['administrator'],
    revoked: false,
    created_at: isoAt(0),
    ...o,
  })

export const aPrincipal = (o: Partial<Principal> = {}): Principal => ({
  key: anApiKeyPair(),
  scopes: ['*.read', '*.write'],
  tokenId: `jti-${next()}`,
  ...o,
})

export const aRole = (o: Partial<Role> = {}): Role =>
  valid(Role, {
    type: 'role',
    id: nextUuid(),
    name: 'Refund operator',
    slug: `refund-operator-${next()}`,
    description: 'Create and read refunds.',
    permissions: { allow: ['refunds.read', 'refunds.write'] },
    assignable_to: ['user', 'api-key-pair'],
    applies_to: [],
    is_standalone_assignable: true,
    ...o,
  })

export const aBuyer = (o: Partial<Buyer> = {}): Buyer => {
  const id = o.id ?? nextUuid()
  const n = next()
  return valid(Buyer, {
    type: 'buyer',
    id,
    reconciliation_id: reconciliationId(id),
    merchant_account_id: MERCHANT_A,
    display_name: 'Ada Lovelace',
    external_identifier: `customer-${n}`,
    billing_details: {
      first_name: 'Ada',
      last_name: 'Lovelace',
      email_address: 'ada.lovelace@example.com',
      phone_number: '+442071838750',
      address: {
        city: 'London',
        country: 'GB',
        postal_code: 'SW1A 2AA',
        state: 'Greater London',
        state_code: 'GB-LND',
        house_number_or_name: '10',
        line1: 'Downing Street',
        line2: null,
        organization: null,
      },
      tax_id: { value: 'GB123456789', kind: 'gb.vat' },
    },
    account_number: `ACC-${String(n).padStart(8, '0')}`,
    created_at: isoAt(0),
    updated_at: isoAt(0),
    ...o,
  })
}

export const aWebhookRecord = (o: Partial<WebhookSubscriptionRecord> = {}): WebhookSubscriptionRecord =>
  valid(WebhookSubscriptionRecord, {
    id: nextUuid(),
    merchant_account_id: MERCHANT_A,
    active: true,
    url: 'https://hooks.acme-retail.example/orka/events',
    // Sealed values are opaque to repositories; these stand in for SecretBox output.
    authentication: { kind: 'basic', username: 'orka-notifier', password: 'v1.c2VhbGVk.dGFn.cGFzc3dvcmQ' },
    sealed_secret: 'v1.aXY.dGFn.c2VjcmV0',
    previous_sealed_secret: null,
    previous_secret_expires_at: null,
    created_at: isoAt(0),
    ...o,
  })

export const aGiftCardService = (o: Partial<GiftCardService> = {}): GiftCardService =>
  valid(GiftCardService, {
    type: 'gift-card-service',
    id: nextUuid(),
    gift_card_service_definition_id: 'mock-gift-card',
    display_name: 'Mock gift cards',
    ...o,
  })

export const aGiftCardServiceRecord = (o: Partial<GiftCardServiceRecord> = {}): GiftCardServiceRecord =>
  valid(GiftCardServiceRecord, { service: aGiftCardService(), merchant_account_id: MERCHANT_A, primary: true, ...o })

export const aGiftCard = (o: Partial<GiftCard> = {}): GiftCard =>
  valid(GiftCard, {
    type: 'gift-card',
    id: nextUuid(),
    merchant_account_id: MERCHANT_A,
    gift_card_service: aGiftCardService(),
    bin: '603628',
    sub_bin: '120',
    last4: String(next() % 10000).padStart(4, '0'),
    expiration_date: '2028-01-15T10:00:00.000Z',
    buyer: null,
    created_at: isoAt(0),
    updated_at: isoAt(0),
    last_used_at: null,
    usage_count: 0,
    cit_last_used_at: null,
    cit_usage_count: 0,
    ...o,
  })

/** A balance summary with nothing known (no balance, no error, no usage), but what `o` says. */
export const aGiftCardSummary = (o: Partial<GiftCardSummary>): GiftCardSummary => ({
  type: 'gift-card',
  id: null,
  merchant_account_id: MERCHANT_A,
  bin: '603628',
  sub_bin: '123',
  last4: '0000',
  currency: null,
  expiration_date: null,
  balance: null,
  balance_error_code: null,
  balance_raw_error_code: null,
  balance_raw_error_message: null,
  last_used_at: null,
  usage_count: 0,
  cit_last_used_at: null,
  cit_usage_count: 0,
  ...o,
})

export type VaultedCardOverrides = Partial<Omit<VaultedGiftCard, 'card'>> & { readonly card?: Partial<GiftCard> }

/** `card` overrides merge into a default card, so `{ card: { merchant_account_id } }` is enough. */
export const aVaultedCard = (o: VaultedCardOverrides = {}): VaultedGiftCard => {
  const { card, ...rest } = o
  return valid(VaultedGiftCard, {
    card: aGiftCard(card),
    fingerprint: digestLike(`fingerprint-${next()}`),
    sealed_number: 'v1.aXY.dGFn.bnVtYmVy',
    sealed_pin: 'v1.aXY.dGFn.cGlu',
    ...rest,
  })
}

export type VaultedPaymentMethodOverrides = Partial<Omit<VaultedPaymentMethod, 'method'>> & { readonly method?: Partial<PaymentMethod> }

// Random, not counted: a fingerprint names a card, and the vault must tell cards apart whatever test made them.
const randomFingerprint = () => Buffer.from(Array.from({ length: 32 }, () => Math.floor(Math.random() * 256))).toString('base64url')

/** A stored visa card with no buyer; `method` overrides merge into it, as `aVaultedCard`'s do. */
export const aVaultedPaymentMethod = (o: VaultedPaymentMethodOverrides = {}): VaultedPaymentMethod => {
  const { method, ...rest } = o
  return valid(VaultedPaymentMethod, {
    method: {
      type: 'payment-method',
      id: nextUuid(),
      merchant_account_id: MERCHANT_A,
      method: 'card',
      status: 'succeeded',
      usage_count: 0,
      cit_usage_count: 0,
      has_replacement: false,
      scheme_transaction_id: null,
      scheme_transaction_id_scheme: null,
      created_at: isoAt(0),
      updated_at: isoAt(0),
      mode: 'card',
      label: '1111',
      scheme: 'visa',
      additional_schemes: null,
      expiration_date: '12/30',
      fingerprint: randomFingerprint(),
      details: { bin: '411111', card_type: null },
      approval_url: null,
      country: null,
      currency: null,
      last_replaced_at: null,
      transaction_link_id: null,
      buyer: null,
      external_identifier: null,
      last_used_at: null,
      cit_last_used_at: null,
      ...method,
    },
    sealed_number: 'v1.aXY.dGFn.Y2FyZC1udW1iZXI',
    ...rest,
  })
}

export const anIdempotencyRecord = (o: Partial<IdempotencyRecord> = {}): IdempotencyRecord =>
  valid(IdempotencyRecord, {
    merchant_account_id: MERCHANT_A,
    key: `gift-card-activation\u0000${nextUuid()}`,
    fingerprint: digestLike(`request-${next()}`),
    state: 'in_flight',
    outcome: null,
    created_at: isoAt(0),
    expires_at: isoAt(30_000),
    ...o,
  })
