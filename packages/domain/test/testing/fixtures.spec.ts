import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import {
  ApiKeyPair,
  Buyer,
  GiftCard,
  GiftCardServiceRecord,
  IdempotencyRecord,
  MerchantAccount,
  reconciliationId,
  Role,
  uuid,
  VaultedGiftCard,
  WebhookSubscriptionRecord,
} from '../../src'
import {
  aBuyer,
  aGiftCard,
  aGiftCardServiceRecord,
  aMerchantAccount,
  anApiKeyPair,
  anIdempotencyRecord,
  aRole,
  aVaultedCard,
  aWebhookRecord,
  nextUuid,
  uuidFor,
} from '../../src/testing'

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe('testing fixtures', () => {
  const cases: [string, t.Mixed, () => unknown][] = [
    ['aMerchantAccount', MerchantAccount, () => aMerchantAccount()],
    ['anApiKeyPair', ApiKeyPair, () => anApiKeyPair()],
    ['aRole', Role, () => aRole()],
    ['aBuyer', Buyer, () => aBuyer()],
    ['aWebhookRecord', WebhookSubscriptionRecord, () => aWebhookRecord()],
    ['aGiftCardServiceRecord', GiftCardServiceRecord, () => aGiftCardServiceRecord()],
    ['aGiftCard', GiftCard, () => aGiftCard({ buyer: aBuyer() })],
    ['aVaultedCard', VaultedGiftCard, () => aVaultedCard()],
    ['anIdempotencyRecord', IdempotencyRecord, () => anIdempotencyRecord()],
  ]
  for (const [name, codec, build] of cases)
    it(`${name} decodes with its codec, unchanged`, () => {
      const value = build()
      expect(codec.decode(value)).to.deep.equal(E.right(value))
    })

  it('makes valid, distinct UUIDs and ISO timestamps', () => {
    const ids = [nextUuid(), nextUuid(), uuidFor(1), uuidFor(255), aBuyer().id, aGiftCard().id]
    for (const id of ids) expect(uuid.is(id), id).to.equal(true)
    expect(new Set(ids).size).to.equal(ids.length)
    const b = aBuyer()
    for (const ts of [b.created_at, b.updated_at, aWebhookRecord().created_at, anIdempotencyRecord().expires_at]) expect(ts).to.match(ISO)
  })

  it('keeps reconciliation_id in step with an overridden buyer id', () => {
    expect(aBuyer({ id: uuidFor(7) }).reconciliation_id).to.equal(reconciliationId(uuidFor(7)))
  })

  it('gives each default buyer its own external identifier and each key its own thumbprint', () => {
    expect(aBuyer().external_identifier).not.to.equal(aBuyer().external_identifier)
    expect(anApiKeyPair().thumbprint).not.to.equal(anApiKeyPair().thumbprint)
    expect(aVaultedCard().fingerprint).not.to.equal(aVaultedCard().fingerprint)
  })

  it('refuses to build an invalid entity', () => {
    expect(() => aBuyer({ external_identifier: '' })).to.throw('not a valid Buyer')
    expect(() => aWebhookRecord({ id: 'not-a-uuid' })).to.throw('not a valid')
    expect(() => aGiftCard({ usage_count: -1 })).to.throw('not a valid GiftCard')
  })
})
