import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  GiftCardConnector,
  makeCreateTransaction,
  makeRefundAllTransaction,
  makeRefundTransaction,
  RedemptionRequest,
  serviceTimeout,
  TransactionRecord,
  VaultedGiftCard,
} from '@orka/domain'
import {
  aBuyer,
  aVaultedCard,
  DECLINED,
  MERCHANT_A,
  MERCHANT_B,
  OPERATION_DECLINED,
  passThrough,
  right,
  ScriptedCardConnector,
} from '@orka/domain/testing'
import { MOCK_BALANCE } from '@orka/adapters-node'
import { invariants, payment, record, transactionWorld, TransactionWorld } from './transaction-world'
import { testBox, ACTOR } from './support'

const GIFT = '4123450000001111'
const OTHER = '4123450000002222'
const THIRD = '4123450000003333'
const EMPTY = '4123450000000004'
const REFUSED = '4123450000000002'
const PIN = '1234'
const gift = (number: string, amount: number) => ({ number, pin: PIN, amount })
const split = (o: Record<string, unknown>) => payment({ amount: 10_000, ...o })
/** A payment with no card: the gift cards pay all of it. */
const giftOnly = (o: Record<string, unknown>) => ({ ...payment({ amount: 10_000, ...o }), payment_method: undefined })

/** The names of a transaction's events log, every version's events in order. */
const eventsOf = async (w: TransactionWorld, id: string) => (await right(w.transactions.history(MERCHANT_A, id))).flatMap((r) => r.events)

/** What the sandbox provider says a card holds now. */
const balanceOf = async (w: TransactionWorld, number: string) => {
  const b = await right(w.giftCardMock.balance({ service: w.giftCardService, number, pin: PIN }))
  return b._tag === 'Balance' ? b.balance : null
}

/** The money rule for each card these payments touched: opening − what stands redeemed = the provider's balance, never below 0. */
const balancesHold = async (w: TransactionWorld, numbers: Record<string, number>, rs: readonly TransactionRecord[]) => {
  const box = testBox()
  for (const [number, opening] of Object.entries(numbers)) {
    const standing = rs
      .flatMap((r) => r.gift_card_redemptions ?? [])
      .filter((x) => box.open(x.sealed_number) === number && x.status === 'succeeded' && x.reversal?.status !== 'succeeded')
      .reduce((a, x) => a + x.amount, 0)
    const balance = await balanceOf(w, number)
    expect(balance, `balance of …${number.slice(-4)}`).to.equal(opening - standing)
    expect(balance).to.be.at.least(0)
  }
}

const view = (r: TransactionRecord) =>
  (r.gift_card_redemptions ?? []).map((x) => [x.status, x.amount, x.error_code, x.reversal?.status ?? null])

