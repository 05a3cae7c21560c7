import { readFileSync } from 'node:fs'
import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import {
  bool,
  boundedString,
  closed,
  GiftCardServiceDefinitionId,
  inputFaults,
  intRange,
  MAX_POSITION,
  nullable,
  str,
  uuid,
} from '@orka/domain'
import { messageOf } from '@orka/adapters-http'

const name200 = (n: string) => boundedString(n, { min: 1, max: 200 })

/** The provisioning file of `SEED_FILE` / `orka seed`. Every array is optional. */
export const SeedFile = closed(
  'SeedFile',
  {},
  {
    merchant_accounts: t.array(
      closed('SeedMerchantAccount', { id: name200('id'), display_name: name200('display_name') }, { locked: bool }),
    ),
    api_key_pairs: t.array(
      closed(
        'SeedApiKeyPair',
        { public_key_pem: str },
        { id: uuid, merchant_account_id: nullable(name200('merchant_account_id')), roles: t.array(str) },
      ),
    ),
    gift_card_services: t.array(
      closed(
        'SeedGiftCardService',
        {
          merchant_account_id: name200('merchant_account_id'),
          gift_card_service_definition_id: GiftCardServiceDefinitionId,
          display_name: name200('display_name'),
        },
        { id: uuid, primary: bool },
      ),
    ),
    // The original API's PaymentServiceCreate, in its own field names.
    payment_services: t.array(
      closed(
        'SeedPaymentService',
        {
          merchant_account_id: name200('merchant_account_id'),
          payment_service_definition_id: name200('payment_service_definition_id'),
          display_name: name200('display_name'),
        },
        {
          id: uuid,
          position: intRange('position', 0, MAX_POSITION),
          active: bool,
          accepted_currencies: t.array(boundedString('currency', { pattern: /^[A-Z]{3}$/ })),
          accepted_countries: t.array(boundedString('country', { pattern: /^[A-Z]{2}$/ })),
          fields: t.array(closed('SeedPaymentServiceField', { key: name200('key'), value: boundedString('value', { max: 1000 }) })),
        },
      ),
    ),
    buyers: t.array(
      closed(
        'SeedBuyer',
        { merchant_account_id: name200('merchant_account_id') },
        { id: uuid, external_identifier: nullable(name200('external_identifier')), display_name: nullable(name200('display_name')) },
      ),
    ),
    webhook_subscriptions: t.array(
      closed(
        'SeedWebhookSubscription',
        { merchant_account_id: nullable(name200('merchant_account_id')), url: str },
        { id: uuid, active: bool },
      ),
    ),
  },
)
export type SeedFile = t.TypeOf<typeof SeedFile>

/** Reads and decodes a seed file; any fault is one line naming the file and the property. */
export const readSeedFile = (path: string): SeedFile => {
  let json: unknown
  try {
    json = JSON.parse(readFileSync(path, 'utf8'))
  } catch (e) {
    throw new Error(`SEED_FILE ${path}: ${(e as Error).message}`, { cause: e })
  }
  const seed = SeedFile.decode(json)
  if (E.isLeft(seed))
    throw new Error(
      `SEED_FILE ${path}: ${inputFaults(seed.left)
        .map((f) => `${f.path.join('.') || '(root)'}: ${messageOf(f)}`)
        .join('; ')}`,
    )
  return seed.right
}
