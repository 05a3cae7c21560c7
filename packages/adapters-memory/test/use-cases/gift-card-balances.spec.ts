import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  ACCOUNT_REACH,
  BalanceItem,
  CardReach,
  forbidden,
  GiftCard,
  GiftCardConnector,
  GiftCardConnectors,
  GiftCardSummary,
  makeCheckBalances,
  makeListBuyerGiftCards,
  MAX_BUYER_GIFT_CARDS,
  notFound,
  problem,
} from '@orka/domain'
import {
  aBuyer,
  aGiftCardService,
  aGiftCardSummary,
  aGiftCardServiceRecord,
  aVaultedCard,
  failingConnector,
  MERCHANT_A,
  MERCHANT_B,
  right,
} from '@orka/domain/testing'
import { activationWorld, START } from './support'

const PIN = '73915286'
const inThreeYears = '2028-01-15T10:00:00.000Z'

const setup = () => {
  const w = activationWorld({ timeoutMs: 50 })
  const primary = aGiftCardServiceRecord({ merchant_account_id: MERCHANT_A })
  /** A card in the vault, its number and PIN sealed as the store seals them. */
  const vaulted = async (number: string, card: Partial<GiftCard> = {}, pin: string | null = PIN) => {
    const v = aVaultedCard({
      card: { gift_card_service: primary.service, last4: number.slice(-4), created_at: START.toISOString(), ...card },
      sealed_number: w.box.seal(number),
      sealed_pin: pin === null ? null : w.box.seal(pin),
    })
    await right(w.giftCardVault.insert(v))
    return v.card
  }
  const check = (items: BalanceItem[], reach: CardReach = ACCOUNT_REACH) =>
    makeCheckBalances(w)({ merchantAccountId: MERCHANT_A, items, reach })()
  return { ...w, primary, vaulted, check, ready: () => right(w.giftCardServices.upsert(primary)) }
}

const summary = aGiftCardSummary
const funded = (o: Partial<GiftCardSummary>) => summary({ balance: 10000, currency: 'USD', expiration_date: inThreeYears, ...o })
const ofCard = (c: GiftCard, o: Partial<GiftCardSummary> = {}) =>
  funded({
    id: c.id,
    bin: c.bin,
    sub_bin: c.sub_bin,
    last4: c.last4,
    usage_count: c.usage_count,
    last_used_at: c.last_used_at ?? null,
    ...o,
  })