describe('split payments: gift cards and a card in one transaction', () => {
  it('authorizes the card part first, then redeems each gift card; the payment is authorized for the card part only', async () => {
    const card = new ScriptedCardConnector()
    const w = await transactionWorld([card])
    const paid = await right(w.create(split({ gift_cards: [gift(GIFT, 2500), gift(OTHER, 1500)] })))
    const t = paid.value
    expect([t.status, t.amount, t.authorized_amount, t.captured_amount, t.intent_outcome, t.multi_tender, t.method]).to.deep.equal([
      'authorization_succeeded',
      10_000,
      6000,
      0,
      'succeeded',
      true,
      'card',
    ])
    expect(t.gift_card_redemptions).to.deep.equal([
      {
        type: 'gift-card-redemption',
        id: t.gift_card_redemptions[0]?.id,
        status: 'succeeded',
        amount: 2500,
        refunded_amount: 0,
        gift_card_service_redemption_id: null,
        error_code: null,
        raw_error_code: null,
        raw_error_message: null,
        gift_card: { type: 'gift-card', id: null, bin: '412345', sub_bin: '000', last4: '1111' },
      },
      {
        type: 'gift-card-redemption',
        id: t.gift_card_redemptions[1]?.id,
        status: 'succeeded',
        amount: 1500,
        refunded_amount: 0,
        gift_card_service_redemption_id: null,
        error_code: null,
        raw_error_code: null,
        raw_error_message: null,
        gift_card: { type: 'gift-card', id: null, bin: '412345', sub_bin: '000', last4: '2222' },
      },
    ])
    expect(card.calls).to.deep.equal([{ op: 'authorize', reference: `${t.id}:authorize:1`, amount: 6000 }])
    expect(await balanceOf(w, GIFT)).to.equal(MOCK_BALANCE - 2500)
    expect(await balanceOf(w, OTHER)).to.equal(MOCK_BALANCE - 1500)
    const r = await record(w, t.id)
    expect(r.pending).to.equal(false)
    invariants(r, [card])
    // Five writes: the request, the card's answer, the first gift card asked for, its answer with
    // the second asked for, the second's answer with the final status.
    expect((await right(w.transactions.history(MERCHANT_A, t.id))).map((v) => v.status)).to.deep.equal([
      'processing',
      'processing',
      'processing',
      'processing',
      'authorization_succeeded',
    ])
    // The events log: each redemption asked for, then answered; never a number or PIN.
    const events = await eventsOf(w, t.id)
    expect(events.map((e) => e.name).filter((n) => n.startsWith('gift-card'))).to.deep.equal([
      'gift-card-redemption-succeeded',
      'gift-card-redemption-succeeded',
    ])
    expect(JSON.stringify(events)).not.to.match(/4123450000001111|0000002222|"1234"/)
  })

  it('with gift cards paying it all, takes no card: the payment is captured at once', async () => {
    const card = new ScriptedCardConnector()
    const w = await transactionWorld([card])
    const t = (await right(w.create(giftOnly({ gift_cards: [gift(GIFT, 7000), gift(OTHER, 3000)] })))).value
    expect([t.status, t.authorized_amount, t.payment_method, t.method, t.instrument_type, t.intent_outcome, t.multi_tender]).to.deep.equal([
      'capture_succeeded',
      0,
      null,
      'gift-card',
      null,
      'succeeded',
      true,
    ])
    expect(card.calls).to.deep.equal([])
    expect(await balanceOf(w, GIFT)).to.equal(MOCK_BALANCE - 7000)
    const one = (await right(w.create(giftOnly({ amount: 500, gift_cards: [gift(THIRD, 500)] })))).value
    expect([one.status, one.multi_tender]).to.deep.equal(['capture_succeeded', false])
  })

  it('with intent capture, captures the card part only once every gift card is redeemed', async () => {
    const card = new ScriptedCardConnector()
    const w = await transactionWorld([card])
    const t = (await right(w.create(split({ intent: 'capture', gift_cards: [gift(GIFT, 4000)] })))).value
    expect([t.status, t.authorized_amount, t.captured_amount, t.intent_outcome]).to.deep.equal([
      'capture_succeeded',
      6000,
      6000,
      'succeeded',
    ])
    expect(card.calls.map((c) => [c.op, c.amount])).to.deep.equal([
      ['authorize', 6000],
      ['capture', 6000],
    ])
    invariants(await record(w, t.id), [card])
  })

  it('undoes the payment when a gift card is refused: earlier redemptions reversed, later ones skipped, the card part voided', async () => {
    const card = new ScriptedCardConnector()
    const w = await transactionWorld([card])
    const t = (await right(w.create(split({ gift_cards: [gift(GIFT, 2500), gift(EMPTY, 1000), gift(OTHER, 500)] })))).value
    expect([t.status, t.error_code, t.intent_outcome, t.authorized_amount]).to.deep.equal([
      'authorization_voided',
      'insufficient_funds',
      'failed',
      6000,
    ])
    expect(t.gift_card_redemptions.map((x) => [x.status, x.amount, x.refunded_amount, x.error_code])).to.deep.equal([
      ['succeeded', 2500, 2500, null],
      ['failed', 1000, 0, 'insufficient_funds'],
      ['skipped', 500, 0, null],
    ])
    expect(card.calls.map((c) => c.op)).to.deep.equal(['authorize', 'void'])
    const r = await record(w, t.id)
    expect(r.pending).to.equal(false)
    invariants(r, [card])
    await balancesHold(w, { [GIFT]: MOCK_BALANCE, [EMPTY]: 0, [OTHER]: MOCK_BALANCE }, [r])
    expect(await balanceOf(w, GIFT)).to.equal(MOCK_BALANCE)
    const names = (await eventsOf(w, t.id)).map((e) => e.name)
    expect(names.filter((n) => n.startsWith('gift-card'))).to.deep.equal([
      'gift-card-redemption-succeeded',
      'gift-card-redemption-failed',
      'gift-card-reversal-succeeded',
    ])
  })

  it('ends a gift-card-only payment declined when a card is refused, failed when a provider does not answer', async () => {
    const w = await transactionWorld([new ScriptedCardConnector()], (mock) => ({
      ...passThrough(mock),
      redeem: (req) => (req.number === THIRD ? TE.left(serviceTimeout('gift-card')) : mock.redeem(req)),
    }))
    const declined = (await right(w.create(giftOnly({ gift_cards: [gift(GIFT, 9000), gift(REFUSED, 1000)] })))).value
    expect([declined.status, declined.error_code, declined.intent_outcome]).to.deep.equal([
      'authorization_declined',
      'invalid_gift_card',
      'failed',
    ])
    const failed = (await right(w.create(giftOnly({ gift_cards: [gift(OTHER, 9000), gift(THIRD, 1000)] })))).value
    expect([failed.status, failed.error_code]).to.deep.equal(['authorization_failed', 'service_network_error'])
    expect(view(await record(w, failed.id))).to.deep.equal([
      ['succeeded', 9000, null, 'succeeded'],
      // No answer: it may have taken the amount, so it is reversed too (the provider gives back what it took, here nothing).
      ['failed', 1000, 'service_network_error', 'succeeded'],
    ])
    await balancesHold(w, { [GIFT]: MOCK_BALANCE, [OTHER]: MOCK_BALANCE, [THIRD]: MOCK_BALANCE }, [
      await record(w, declined.id),
      await record(w, failed.id),
    ])
  })

  it('gives back a redemption the provider took but never confirmed', async () => {
    // The provider applies the redemption, then the answer is lost on the way back.
    const w = await transactionWorld([new ScriptedCardConnector()], (mock) => ({
      ...passThrough(mock),
      redeem: (req) => async () => (await mock.redeem(req)(), E.left(serviceTimeout('gift-card'))),
    }))
    const t = (await right(w.create(split({ gift_cards: [gift(GIFT, 3000)] })))).value
    expect([t.status, t.error_code]).to.deep.equal(['authorization_voided', 'service_network_error'])
    expect(await balanceOf(w, GIFT)).to.equal(MOCK_BALANCE)
  })

  it('skips every gift card when the card part is declined: nothing is redeemed', async () => {
    const card = new ScriptedCardConnector({ authorize: () => DECLINED('do_not_honor') })
    const w = await transactionWorld([card])
    const t = (await right(w.create(split({ gift_cards: [gift(GIFT, 3000)] })))).value
    expect([t.status, t.error_code, t.intent_outcome]).to.deep.equal(['authorization_declined', 'do_not_honor', 'failed'])
    expect(t.gift_card_redemptions.map((x) => x.status)).to.deep.equal(['skipped'])
    expect(await balanceOf(w, GIFT)).to.equal(MOCK_BALANCE)
  })

  it('refuses a gift card in another currency (incorrect_currency) and one with no gift card service to redeem it', async () => {
    const w = await transactionWorld([new ScriptedCardConnector()])
    const eur = (await right(w.create(giftOnly({ currency: 'EUR', gift_cards: [gift(GIFT, 10_000)] })))).value
    expect([eur.status, eur.error_code]).to.deep.equal(['authorization_declined', 'incorrect_currency'])
    const none = await right(
      makeCreateTransaction(w)({
        merchantAccountId: 'no-service',
        actor: ACTOR,
        input: giftOnly({ gift_cards: [gift(GIFT, 10_000)] }),
        idempotencyKey: null,
        embed: null,
      }),
    )
    expect([none.value.status, none.value.error_code]).to.deep.equal(['authorization_declined', 'invalid_service_configuration'])
  })

  it('keeps a voided split payment pending while a reversal does not answer; recovery gets it through', async () => {
    let down = true
    const card = new ScriptedCardConnector()
    const w = await transactionWorld([card], (mock) => ({
      ...passThrough(mock),
      reverse: (req) => (down ? TE.left(serviceTimeout('gift-card')) : mock.reverse(req)),
    }))
    const t = (await right(w.create(split({ gift_cards: [gift(GIFT, 3000), gift(REFUSED, 1000)] })))).value
    expect([t.status, t.error_code]).to.deep.equal(['processing', 'invalid_gift_card'])
    expect(card.calls.map((c) => c.op)).to.deep.equal(['authorize'])
    expect((await record(w, t.id)).pending).to.equal(true)
    down = false
    w.clock.advance(61_000)
    expect(await right(w.recover())).to.deep.equal({ settled: 1, stillPending: 0 })
    const r = await record(w, t.id)
    expect([r.status, r.error_code, r.pending]).to.deep.equal(['authorization_voided', 'invalid_gift_card', false])
    expect(card.calls.map((c) => c.op)).to.deep.equal(['authorize', 'void'])
    invariants(r, [card])
    await balancesHold(w, { [GIFT]: MOCK_BALANCE }, [r])
  })

  it('after a stop during a redemption, recovery undoes the payment; the redemption arriving late takes nothing', async () => {
    const card = new ScriptedCardConnector()
    let arrive: () => void = () => undefined
    const late = new Promise<void>((resolve) => (arrive = resolve))
    const held: RedemptionRequest[] = []
    const w = await transactionWorld([card])
    // The process "stops" with the second redemption sent: its answer never comes back to it.
    const stopped: GiftCardConnector = {
      ...passThrough(w.giftCardMock),
      redeem: (req) =>
        req.number === OTHER
          ? async () => {
              held.push(req)
              await late
              return w.giftCardMock.redeem(req)()
            }
          : w.giftCardMock.redeem(req),
    }
    const create = makeCreateTransaction({ ...w, giftCards: { ...w.giftCards, connectors: { forDefinition: () => O.some(stopped) } } })
    void create({
      merchantAccountId: MERCHANT_A,
      actor: ACTOR,
      input: split({ gift_cards: [gift(GIFT, 3000), gift(OTHER, 2000)] }),
      idempotencyKey: null,
      embed: null,
    })()
    while (held.length === 0) await new Promise((r) => setImmediate(r))
    const [id] = (await right(w.transactions.list(MERCHANT_A, {}, { direction: 'forward', from: O.none, limit: 10 }))).map((r) => r.id)
    if (id === undefined) throw new Error('nothing recorded')
    w.clock.advance(61_000)
    expect(await right(w.recover())).to.deep.equal({ settled: 1, stillPending: 0 })
    const r = await record(w, id)
    expect([r.status, r.error_code]).to.deep.equal(['authorization_voided', 'service_error'])
    expect(view(r)).to.deep.equal([
      ['succeeded', 3000, null, 'succeeded'],
      ['failed', 2000, 'service_error', 'succeeded'],
    ])
    arrive()
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(await right(w.giftCardMock.redeem({ ...held[0]!, service: w.giftCardService }))).to.deep.equal({
      _tag: 'Refused',
      errorCode: 'operation_canceled',
    })
    await balancesHold(w, { [GIFT]: MOCK_BALANCE, [OTHER]: MOCK_BALANCE }, [await record(w, id)])
    invariants(await record(w, id), [card])
  })

  it('answers a retry of a payment that stopped half way with its settled outcome', async () => {
    const card = new ScriptedCardConnector()
    const w = await transactionWorld([card])
    const stop = makeCreateTransaction({
      ...w,
      giftCards: {
        ...w.giftCards,
        connectors: { forDefinition: () => O.some({ ...passThrough(w.giftCardMock), redeem: () => () => new Promise(() => undefined) }) },
      },
    })
    const input = split({ gift_cards: [gift(GIFT, 3000)] })
    void stop({ merchantAccountId: MERCHANT_A, actor: ACTOR, input, idempotencyKey: 'k1', embed: null })()
    for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r))
    w.clock.advance(31_000) // past the idempotency lease of the stopped request
    const retried = await right(w.create(input, 'k1'))
    expect([retried.value.status, retried.value.error_code, retried.replayed]).to.deep.equal([
      'authorization_voided',
      'service_error',
      false,
    ])
    expect((await right(w.create(input, 'k1'))).value).to.deep.equal(retried.value)
    expect(await balanceOf(w, GIFT)).to.equal(MOCK_BALANCE)
  })

  it("spends stored cards by id: their usage is counted; another account's, an unknown or an unreachable one is a 404 and nothing moves", async () => {
    const w = await transactionWorld([new ScriptedCardConnector()])
    const buyer = aBuyer()
    await right(w.buyers.create(buyer))
    const stored: VaultedGiftCard = aVaultedCard({
      card: { gift_card_service: w.giftCardService, bin: '412345', sub_bin: '000', last4: '1111', buyer },
      sealed_number: testBox().seal(GIFT),
      sealed_pin: testBox().seal(PIN),
    })
    await right(w.giftCards.vault.insert(stored))
    const t = (await right(w.create(giftOnly({ amount: 1200, gift_cards: [{ id: stored.card.id, amount: 1200 }] })))).value
    expect([t.status, t.gift_card_redemptions[0]?.gift_card]).to.deep.equal([
      'capture_succeeded',
      { type: 'gift-card', id: stored.card.id, bin: '412345', sub_bin: '000', last4: '1111' },
    ])
    const after = O.toNullable(await right(w.giftCards.vault.findById(MERCHANT_A, stored.card.id)))
    expect([after?.card.usage_count, after?.card.last_used_at]).to.deep.equal([1, w.clock.now().toISOString()])
    expect(await balanceOf(w, GIFT)).to.equal(MOCK_BALANCE - 1200)

    const other = aBuyer()
    await right(w.buyers.create(other))
    const create = makeCreateTransaction(w)
    const input = giftOnly({ amount: 1200, gift_cards: [gift(OTHER, 200), { id: stored.card.id, amount: 1000 }] })
    const outcome = async (merchantAccountId: string, embedBuyer: string | null | undefined) => {
      const out = await create({
        merchantAccountId,
        actor: ACTOR,
        input: embedBuyer == null ? input : { ...input, buyer_id: embedBuyer },
        idempotencyKey: null,
        embed:
          embedBuyer === undefined ? null : { buyer: embedBuyer === null ? null : { id: embedBuyer, externalIdentifier: null }, pins: {} },
      })()
      return E.isLeft(out) ? out.left._tag : 'paid'
    }
    expect(await outcome(MERCHANT_B, undefined)).to.equal('NotFound')
    expect(await outcome(MERCHANT_A, other.id)).to.equal('NotFound')
    expect(await outcome(MERCHANT_A, null)).to.equal('Forbidden')
    const unknown = giftOnly({ amount: 1200, gift_cards: [{ id: aVaultedCard().card.id, amount: 1200 }] })
    const missing = await create({ merchantAccountId: MERCHANT_A, actor: ACTOR, input: unknown, idempotencyKey: null, embed: null })()
    expect(E.isLeft(missing) && missing.left).to.deep.include({ _tag: 'NotFound' })
    expect(await balanceOf(w, OTHER)).to.equal(MOCK_BALANCE)
    expect(await outcome(MERCHANT_A, buyer.id)).to.equal('paid')
    expect(await balanceOf(w, OTHER)).to.equal(MOCK_BALANCE - 200)
  })

  it('lets concurrent payments on one card take exactly what its balance covers', async () => {
    const w = await transactionWorld([new ScriptedCardConnector()])
    const outcomes = await Promise.all(
      Array.from({ length: 64 }, () => right(w.create(giftOnly({ amount: 700, gift_cards: [gift(GIFT, 700)] })))),
    )
    const paid = outcomes.filter((o) => o.value.status === 'capture_succeeded')
    expect(paid).to.have.length(Math.floor(MOCK_BALANCE / 700))
    expect(outcomes.filter((o) => o.value.error_code === 'insufficient_funds')).to.have.length(64 - paid.length)
    const rs = await Promise.all(outcomes.map((o) => record(w, o.value.id)))
    await balancesHold(w, { [GIFT]: MOCK_BALANCE }, rs)
  })

  it('voids an authorized split payment: each gift card given back first, then the card part voided', async () => {
    let down = true
    const card = new ScriptedCardConnector()
    const w = await transactionWorld([card], (mock) => ({
      ...passThrough(mock),
      reverse: (req) => (down && req.number === OTHER ? TE.left(serviceTimeout('gift-card')) : mock.reverse(req)),
    }))
    const t = (await right(w.create(split({ gift_cards: [gift(GIFT, 2000), gift(OTHER, 1000)] })))).value
    expect(await balanceOf(w, GIFT)).to.equal(MOCK_BALANCE - 2000)
    // The second card's provider does not answer the reversal: a 504, the void still open (and no card void yet).
    const first = await w.void(t.id, 'v1')()
    expect(E.isLeft(first) && first.left._tag).to.equal('ServiceTimeout')
    expect(card.calls.map((c) => c.op)).to.deep.equal(['authorize'])
    expect((await record(w, t.id)).pending).to.equal(true)
    down = false
    const voided = await right(w.void(t.id, 'v1'))
    expect([voided.value.transaction.status, voided.value.transaction.intent_outcome]).to.deep.equal(['authorization_voided', 'succeeded'])
    expect(voided.value.transaction.gift_card_redemptions.map((x) => [x.status, x.amount, x.refunded_amount])).to.deep.equal([
      ['succeeded', 2000, 2000],
      ['succeeded', 1000, 1000],
    ])
    expect(card.calls.map((c) => c.op)).to.deep.equal(['authorize', 'void'])
    const r = await record(w, t.id)
    expect(r.pending).to.equal(false)
    invariants(r, [card])
    await balancesHold(w, { [GIFT]: MOCK_BALANCE, [OTHER]: MOCK_BALANCE }, [r])
    expect(await balanceOf(w, GIFT)).to.equal(MOCK_BALANCE)
  })

  it('refunds a gift card redemption to its card, within what is left of it; refunds/all gives back the card part and every gift card', async () => {
    const card = new ScriptedCardConnector()
    const w = await transactionWorld([card])
    const t = (await right(w.create(split({ intent: 'capture', gift_cards: [gift(GIFT, 3000), gift(OTHER, 1000)] })))).value
    const [a, b] = t.gift_card_redemptions.map((x) => x.id)
    const refund = (input: Record<string, unknown>, key: string | null = null) =>
      makeRefundTransaction(w)({ merchantAccountId: MERCHANT_A, actor: ACTOR, transactionId: t.id, input, idempotencyKey: key })()
    const part = await refund({ target_type: 'gift-card-redemption', target_id: a, amount: 1200 }, 'r1')
    const done = E.isRight(part) ? part.right.value : expect.fail(JSON.stringify(part))
    expect(done.refunds.map((x) => [x.target_type, x.target_id, x.amount, x.status])).to.deep.equal([
      ['gift-card-redemption', a, 1200, 'succeeded'],
    ])
    expect(done.transaction.gift_card_redemptions.map((x) => x.refunded_amount)).to.deep.equal([1200, 0])
    expect(done.transaction.refunded_amount).to.equal(1200)
    expect(await balanceOf(w, GIFT)).to.equal(MOCK_BALANCE - 1800)
    // More than is left of it, a redemption of no transaction of this one, a target_id with no target_type: 400s, nothing moves.
    const fault = async (input: Record<string, unknown>) => {
      const out = await refund(input)
      return E.isLeft(out) && out.left._tag === 'InvalidRequest' ? out.left.problems.map((p) => [p.path.join('/'), p.type]) : out
    }
    expect(await fault({ target_type: 'gift-card-redemption', target_id: a, amount: 1801 })).to.deep.equal([
      ['amount', 'amount_above_refundable'],
    ])
    expect(await fault({ target_type: 'gift-card-redemption', target_id: t.id })).to.deep.equal([
      ['target_id', 'unknown_gift_card_redemption'],
    ])
    expect(await fault({ target_type: 'gift-card-redemption' })).to.deep.equal([['target_id', 'unknown_gift_card_redemption']])
    expect(await fault({ target_id: a })).to.deep.equal([['target_id', 'invalid']])
    expect(await balanceOf(w, GIFT)).to.equal(MOCK_BALANCE - 1800)
    // Everything that is left: the card part (6000), 1800 of the first gift card, 1000 of the second.
    const all = await right(
      makeRefundAllTransaction(w)({ merchantAccountId: MERCHANT_A, actor: ACTOR, transactionId: t.id, input: {}, idempotencyKey: 'all' }),
    )
    expect(all.value.refunds.map((x) => [x.target_type, x.target_id, x.amount, x.status])).to.deep.equal([
      ['payment-method', null, 6000, 'succeeded'],
      ['gift-card-redemption', a, 1800, 'succeeded'],
      ['gift-card-redemption', b, 1000, 'succeeded'],
    ])
    expect(all.value.transaction.refunded_amount).to.equal(10_000)
    expect(
      (
        await right(
          makeRefundAllTransaction(w)({
            merchantAccountId: MERCHANT_A,
            actor: ACTOR,
            transactionId: t.id,
            input: {},
            idempotencyKey: 'all',
          }),
        )
      ).value,
    ).to.deep.equal(all.value)
    expect(
      E.isLeft(
        await makeRefundAllTransaction(w)({
          merchantAccountId: MERCHANT_A,
          actor: ACTOR,
          transactionId: t.id,
          input: {},
          idempotencyKey: null,
        })(),
      ),
    ).to.equal(true)
    expect([await balanceOf(w, GIFT), await balanceOf(w, OTHER)]).to.deep.equal([MOCK_BALANCE, MOCK_BALANCE])
    const r = await record(w, t.id)
    invariants(r, [card])
    expect((await eventsOf(w, t.id)).map((e) => e.name).filter((n) => n.includes('refund-'))).to.deep.equal([
      'gift-card-refund-succeeded',
      'refund-succeeded',
      'gift-card-refund-succeeded',
      'gift-card-refund-succeeded',
    ])
  })

  it('ends an undone payment failed when the card service declines the void of its card part', async () => {
    const card = new ScriptedCardConnector({ void: () => OPERATION_DECLINED })
    const w = await transactionWorld([card])
    const t = (await right(w.create(split({ gift_cards: [gift(REFUSED, 1000)] })))).value
    expect([t.status, t.error_code, t.intent_outcome]).to.deep.equal(['authorization_failed', 'invalid_gift_card', 'failed'])
  })
})
