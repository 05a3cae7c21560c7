import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import {
  ACCOUNT_REACH,
  forbidden,
  CardReach,
  duplicate,
  GiftCard,
  GiftCardCreate,
  invalidRequest,
  makeDeleteGiftCard,
  makeGetGiftCard,
  makeListGiftCards,
  makeStoreGiftCard,
  notFound,
  problem,
  serviceFailed,
  serviceTimeout,
} from '@orka/domain'
import { aBuyer, aGiftCardServiceRecord, aWebhookRecord, MERCHANT_A, MERCHANT_B, right } from '@orka/domain/testing'
import { activationWorld, expectedCard as sharedExpectedCard, NUMBER, outboxEntries, ACTOR } from './support'

const PIN = '73915286'
const KEY = 'c0d7a3e4-5b6f-4a1e-9c8d-7e6f5a4b3c2d'

const input = (body: Record<string, unknown>): GiftCardCreate => {
  const decoded = GiftCardCreate.decode(body)
  if (E.isLeft(decoded)) throw new Error(`test body does not decode: ${JSON.stringify(body)}`)
  return decoded.right
}

/** A use case that takes a `reach`, called with the account's unless the test names another. */
const withReach =
  <Q extends { reach: CardReach }, R>(f: (q: Q) => R) =>
  (q: Omit<Q, 'reach'> & { reach?: CardReach }): R =>
    f({ reach: ACCOUNT_REACH, ...q } as Q)

const setup = (o: { timeoutMs?: number; primary?: boolean } = {}) => {
  const w = activationWorld(o)
  const service = aGiftCardServiceRecord({ merchant_account_id: MERCHANT_A })
  const store = makeStoreGiftCard(w)
  const run = (body: Record<string, unknown>, idempotencyKey: string | null = null, merchantAccountId = MERCHANT_A) =>
    store({ merchantAccountId, actor: ACTOR, input: input(body), idempotencyKey, reach: ACCOUNT_REACH })()
  const ready = () => (o.primary === false ? Promise.resolve() : right(w.giftCardServices.upsert(service)))
  return {
    ...w,
    service,
    run,
    ready,
    list: withReach(makeListGiftCards(w)),
    get: withReach(makeGetGiftCard(w)),
    del: withReach(makeDeleteGiftCard(w)),
  }
}
type World = ReturnType<typeof setup>

const expectedCard = (s: World, o: Partial<GiftCard> = {}): GiftCard => sharedExpectedCard(s.service.service, o)

const refused = (type: string, message: string) => E.left(invalidRequest(problem('input', ['number'], message, type)))