describe('makeCheckBalances', () => {
  it('asks the primary service about numbers, and a stored card’s own service with its unsealed number and PIN', async () => {
    const s = setup()
    await s.ready()
    const card = await s.vaulted('6036281234567001', { usage_count: 3, last_used_at: '2024-12-01T00:00:00.000Z' })
    const r = await s.check([{ number: '6036281234561234', pin: '11' }, { id: card.id }, { number: '6036281234560002', pin: '22' }])
    expect(r).to.deep.equal(
      E.right({
        items: [funded({ last4: '1234' }), ofCard(card), summary({ last4: '0002', balance_error_code: 'invalid_gift_card' })],
      }),
    )
    expect(s.giftCardConnectors.balanceCalls).to.deep.equal([
      { service: s.primary.service, number: '6036281234561234', pin: '11' },
      { service: card.gift_card_service, number: '6036281234567001', pin: PIN },
      { service: s.primary.service, number: '6036281234560002', pin: '22' },
    ])
  })

  it('gives each item its own answer: empty, expired, failing and silent services never fail the others', async () => {
    const s = setup()
    await s.ready()
    const r = await s.check(['0004', '0003', '0502', '0504', '7777'].map((l) => ({ number: `603628123456${l}`, pin: PIN })))
    expect(r).to.deep.equal(
      E.right({
        items: [
          summary({ last4: '0004', balance: 0, currency: 'USD', expiration_date: inThreeYears }),
          summary({ last4: '0003', balance_error_code: 'expired_card' }),
          summary({ last4: '0502', balance_error_code: 'service_error' }),
          summary({ last4: '0504', balance_error_code: 'service_network_error' }),
          funded({ last4: '7777' }),
        ],
      }),
    )
  })

  it('answers invalid_service_configuration without a primary service or a connector for the card’s service', async () => {
    const s = setup()
    const elsewhere = await s.vaulted('6036281234567002', {
      gift_card_service: aGiftCardService({ gift_card_service_definition_id: 'valuelink-gift-card' }),
    })
    const known = await s.vaulted('6036281234567003')
    const r = await s.check([{ number: '6036281234561234', pin: PIN }, { id: elsewhere.id }, { id: known.id }])
    expect(r).to.deep.equal(
      E.right({
        items: [
          summary({ last4: '1234', balance_error_code: 'invalid_service_configuration' }),
          ofCard(elsewhere, {
            balance: null,
            currency: null,
            expiration_date: elsewhere.expiration_date ?? null,
            balance_error_code: 'invalid_service_configuration',
          }),
          ofCard(known),
        ],
      }),
    )
    expect(s.giftCardConnectors.balanceCalls.map((c) => c.number)).to.deep.equal(['6036281234567003'])
  })

  it('treats a connector that throws or answers garbage as that item’s service_error', async () => {
    const s = setup()
    await s.ready()
    const answers: Record<string, () => TE.TaskEither<unknown, unknown>> = {
      '1111': () => {
        throw new Error(`connector bug quoting ${PIN}`)
      },
      '2222': () => TE.right({ _tag: 'Balance', balance: -5, currency: 'usd', expirationDate: 'soon' }),
      '3333': () => TE.left({ _tag: 'Teapot' }),
    }
    const odd: GiftCardConnectors = {
      forDefinition: () =>
        O.some({
          activate: () => TE.left({ _tag: 'Teapot' }),
          balance: (req: { number: string }) => answers[req.number.slice(-4)]!(),
        } as unknown as GiftCardConnector),
    }
    const r = await makeCheckBalances({ ...s, giftCardConnectors: odd })({
      merchantAccountId: MERCHANT_A,
      items: ['1111', '2222', '3333'].map((l) => ({ number: `603628123456${l}`, pin: PIN })),
      reach: ACCOUNT_REACH,
    })()
    expect(r).to.deep.equal(
      E.right({ items: ['1111', '2222', '3333'].map((last4) => summary({ last4, balance_error_code: 'service_error' })) }),
    )
    expect(JSON.stringify(r)).not.to.include(PIN)
  })

  it('checks the items at once, not one after another', async () => {
    const s = setup()
    await s.ready()
    let inFlight = 0
    let most = 0
    const parallel: GiftCardConnectors = {
      forDefinition: () =>
        O.some({
          ...failingConnector(),
          balance: () => async () => {
            most = Math.max(most, ++inFlight)
            await new Promise((resolve) => setImmediate(resolve))
            inFlight--
            return E.right({ _tag: 'Balance', balance: 1, currency: 'USD', expirationDate: null })
          },
        }),
    }
    const items = Array.from({ length: 10 }, (_, i) => ({ number: `60362812345670${String(i).padStart(2, '0')}`, pin: PIN }))
    await makeCheckBalances({ ...s, giftCardConnectors: parallel })({ merchantAccountId: MERCHANT_A, items, reach: ACCOUNT_REACH })()
    expect(most).to.equal(10)
  })

  it('answers 404 naming the first id the caller cannot see, before asking any service', async () => {
    const s = setup()
    await s.ready()
    const mine = await s.vaulted('6036281234567004')
    const theirs = aVaultedCard({ card: { merchant_account_id: MERCHANT_B } })
    await right(s.giftCardVault.insert(theirs))
    const gone = await s.vaulted('6036281234567005')
    await right(s.giftCardVault.delete(MERCHANT_A, gone.id))
    for (const id of [theirs.card.id, gone.id]) {
      const r = await s.check([
        { number: '6036281234561234', pin: PIN },
        { id: mine.id },
        { id },
        { id: 'ffffffff-ffff-4fff-8fff-ffffffffffff' },
      ])
      expect(r).to.deep.equal(
        E.left(
          notFound(
            'GiftCard',
            id,
            problem('input', ['items', '2', 'id'], 'No gift card with the id of item 2 exists', 'unknown_gift_card'),
          ),
        ),
      )
    }
    expect(s.giftCardConnectors.balanceCalls).to.deep.equal([])
  })

  it('lets an embed token ask about numbers, and about stored cards only of its claim’s buyer', async () => {
    const s = setup()
    await s.ready()
    const buyer = aBuyer({ merchant_account_id: MERCHANT_A, external_identifier: 'crm-1' })
    await right(s.buyers.create(buyer))
    const own = await s.vaulted('6036281234567006', { buyer })
    const other = await s.vaulted('6036281234567007', { buyer: aBuyer() })
    const none: CardReach = { kind: 'none' }
    expect(await s.check([{ number: '6036281234561234', pin: PIN }], none)).to.deep.equal(E.right({ items: [funded({ last4: '1234' })] }))
    expect(await s.check([{ id: own.id }], none)).to.deep.equal(E.left(forbidden('embed_buyer')))
    for (const named of [
      { id: buyer.id, externalIdentifier: null },
      { id: null, externalIdentifier: 'crm-1' },
      { id: buyer.id, externalIdentifier: 'crm-1' },
    ]) {
      const reach: CardReach = { kind: 'buyer', buyer: named }
      expect(await s.check([{ id: own.id }], reach)).to.deep.equal(E.right({ items: [ofCard(own)] }))
      expect(await s.check([{ id: other.id }], reach)).to.deep.include({ _tag: 'Left' })
    }
    // Both names given, they must name the same buyer.
    const mismatch: CardReach = { kind: 'buyer', buyer: { id: buyer.id, externalIdentifier: 'crm-2' } }
    expect(await s.check([{ id: own.id }], mismatch)).to.deep.include({ _tag: 'Left' })
  })
})

