import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import {
  ACCOUNT_REACH,
  cardDeclined,
  duplicate,
  GiftCard,
  GiftCardActivationCreate,
  inFlight,
  invalidRequest,
  makeActivateGiftCard,
  problem,
  replayed,
  serviceFailed,
  serviceTimeout,
} from '@orka/domain'
import { aBuyer, aGiftCardServiceRecord, MERCHANT_A, MERCHANT_B, right } from '@orka/domain/testing'
import { activationWorld, expectedCard as sharedExpectedCard, NUMBER, ACTOR } from './support'

const PIN = '73915286'
const KEY = 'c0d7a3e4-5b6f-4a1e-9c8d-7e6f5a4b3c2d'

/** Bodies go through the codec, as the HTTP layer would send them. */
const input = (body: Record<string, unknown>): GiftCardActivationCreate => {
  const decoded = GiftCardActivationCreate.decode(body)
  if (E.isLeft(decoded)) throw new Error(`test body does not decode: ${JSON.stringify(body)}`)
  return decoded.right
}

describe('makeActivateGiftCard', () => {
  const setup = (o: { timeoutMs?: number; slowMs?: number; primary?: boolean } = {}) => {
    const w = activationWorld(o)
    const service = aGiftCardServiceRecord({ merchant_account_id: MERCHANT_A })
    const activate = makeActivateGiftCard(w)
    const run = (body: Record<string, unknown>, idempotencyKey: string | null = null, merchantAccountId = MERCHANT_A) =>
      activate({ merchantAccountId, actor: ACTOR, input: input(body), idempotencyKey, reach: ACCOUNT_REACH })()
    return {
      ...w,
      service,
      activate,
      run,
      ready: () => (o.primary === false ? Promise.resolve() : right(w.giftCardServices.upsert(service))),
    }
  }

  const expectedCard = (s: ReturnType<typeof setup>, o: Partial<GiftCard> = {}): GiftCard => sharedExpectedCard(s.service.service, o)

  describe('activation', () => {
    it('activates through the primary service and shows only bin, sub_bin and last4', async () => {
      const s = setup()
      await s.ready()
      const result = await s.run({ number: NUMBER, pin: PIN, amount: 5000, currency: 'EUR', external_identifier: 'order-1042' })
      expect(result).to.deep.equal(E.right({ value: expectedCard(s), replayed: false }))
      expect(JSON.stringify(result)).not.to.include(NUMBER).and.not.to.include(PIN)
      expect(s.giftCardConnectors.calls).to.deep.equal([
        {
          service: s.service.service,
          number: NUMBER,
          pin: PIN,
          amount: 5000,
          currency: 'EUR',
          externalIdentifier: 'order-1042',
          idempotencyKey: null,
        },
      ])
      expect(await right(s.giftCardVault.findByFingerprint(MERCHANT_A, s.mac.mac('card-fingerprint', NUMBER)))).to.deep.equal(O.none)
    })

    it('with store, keeps the number and PIN sealed in the vault', async () => {
      const s = setup()
      await s.ready()
      const result = await s.run({ number: NUMBER, pin: PIN, store: true })
      expect(result).to.deep.equal(E.right({ value: expectedCard(s), replayed: false }))
      const fingerprint = s.mac.mac('card-fingerprint', NUMBER)
      const stored = await right(s.giftCardVault.findByFingerprint(MERCHANT_A, fingerprint))
      if (O.isNone(stored)) throw new Error('card was not stored')
      expect(JSON.stringify(stored.value)).not.to.include(NUMBER).and.not.to.include(PIN)
      expect({
        ...stored.value,
        sealed_number: s.box.open(stored.value.sealed_number),
        sealed_pin: s.box.open(stored.value.sealed_pin!),
      }).to.deep.equal({
        card: expectedCard(s),
        fingerprint,
        sealed_number: NUMBER,
        sealed_pin: PIN,
      })
    })

    it('rejects a number already stored in the account, naming the stored card, without calling the provider again', async () => {
      const s = setup()
      await s.ready()
      await s.run({ number: NUMBER, pin: PIN, store: true })
      expect(await s.run({ number: NUMBER, pin: '1111', store: true })).to.deep.equal(E.left(duplicate('GiftCard', expectedCard(s).id)))
      expect(s.giftCardConnectors.calls).to.have.length(1)
    })

    it('stores the same number for another merchant account', async () => {
      const s = setup()
      await s.ready()
      await right(s.giftCardServices.upsert(aGiftCardServiceRecord({ merchant_account_id: MERCHANT_B })))
      await s.run({ number: NUMBER, pin: PIN, store: true })
      const theirs = await s.run({ number: NUMBER, pin: PIN, store: true }, null, MERCHANT_B)
      expect(E.isRight(theirs) && theirs.right.value.merchant_account_id).to.equal(MERCHANT_B)
      expect(s.giftCardConnectors.calls).to.have.length(2)
    })

    it('embeds the buyer named by buyer_id', async () => {
      const s = setup()
      await s.ready()
      const buyer = aBuyer({ merchant_account_id: MERCHANT_A })
      await right(s.buyers.create(buyer))
      expect(await s.run({ number: NUMBER, pin: PIN, store: true, buyer_id: buyer.id })).to.deep.equal(
        E.right({ value: expectedCard(s, { buyer }), replayed: false }),
      )
    })

    it('embeds the buyer named by buyer_external_identifier', async () => {
      const s = setup()
      await s.ready()
      const buyer = aBuyer({ merchant_account_id: MERCHANT_A, external_identifier: 'crm-000417' })
      await right(s.buyers.create(buyer))
      const result = await s.run({ number: NUMBER, pin: PIN, store: true, buyer_external_identifier: 'crm-000417' })
      expect(result).to.deep.equal(E.right({ value: expectedCard(s, { buyer }), replayed: false }))
      const stored = await right(s.giftCardVault.findByFingerprint(MERCHANT_A, s.mac.mac('card-fingerprint', NUMBER)))
      expect(O.map((v: { card: GiftCard }) => v.card.buyer)(stored)).to.deep.equal(O.some(buyer))
    })

    it('rejects an unknown buyer_id with a pointer to it, before reaching the provider', async () => {
      const s = setup()
      await s.ready()
      expect(await s.run({ number: NUMBER, pin: PIN, store: true, buyer_id: '5b7d5e2c-0f0e-4a57-9c2b-3d1e4f5a6b7c' })).to.deep.equal(
        E.left(invalidRequest(problem('input', ['buyer_id'], 'No buyer with this id exists in this merchant account', 'unknown_buyer'))),
      )
      expect(s.giftCardConnectors.calls).to.deep.equal([])
    })

    it("treats another account's buyer as unknown", async () => {
      const s = setup()
      await s.ready()
      const theirs = aBuyer({ merchant_account_id: MERCHANT_B, external_identifier: 'crm-000417' })
      await right(s.buyers.create(theirs))
      expect(await s.run({ number: NUMBER, pin: PIN, store: true, buyer_id: theirs.id })).to.deep.equal(
        E.left(invalidRequest(problem('input', ['buyer_id'], 'No buyer with this id exists in this merchant account', 'unknown_buyer'))),
      )
      expect(await s.run({ number: NUMBER, pin: PIN, store: true, buyer_external_identifier: 'crm-000417' })).to.deep.equal(
        E.left(
          invalidRequest(
            problem(
              'input',
              ['buyer_external_identifier'],
              'No buyer with this external identifier exists in this merchant account',
              'unknown_buyer',
            ),
          ),
        ),
      )
      expect(s.giftCardConnectors.calls).to.deep.equal([])
    })

    it('reports a declined card and stores nothing', async () => {
      const s = setup()
      await s.ready()
      expect(await s.run({ number: '6036280000000002', pin: PIN, store: true })).to.deep.equal(
        E.left(cardDeclined('The gift card was declined')),
      )
      expect(await right(s.giftCardVault.findByFingerprint(MERCHANT_A, s.mac.mac('card-fingerprint', '6036280000000002')))).to.deep.equal(
        O.none,
      )
    })

    it('reports a provider failure (502)', async () => {
      const s = setup()
      await s.ready()
      expect(await s.run({ number: '6036280000000502' })).to.deep.equal(
        E.left(serviceFailed('The gift card service could not process the activation', 'gift-card')),
      )
    })

    it('reports a provider that does not answer within the timeout (504)', async () => {
      const s = setup({ timeoutMs: 30 })
      await s.ready()
      expect(await s.run({ number: '6036280000000504' })).to.deep.equal(E.left(serviceTimeout('gift-card')))
    })

    it('rejects an account without a primary gift card service, before reaching any provider', async () => {
      const s = setup({ primary: false })
      await right(s.giftCardServices.upsert(aGiftCardServiceRecord({ merchant_account_id: MERCHANT_A, primary: false })))
      expect(await s.run({ number: NUMBER })).to.deep.equal(
        E.left(invalidRequest(problem(null, [], 'This merchant account has no primary gift card service', 'no_gift_card_service'))),
      )
      expect(s.giftCardConnectors.calls).to.deep.equal([])
    })
  })

  describe('with an idempotency key', () => {
    it('replays the first result for the same key and body, calling the provider once', async () => {
      const s = setup()
      await s.ready()
      const first = await s.run({ number: NUMBER, pin: PIN, store: true }, KEY)
      expect(first).to.deep.equal(E.right({ value: expectedCard(s), replayed: false }))
      s.clock.advance(60_000)
      // Same body, keys in another order: the same request.
      expect(await s.run({ store: true, pin: PIN, number: NUMBER }, KEY)).to.deep.equal(E.right({ value: expectedCard(s), replayed: true }))
      expect(s.giftCardConnectors.calls.map((c) => c.idempotencyKey)).to.deep.equal([KEY])
    })

    it('rejects the same key with another body, pointing at the header', async () => {
      const s = setup()
      await s.ready()
      await s.run({ number: NUMBER }, KEY)
      expect(await s.run({ number: '6036281234567891' }, KEY)).to.deep.equal(
        E.left(
          invalidRequest(
            problem('idempotencyKey', [], 'This idempotency key was already used with a different request body', 'idempotency_key_reused'),
          ),
        ),
      )
      expect(s.giftCardConnectors.calls).to.have.length(1)
    })

    it('answers InFlight while the first request with the key still runs', async () => {
      const s = setup({ slowMs: 200 })
      await s.ready()
      const first = s.run({ number: '6036280000000009' }, KEY)
      await new Promise((r) => setImmediate(r))
      expect(await s.run({ number: '6036280000000009' }, KEY)).to.deep.equal(E.left(inFlight(2)))
      expect(await first).to.deep.equal(E.right({ value: expectedCard(s, { sub_bin: '000', last4: '0009' }), replayed: false }))
      expect(s.giftCardConnectors.calls).to.have.length(1)
    })

    it('replays a declined outcome as Replayed', async () => {
      const s = setup()
      await s.ready()
      expect(await s.run({ number: '6036280000000002' }, KEY)).to.deep.equal(E.left(cardDeclined('The gift card was declined')))
      expect(await s.run({ number: '6036280000000002' }, KEY)).to.deep.equal(E.left(replayed(cardDeclined('The gift card was declined'))))
      expect(s.giftCardConnectors.calls).to.have.length(1)
    })

    it('does not record an early rejection, so a retry after fixing the cause succeeds', async () => {
      const s = setup()
      await s.ready()
      const body = { number: NUMBER, pin: PIN, store: true, buyer_external_identifier: 'crm-000417' }
      expect(await s.run(body, KEY)).to.deep.equal(
        E.left(
          invalidRequest(
            problem(
              'input',
              ['buyer_external_identifier'],
              'No buyer with this external identifier exists in this merchant account',
              'unknown_buyer',
            ),
          ),
        ),
      )
      const buyer = aBuyer({ merchant_account_id: MERCHANT_A, external_identifier: 'crm-000417' })
      await right(s.buyers.create(buyer))
      // The retry's own reserved id (the first attempt's was 1, its lease token 2).
      expect(await s.run(body, KEY)).to.deep.equal(
        E.right({ value: expectedCard(s, { buyer, id: '00000000-0000-4000-8000-000000000003' }), replayed: false }),
      )
    })

    it('does not record a provider failure (502), so the retry reaches the provider', async () => {
      const s = setup()
      await s.ready()
      const failed = E.left(serviceFailed('The gift card service could not process the activation', 'gift-card'))
      expect(await s.run({ number: '6036280000000502' }, KEY)).to.deep.equal(failed)
      expect(await s.run({ number: '6036280000000502' }, KEY)).to.deep.equal(failed)
      expect(s.giftCardConnectors.calls).to.have.length(2)
    })

    it('keeps keys of different merchant accounts apart', async () => {
      const s = setup()
      await s.ready()
      await right(s.giftCardServices.upsert(aGiftCardServiceRecord({ merchant_account_id: MERCHANT_B })))
      await s.run({ number: NUMBER }, KEY)
      const theirs = await s.run({ number: NUMBER }, KEY, MERCHANT_B)
      expect(E.isRight(theirs) && theirs.right).to.deep.include({ replayed: false })
      expect(s.giftCardConnectors.calls).to.have.length(2)
    })

    describe('a retry after the first attempt died (finding 11)', () => {
      const body = { number: NUMBER, pin: PIN, store: true }
      /** The first attempt runs until it would record its outcome, and its process dies there. */
      const diesBeforeRecording = async (s: ReturnType<typeof setup>) => {
        const complete = s.idempotency.complete.bind(s.idempotency)
        // Never settles: the process is gone before it records.
        s.idempotency.complete = () => () => new Promise(() => undefined)
        void s.run(body, KEY)
        await new Promise((r) => setTimeout(r, 20))
        s.idempotency.complete = complete
      }

      it('answers 201 with the card its first attempt vaulted, not 409, and records that answer', async () => {
        const s = setup()
        await s.ready()
        await diesBeforeRecording(s)
        const vaulted = await right(s.giftCardVault.findByFingerprint(MERCHANT_A, s.mac.mac('card-fingerprint', NUMBER)))
        expect(O.map((v: { card: GiftCard }) => v.card)(vaulted)).to.deep.equal(O.some(expectedCard(s)))
        // Within the dead attempt's lease the key is still held.
        expect(await s.run(body, KEY)).to.deep.equal(E.left(inFlight(2)))
        s.clock.advance(30_000)
        expect(await s.run(body, KEY)).to.deep.equal(E.right({ value: expectedCard(s), replayed: false }))
        expect(await s.run(body, KEY)).to.deep.equal(E.right({ value: expectedCard(s), replayed: true }))
        // The card was activated once, by the first attempt.
        expect(s.giftCardConnectors.calls).to.have.length(1)
      })

      it('still answers 409 to another key, or none, for that card', async () => {
        const s = setup()
        await s.ready()
        await diesBeforeRecording(s)
        s.clock.advance(30_000)
        expect(await s.run(body, 'another-key')).to.deep.equal(E.left(duplicate('GiftCard', expectedCard(s).id)))
        expect(await s.run(body, null)).to.deep.equal(E.left(duplicate('GiftCard', expectedCard(s).id)))
        // ...and the key's own retry is not fooled by them.
        expect(await s.run(body, KEY)).to.deep.equal(E.right({ value: expectedCard(s), replayed: false }))
      })

      it('an attempt whose lease was taken over cannot record: it answers 425, the new holder 201 with the card the first vaulted', async () => {
        const s = setup({ slowMs: 100 })
        await s.ready()
        const slow = { number: '6036280000000009', pin: PIN, store: true }
        const first = s.run(slow, KEY)
        await new Promise((r) => setTimeout(r, 10))
        // The first attempt outlives its lease; a retry takes the key over while it still runs.
        s.clock.advance(30_001)
        const second = s.run(slow, KEY)
        const [a, b] = await Promise.all([first, second])
        const stored = await right(s.giftCardVault.findByFingerprint(MERCHANT_A, s.mac.mac('card-fingerprint', '6036280000000009')))
        if (O.isNone(stored)) throw new Error('card was not stored')
        expect(stored.value.card.id).to.equal('00000000-0000-4000-8000-000000000001')
        expect(a).to.deep.equal(E.left(inFlight(2)))
        expect(b).to.deep.equal(E.right({ value: stored.value.card, replayed: false }))
        expect(await s.run(slow, KEY)).to.deep.equal(E.right({ value: stored.value.card, replayed: true }))
        expect(s.giftCardConnectors.calls).to.have.length(2)
      })
    })

    it('activates afresh once the replay period is over', async () => {
      const s = setup()
      await s.ready()
      await s.run({ number: NUMBER }, KEY)
      s.clock.advance(86_400_000)
      const again = await s.run({ number: NUMBER }, KEY)
      expect(again).to.deep.equal(
        E.right({
          value: expectedCard(s, {
            // Ids 1 and 2 went to the first request: its card and its lease token.
            id: '00000000-0000-4000-8000-000000000003',
            expiration_date: '2028-01-16T10:00:00.000Z',
            created_at: '2025-01-16T10:00:00.000Z',
            updated_at: '2025-01-16T10:00:00.000Z',
          }),
          replayed: false,
        }),
      )
      expect(s.giftCardConnectors.calls).to.have.length(2)
    })
  })
})