describe('makeStoreGiftCard', () => {
  it('checks the card with the primary service, then vaults number and PIN sealed', async () => {
    const s = setup()
    await s.ready()
    const result = await s.run({ number: NUMBER, pin: PIN })
    expect(result).to.deep.equal(E.right({ value: expectedCard(s), replayed: false }))
    expect(s.giftCardConnectors.balanceCalls).to.deep.equal([{ service: s.service.service, number: NUMBER, pin: PIN }])
    expect(s.giftCardConnectors.calls).to.deep.equal([])
    const stored = await right(s.giftCardVault.findByFingerprint(MERCHANT_A, s.mac.mac('card-fingerprint', NUMBER)))
    if (O.isNone(stored)) throw new Error('card was not stored')
    expect(stored.value.card).to.deep.equal(expectedCard(s))
    expect(JSON.stringify(stored.value)).not.to.include(NUMBER).and.not.to.include(PIN)
    expect(s.box.open(stored.value.sealed_number)).to.equal(NUMBER)
    expect(stored.value.sealed_pin === null ? null : s.box.open(stored.value.sealed_pin)).to.equal(PIN)
  })

  it('stores an empty card (0004)', async () => {
    const s = setup()
    await s.ready()
    const result = await s.run({ number: '6036280000000004', pin: PIN })
    expect(result).to.deep.equal(E.right({ value: expectedCard(s, { sub_bin: '000', last4: '0004' }), replayed: false }))
  })

  it('refuses a card the service refuses (0002, 0003) with a 400 on number, and stores nothing', async () => {
    const s = setup()
    await s.ready()
    expect(await s.run({ number: '6036280000000002', pin: PIN })).to.deep.equal(
      refused('invalid_gift_card', 'The gift card service does not know this gift card'),
    )
    expect(await s.run({ number: '6036280000000003', pin: PIN })).to.deep.equal(refused('expired_card', 'The gift card has expired'))
    expect(await right(s.giftCardVault.list(MERCHANT_A, {}, { direction: 'forward', from: O.none, limit: 10 }))).to.deep.equal([])
  })

  it('reports the service failing (0502) and timing out (0504)', async () => {
    const s = setup({ timeoutMs: 40 })
    await s.ready()
    expect(await s.run({ number: '6036280000000502', pin: PIN })).to.deep.equal(
      E.left(serviceFailed('The gift card service could not check the balance', 'gift-card')),
    )
    expect(await s.run({ number: '6036280000000504', pin: PIN })).to.deep.equal(E.left(serviceTimeout('gift-card')))
  })

  it('refuses a card already stored, naming it, without asking the service again', async () => {
    const s = setup()
    await s.ready()
    await s.run({ number: NUMBER, pin: PIN })
    expect(await s.run({ number: NUMBER, pin: '0000' })).to.deep.equal(E.left(duplicate('GiftCard', expectedCard(s).id)))
    expect(s.giftCardConnectors.balanceCalls).to.have.length(1)
  })

  it('stores for a buyer named by id or external identifier; an unknown buyer is a NotFound naming the field', async () => {
    const s = setup()
    await s.ready()
    const buyer = aBuyer({ external_identifier: 'crm-1' })
    await right(s.buyers.create(buyer))
    const byId = await s.run({ number: NUMBER, pin: PIN, buyer_id: buyer.id })
    expect(E.map((r: { value: GiftCard }) => r.value.buyer)(byId)).to.deep.equal(E.right(buyer))
    const byExt = await s.run({ number: '6036281234567891', pin: PIN, buyer_external_identifier: 'crm-1' })
    expect(E.map((r: { value: GiftCard }) => r.value.buyer)(byExt)).to.deep.equal(E.right(buyer))
    const unknownId = 'fe26475d-ec3e-4884-9553-f7356683f7f9'
    expect(await s.run({ number: '6036281234567892', pin: PIN, buyer_id: unknownId })).to.deep.equal(
      E.left(
        notFound(
          'Buyer',
          unknownId,
          problem('input', ['buyer_id'], 'No buyer with this id exists in this merchant account', 'unknown_buyer'),
        ),
      ),
    )
    expect(await s.run({ number: '6036281234567892', pin: PIN, buyer_external_identifier: 'crm-2' })).to.deep.equal(
      E.left(
        notFound(
          'Buyer',
          '',
          problem(
            'input',
            ['buyer_external_identifier'],
            'No buyer with this external identifier exists in this merchant account',
            'unknown_buyer',
          ),
        ),
      ),
    )
    // Another account's buyer is unknown here.
    expect(E.isLeft(await s.run({ number: '6036281234567893', pin: PIN, buyer_id: buyer.id }, null, MERCHANT_B))).to.equal(true)
  })

  it('needs a primary gift card service', async () => {
    const s = setup({ primary: false })
    expect(await s.run({ number: NUMBER, pin: PIN })).to.deep.equal(
      E.left(invalidRequest(problem(null, [], 'This merchant account has no primary gift card service', 'no_gift_card_service'))),
    )
  })

  it('puts gift-card.created in the outbox and hands it over', async () => {
    const s = setup()
    await s.ready()
    await right(s.webhooks.create(aWebhookRecord({ merchant_account_id: MERCHANT_A })))
    await s.run({ number: NUMBER, pin: PIN })
    expect(s.dispatch.published.map((e) => [e.event_name, e.target_id])).to.deep.equal([['gift-card.created', expectedCard(s).id]])
    expect(s.dispatch.published[0]?.body).not.to.include(NUMBER)
  })

  describe('with an idempotency key', () => {
    it('replays the stored card, with the reserved id, without asking the service again', async () => {
      const s = setup()
      await s.ready()
      expect(await s.run({ number: NUMBER, pin: PIN }, KEY)).to.deep.equal(E.right({ value: expectedCard(s), replayed: false }))
      expect(await s.run({ pin: PIN, number: NUMBER }, KEY)).to.deep.equal(E.right({ value: expectedCard(s), replayed: true }))
      expect(s.giftCardConnectors.balanceCalls).to.have.length(1)
    })

    it('records no refusal or failure: a retry asks the service again', async () => {
      const s = setup()
      await s.ready()
      const body = { number: '6036280000000002', pin: PIN }
      expect(await s.run(body, KEY)).to.deep.equal(refused('invalid_gift_card', 'The gift card service does not know this gift card'))
      expect(await s.run(body, KEY)).to.deep.equal(refused('invalid_gift_card', 'The gift card service does not know this gift card'))
      expect(s.giftCardConnectors.balanceCalls).to.have.length(2)
    })

    it('refuses the key with another body', async () => {
      const s = setup()
      await s.ready()
      await s.run({ number: NUMBER, pin: PIN }, KEY)
      expect(await s.run({ number: '6036281234567891', pin: PIN }, KEY)).to.deep.equal(
        E.left(
          invalidRequest(
            problem('idempotencyKey', [], 'This idempotency key was already used with a different request body', 'idempotency_key_reused'),
          ),
        ),
      )
    })
  })
})