describe('makeListBuyerGiftCards', () => {
  const world = async () => {
    const s = setup()
    const buyer = aBuyer({ merchant_account_id: MERCHANT_A, external_identifier: 'crm-9' })
    await right(s.buyers.create(buyer))
    const list = (
      o: {
        sortBy?: 'usage_count' | 'last_used_at'
        orderBy?: 'asc' | 'desc'
        reach?: CardReach
        buyer?: { id: string } | { externalIdentifier: string }
      } = {},
    ) =>
      makeListBuyerGiftCards(s)({
        merchantAccountId: MERCHANT_A,
        buyer: o.buyer ?? { id: buyer.id },
        sortBy: o.sortBy ?? null,
        orderBy: o.orderBy ?? 'desc',
        reach: o.reach ?? ACCOUNT_REACH,
      })
    return { ...s, buyer, list }
  }
  const at = (s: number) => new Date(START.getTime() + s * 1000).toISOString()

  it('lists the buyer’s usable cards with balances, newest first: failing ones with their code, expired and empty ones left out', async () => {
    const s = await world()
    const ok = await s.vaulted('6036281234567010', { buyer: s.buyer, created_at: at(1) })
    const failing = await s.vaulted('6036281234560502', { buyer: s.buyer, created_at: at(2) })
    const unknown = await s.vaulted('6036281234560002', { buyer: s.buyer, created_at: at(3) })
    await s.vaulted('6036281234560004', { buyer: s.buyer, created_at: at(4) })
    await s.vaulted('6036281234560003', { buyer: s.buyer, created_at: at(5) })
    await s.vaulted('6036281234567011', { buyer: s.buyer, created_at: at(6), expiration_date: at(-1) })
    await s.vaulted('6036281234567012', { buyer: aBuyer(), created_at: at(7) })
    await s.vaulted('6036281234567013', { created_at: at(8) })
    const r = await s.list()()
    expect(r).to.deep.equal(
      E.right({
        items: [
          ofCard(unknown, {
            balance: null,
            currency: null,
            expiration_date: unknown.expiration_date ?? null,
            balance_error_code: 'invalid_gift_card',
          }),
          ofCard(failing, {
            balance: null,
            currency: null,
            expiration_date: failing.expiration_date ?? null,
            balance_error_code: 'service_error',
          }),
          ofCard(ok),
        ],
      }),
    )
    // The card stored as expired is not even asked about.
    expect(s.giftCardConnectors.balanceCalls.map((c) => c.number.slice(-4)).sort()).to.deep.equal(['0002', '0003', '0004', '0502', '7010'])
    expect(await s.list({ buyer: { externalIdentifier: 'crm-9' } })()).to.deep.equal(r)
  })

  it('sorts by a usage field (a never-used card’s null as the smallest), then by age, either way', async () => {
    const s = await world()
    const a = await s.vaulted('6036281234567020', { buyer: s.buyer, created_at: at(1), usage_count: 5, last_used_at: at(100) })
    const b = await s.vaulted('6036281234567021', { buyer: s.buyer, created_at: at(2), usage_count: 1, last_used_at: null })
    const c = await s.vaulted('6036281234567022', { buyer: s.buyer, created_at: at(3), usage_count: 5, last_used_at: at(50) })
    const ids = async (o: Parameters<typeof s.list>[0]) => (await right(s.list(o))).items.map((x) => x.id)
    expect(await ids({})).to.deep.equal([c.id, b.id, a.id])
    expect(await ids({ orderBy: 'asc' })).to.deep.equal([a.id, b.id, c.id])
    expect(await ids({ sortBy: 'usage_count' })).to.deep.equal([c.id, a.id, b.id])
    expect(await ids({ sortBy: 'usage_count', orderBy: 'asc' })).to.deep.equal([b.id, a.id, c.id])
    expect(await ids({ sortBy: 'last_used_at' })).to.deep.equal([a.id, c.id, b.id])
    expect(await ids({ sortBy: 'last_used_at', orderBy: 'asc' })).to.deep.equal([b.id, c.id, a.id])
  })

  it(`checks at most the buyer's ${MAX_BUYER_GIFT_CARDS} newest cards`, async () => {
    const s = await world()
    for (let i = 0; i <= MAX_BUYER_GIFT_CARDS; i++)
      await s.vaulted(`60362812345${String(61000 + i)}`, { buyer: s.buyer, created_at: at(i) })
    const r = await right(s.list())
    expect(r.items).to.have.length(MAX_BUYER_GIFT_CARDS)
    expect(s.giftCardConnectors.balanceCalls.map((c) => c.number)).not.to.include('6036281234561000')
  })

  it('has no cards for an unknown buyer or another than an embed token’s, and refuses an embed token naming none', async () => {
    const s = await world()
    await s.vaulted('6036281234567030', { buyer: s.buyer })
    expect(await s.list({ buyer: { id: 'ffffffff-ffff-4fff-8fff-ffffffffffff' } })()).to.deep.equal(E.right({ items: [] }))
    expect(await s.list({ buyer: { externalIdentifier: 'nobody' } })()).to.deep.equal(E.right({ items: [] }))
    const another = aBuyer({ merchant_account_id: MERCHANT_A })
    await right(s.buyers.create(another))
    expect(await s.list({ reach: { kind: 'buyer', buyer: { id: another.id, externalIdentifier: null } } })()).to.deep.equal(
      E.right({ items: [] }),
    )
    expect(await s.list({ reach: { kind: 'none' } })()).to.deep.equal(E.left(forbidden('embed_buyer')))
    expect((await right(s.list({ reach: { kind: 'buyer', buyer: { id: null, externalIdentifier: 'crm-9' } } }))).items).to.have.length(1)
    expect(s.giftCardConnectors.balanceCalls).to.have.length(1)
  })
})