describe('storing for a buyer with an embed token', () => {
  it('stores for the claim’s buyer only; another, an unknown one, or any with no buyer named is Forbidden, before the service is asked', async () => {
    const s = setup()
    await s.ready()
    const buyer = aBuyer({ merchant_account_id: MERCHANT_A, external_identifier: 'crm-1' })
    const other = aBuyer({ merchant_account_id: MERCHANT_A, external_identifier: 'crm-2' })
    for (const b of [buyer, other]) await right(s.buyers.create(b))
    const store = makeStoreGiftCard(s)
    const run = (body: Record<string, unknown>, reach: CardReach) =>
      store({ merchantAccountId: MERCHANT_A, actor: ACTOR, input: input({ pin: PIN, ...body }), idempotencyKey: null, reach })()
    const claim: CardReach = { kind: 'buyer', buyer: { id: null, externalIdentifier: 'crm-1' } }
    const ok = await run({ number: '6036281234567101', buyer_id: buyer.id }, claim)
    expect(E.isRight(ok) && ok.right.value.buyer?.id).to.equal(buyer.id)
    expect(E.isRight(await run({ number: '6036281234567102' }, claim))).to.equal(true)
    expect(E.isRight(await run({ number: '6036281234567103' }, { kind: 'none' }))).to.equal(true)
    const calls = s.giftCardConnectors.balanceCalls.length
    for (const [body, reach] of [
      [{ buyer_id: other.id }, claim],
      [{ buyer_external_identifier: 'crm-3' }, claim],
      [{ buyer_id: buyer.id }, { kind: 'none' }],
    ] as const)
      expect(await run({ number: '6036281234567104', ...body }, reach)).to.deep.equal(E.left(forbidden('embed_buyer')))
    expect(s.giftCardConnectors.balanceCalls).to.have.length(calls)
  })
})

describe('makeListGiftCards, makeGetGiftCard, makeDeleteGiftCard', () => {
  const storeThree = async (s: World) => {
    await s.ready()
    const buyer = aBuyer({ external_identifier: 'crm-7' })
    await right(s.buyers.create(buyer))
    const cards: GiftCard[] = []
    for (const [i, extra] of [{}, { buyer_id: buyer.id }, { buyer_external_identifier: 'crm-7' }].entries()) {
      s.clock.advance(1000)
      const r = await s.run({ number: `603628123456789${i}`, pin: PIN, ...extra })
      if (E.isLeft(r)) throw new Error('not stored')
      cards.push(r.right.value)
    }
    return { buyer, cards }
  }

  it('lists newest first, page by page, and filters by buyer id or external identifier', async () => {
    const s = setup()
    const { buyer, cards } = await storeThree(s)
    const [c0, c1, c2] = cards
    const all = await right(s.list({ merchantAccountId: MERCHANT_A, filter: {} }))
    expect(all.items).to.deep.equal([c2, c1, c0])
    const first = await right(s.list({ merchantAccountId: MERCHANT_A, filter: {}, limit: 2 }))
    expect(first.items).to.deep.equal([c2, c1])
    const next = await right(s.list({ merchantAccountId: MERCHANT_A, filter: {}, limit: 2, cursor: first.next_cursor ?? '' }))
    expect(next.items).to.deep.equal([c0])
    expect((await right(s.list({ merchantAccountId: MERCHANT_A, filter: { buyer_id: buyer.id } }))).items).to.deep.equal([c2, c1])
    expect((await right(s.list({ merchantAccountId: MERCHANT_A, filter: { buyer_external_identifier: 'crm-7' } }))).items).to.deep.equal([
      c2,
      c1,
    ])
    expect((await right(s.list({ merchantAccountId: MERCHANT_A, filter: { buyer_external_identifier: 'crm-8' } }))).items).to.deep.equal([])
    expect(
      (await right(s.list({ merchantAccountId: MERCHANT_A, filter: { buyer_id: aBuyer().id, buyer_external_identifier: 'crm-7' } }))).items,
    ).to.deep.equal([])
    expect((await right(s.list({ merchantAccountId: MERCHANT_B, filter: {} }))).items).to.deep.equal([])
  })

  it('binds the cursor to the filter and the account', async () => {
    const s = setup()
    const { buyer } = await storeThree(s)
    const first = await right(s.list({ merchantAccountId: MERCHANT_A, filter: {}, limit: 1 }))
    const cursor = first.next_cursor ?? ''
    const bad = E.left(
      invalidRequest(
        problem('cursor', [], 'The cursor is not valid for this list; use a cursor from the previous response', 'invalid_cursor'),
      ),
    )
    expect(await s.list({ merchantAccountId: MERCHANT_A, filter: { buyer_id: buyer.id }, cursor })()).to.deep.equal(bad)
    expect(await s.list({ merchantAccountId: MERCHANT_B, filter: {}, cursor })()).to.deep.equal(bad)
  })

  it("gets a card of the account, and not another account's", async () => {
    const s = setup()
    const { cards } = await storeThree(s)
    const c = cards[0]!
    expect(await s.get({ merchantAccountId: MERCHANT_A, id: c.id })()).to.deep.equal(E.right(c))
    expect(await s.get({ merchantAccountId: MERCHANT_B, id: c.id })()).to.deep.equal(E.left(notFound('GiftCard', c.id)))
  })

  it('deletes a card once, destroying it, with gift-card.deleted through the outbox', async () => {
    const s = setup()
    const { cards } = await storeThree(s)
    const c = cards[0]!
    await right(s.webhooks.create(aWebhookRecord({ merchant_account_id: MERCHANT_A })))
    expect(await s.del({ merchantAccountId: MERCHANT_B, actor: ACTOR, id: c.id })()).to.deep.equal(E.left(notFound('GiftCard', c.id)))
    expect(await s.del({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: c.id })()).to.deep.equal(E.right(undefined))
    expect(await right(s.giftCardVault.findByFingerprint(MERCHANT_A, s.mac.mac('card-fingerprint', '6036281234567890')))).to.deep.equal(
      O.none,
    )
    expect(await s.get({ merchantAccountId: MERCHANT_A, id: c.id })()).to.deep.equal(E.left(notFound('GiftCard', c.id)))
    expect(await s.del({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: c.id })()).to.deep.equal(E.left(notFound('GiftCard', c.id)))
    expect(s.dispatch.published.map((e) => [e.event_name, e.target_id])).to.deep.equal([['gift-card.deleted', c.id]])
    expect(JSON.parse(s.dispatch.published[0]?.body ?? '{}')).to.deep.include({ name: 'gift-card.deleted', target: c })
    // In the outbox until the relay sees the card gone, then handed over (again: receivers drop duplicates by id).
    expect((await outboxEntries(s.outbox)).map((e) => e.event_name)).to.deep.equal(['gift-card.deleted'])
  })

  it('takes the event back when a racing delete removed the card first', async () => {
    const s = setup()
    const { cards } = await storeThree(s)
    const c = cards[0]!
    await right(s.webhooks.create(aWebhookRecord({ merchant_account_id: MERCHANT_A })))
    const racing = makeDeleteGiftCard({
      ...s,
      giftCardVault: Object.assign(Object.create(s.giftCardVault) as typeof s.giftCardVault, {
        delete: (m: string, id: string) => async () => {
          await right(s.giftCardVault.delete(m, id))
          return s.giftCardVault.delete(m, id)()
        },
      }),
    })
    expect(await racing({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: c.id, reach: ACCOUNT_REACH })()).to.deep.equal(
      E.left(notFound('GiftCard', c.id)),
    )
    expect(await outboxEntries(s.outbox)).to.deep.equal([])
    expect(s.dispatch.published).to.deep.equal([])
  })
})
