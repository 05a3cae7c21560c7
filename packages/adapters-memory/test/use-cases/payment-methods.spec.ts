import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import {
  ACCOUNT_REACH,
  Buyer,
  CardReach,
  forbidden,
  makeDeleteBuyer,
  deleteBuyersPaymentMethods,
  makeDeletePaymentMethod,
  makeGetPaymentMethod,
  makeListBuyerPaymentMethods,
  makeListPaymentMethods,
  makePutCheckoutSessionFields,
  makeRelayOutbox,
  makeStorePaymentMethod,
  makeUpdatePaymentMethod,
  notFound,
  PaymentMethod,
  PaymentMethodCreate,
  PaymentMethodVault,
} from '@orka/domain'
import { aBuyer, aCheckoutSessionRecord, aWebhookRecord, left, MERCHANT_A, MERCHANT_B, right } from '@orka/domain/testing'
import { MemoryWebhookDeliveryStore } from '../../src'
import { outboxEntries, ACTOR } from './support'
import { transactionWorld } from './transaction-world'

const NUMBER = '4111111111111111'
const CVV = '987'

const input = (body: Record<string, unknown>): PaymentMethodCreate => {
  const decoded = PaymentMethodCreate.decode(body)
  if (E.isLeft(decoded)) throw new Error(`test body does not decode: ${JSON.stringify(body)}`)
  return decoded.right
}
const card = (o: Record<string, unknown> = {}) =>
  input({ method: 'card', number: NUMBER, expiration_date: '12/30', security_code: CVV, ...o })

const world = async () => {
  const w = await transactionWorld()
  const ada = aBuyer()
  const bob = aBuyer()
  await right(w.buyers.create(ada))
  await right(w.buyers.create(bob))
  await right(w.webhooks.create(aWebhookRecord({ merchant_account_id: MERCHANT_A })))
  const store = makeStorePaymentMethod(w)
  const embedOf = (b: Buyer): CardReach => ({ kind: 'buyer', buyer: { id: b.id, externalIdentifier: null } })
  return {
    ...w,
    ada,
    bob,
    embedOf,
    store: (body: PaymentMethodCreate, o: { key?: string | null; reach?: CardReach; account?: string } = {}) =>
      store({
        merchantAccountId: o.account ?? MERCHANT_A,
        actor: ACTOR,
        input: body,
        idempotencyKey: o.key ?? null,
        reach: o.reach ?? ACCOUNT_REACH,
      }),
    list: makeListPaymentMethods(w),
    get: makeGetPaymentMethod({ ...w }),
    update: makeUpdatePaymentMethod(w),
    remove: makeDeletePaymentMethod(w),
    buyerList: makeListBuyerPaymentMethods(w),
  }
}
type World = Awaited<ReturnType<typeof world>>

const stored = async (w: World, body: PaymentMethodCreate, o: Parameters<World['store']>[1] = {}): Promise<PaymentMethod> => {
  const r = await w.store(body, o)()
  if (E.isLeft(r)) throw new Error(`not stored: ${JSON.stringify(r.left)}`)
  return r.right.value
}
const problemsOf = (e: unknown) => (e as { problems: { path: string[]; type: string }[] }).problems.map((p) => [p.path.join('.'), p.type])

describe('payment methods: storing cards and managing them', () => {
  it('stores a card as succeeded, shown by scheme, BIN, last 4 and fingerprint, its number sealed and its CVV nowhere', async () => {
    const w = await world()
    const m = await stored(w, card({ buyer_id: w.ada.id, external_identifier: 'pm-ext-1' }))
    const now = w.clock.now().toISOString()
    expect(m).to.deep.equal({
      type: 'payment-method',
      id: m.id,
      merchant_account_id: MERCHANT_A,
      method: 'card',
      mode: 'card',
      status: 'succeeded',
      label: '1111',
      scheme: 'visa',
      additional_schemes: null,
      expiration_date: '12/30',
      fingerprint: m.fingerprint,
      details: { bin: '411111', card_type: null },
      approval_url: null,
      country: null,
      currency: null,
      last_replaced_at: null,
      has_replacement: false,
      scheme_transaction_id: null,
      scheme_transaction_id_scheme: null,
      transaction_link_id: null,
      buyer: w.ada,
      external_identifier: 'pm-ext-1',
      usage_count: 0,
      cit_usage_count: 0,
      last_used_at: null,
      cit_last_used_at: null,
      created_at: now,
      updated_at: now,
    })
    const vaulted = O.toNullable(await right(w.paymentMethods.findById(MERCHANT_A, m.id)))
    expect(w.box.open(vaulted?.sealed_number ?? '')).to.equal(NUMBER)
    expect(JSON.stringify(vaulted)).not.to.include(NUMBER).and.not.to.include(CVV)
    const events = await outboxEntries(w.outbox)
    expect(events.map((e) => [e.event_name, e.target_id])).to.deep.equal([['payment-method.created', m.id]])
    expect(events[0]?.body).not.to.include(NUMBER).and.not.to.include(CVV)
  })

  it('keeps one method per buyer and card: the same card again is that method (a later expiry renews it), another buyer’s is another', async () => {
    const w = await world()
    const first = await stored(w, card({ buyer_id: w.ada.id }))
    w.clock.advance(1000)
    expect(await stored(w, card({ buyer_id: w.ada.id, expiration_date: '01/27' }))).to.deep.equal(first)
    const renewed = await stored(w, card({ buyer_external_identifier: w.ada.external_identifier, expiration_date: '01/31' }))
    expect(renewed).to.deep.equal({ ...first, expiration_date: '01/31', updated_at: w.clock.now().toISOString() })
    const bobs = await stored(w, card({ buyer_id: w.bob.id }))
    const nobodys = await stored(w, card())
    expect(new Set([first.id, bobs.id, nobodys.id]).size).to.equal(3)
    expect(await stored(w, card())).to.deep.equal(nobodys)
    expect((await outboxEntries(w.outbox)).map((e) => e.event_name)).to.deep.equal([
      'payment-method.created',
      'payment-method.created',
      'payment-method.created',
    ])
  })

  it('refuses a past expiry (400) and an unknown buyer (404 naming the field), storing nothing', async () => {
    const w = await world()
    expect(problemsOf(await left(w.store(card({ expiration_date: '12/24' }))))).to.deep.equal([['expiration_date', 'expired_card']])
    const unknown = await left(w.store(card({ buyer_id: aBuyer().id })))
    expect(unknown).to.deep.include({ _tag: 'NotFound', entity: 'Buyer' })
    expect(await right(w.paymentMethods.list(MERCHANT_A, {}, { direction: 'forward', from: O.none, limit: 10 }))).to.deep.equal([])
    expect(await outboxEntries(w.outbox)).to.deep.equal([])
  })

  it('keeps the card a checkout session holds, taking it from the session: it is used once', async () => {
    const w = await world()
    const session = aCheckoutSessionRecord()
    await right(w.sessions.create(session))
    await right(
      makePutCheckoutSessionFields(w)({
        id: session.id,
        input: { payment_method: { method: 'card', number: NUMBER, expiration_date: '11/29', security_code: CVV } },
      }),
    )
    const m = await stored(w, input({ method: 'checkout-session', id: session.id, buyer_id: w.ada.id }))
    expect(m).to.deep.include({ label: '1111', expiration_date: '11/29', status: 'succeeded' })
    expect(m.buyer?.id).to.equal(w.ada.id)
    expect(O.toNullable(await right(w.sessions.find(MERCHANT_A, session.id, w.clock.now())))?.card).to.equal(null)
    expect(problemsOf(await left(w.store(input({ method: 'checkout-session', id: session.id }))))).to.deep.equal([['id', 'no_card_data']])
    expect(problemsOf(await left(w.store(input({ method: 'checkout-session', id: aCheckoutSessionRecord().id }))))).to.deep.equal([
      ['id', 'no_card_data'],
    ])
    // A session whose Secure Fields named a stored method has nothing to store, and keeps what it holds.
    const named = aCheckoutSessionRecord()
    await right(w.sessions.create(named))
    await right(makePutCheckoutSessionFields(w)({ id: named.id, input: { payment_method: { method: 'id', id: m.id } } }))
    expect(problemsOf(await left(w.store(input({ method: 'checkout-session', id: named.id }))))).to.deep.equal([
      ['id', 'stored_payment_method'],
    ])
    expect(O.toNullable(await right(w.sessions.find(MERCHANT_A, named.id, w.clock.now())))?.card?.payment_method?.id).to.equal(m.id)
  })

  it('runs once per idempotency key: a replay answers the method stored; a retry after the process died after the insert answers it too', async () => {
    const w = await world()
    const once = await right(w.store(card({ buyer_id: w.ada.id }), { key: 'k-1' }))
    expect(await right(w.store(card({ buyer_id: w.ada.id }), { key: 'k-1' }))).to.deep.equal({ value: once.value, replayed: true })
    // A process that dies right after the insert: the retry, past the lease, finds its own method.
    const dying: PaymentMethodVault = Object.create(w.paymentMethods) as PaymentMethodVault
    dying.insert = (m) => async () => {
      await w.paymentMethods.insert(m)()
      return new Promise<never>(() => undefined)
    }
    void makeStorePaymentMethod({ ...w, paymentMethods: dying })({
      merchantAccountId: MERCHANT_A,
      actor: ACTOR,
      input: card({ buyer_id: w.bob.id }),
      idempotencyKey: 'k-2',
      reach: ACCOUNT_REACH,
    })()
    await new Promise((r) => setTimeout(r, 10))
    w.clock.advance(31_000)
    const retried = await right(w.store(card({ buyer_id: w.bob.id }), { key: 'k-2' }))
    expect(retried.replayed).to.equal(false)
    expect(await right(w.paymentMethods.forBuyer(MERCHANT_A, w.bob.id, ['succeeded'], 10))).to.deep.equal([retried.value])
  })

  it('lets an embed token store only for no buyer or its own, and read and delete only its buyer’s methods', async () => {
    const w = await world()
    const reach = w.embedOf(w.ada)
    const own = await stored(w, card({ buyer_id: w.ada.id }), { reach })
    await stored(w, card(), { reach })
    expect(await left(w.store(card({ buyer_id: w.bob.id }), { reach }))).to.deep.equal(forbidden('embed_buyer'))
    const bobs = await stored(w, card({ buyer_id: w.bob.id }))
    const page = await right(w.list({ merchantAccountId: MERCHANT_A, filter: {}, reach }))
    expect(page.items.map((m) => m.id)).to.deep.equal([own.id])
    expect(await right(w.get({ merchantAccountId: MERCHANT_A, id: own.id, reach }))).to.deep.equal(own)
    expect(await left(w.get({ merchantAccountId: MERCHANT_A, id: bobs.id, reach }))).to.deep.equal(notFound('PaymentMethod', bobs.id))
    expect(await left(w.remove({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: bobs.id, reach }))).to.deep.equal(
      notFound('PaymentMethod', bobs.id),
    )
    expect(await left(w.list({ merchantAccountId: MERCHANT_A, filter: {}, reach: { kind: 'none' } }))).to.deep.equal(
      forbidden('embed_buyer'),
    )
    expect(
      await right(w.buyerList({ merchantAccountId: MERCHANT_A, buyer: { id: w.bob.id }, sortBy: null, orderBy: 'desc', reach })),
    ).to.deep.equal({
      items: [],
    })
  })

  it('lists newest first with every filter holding, and a cursor bound to its filters', async () => {
    const w = await world()
    const a1 = await stored(w, card({ buyer_id: w.ada.id, external_identifier: 'x' }))
    w.clock.advance(1000)
    const a2 = await stored(w, card({ buyer_id: w.ada.id, number: '5555555555554444' }))
    w.clock.advance(1000)
    const b1 = await stored(w, card({ buyer_id: w.bob.id, external_identifier: 'x' }))
    const q = (filter: Record<string, unknown>, o: Record<string, unknown> = {}) =>
      w.list({ merchantAccountId: MERCHANT_A, filter, reach: ACCOUNT_REACH, ...o })
    const ids = async (filter: Record<string, unknown>) => (await right(q(filter))).items.map((m) => m.id)
    expect(await ids({})).to.deep.equal([b1.id, a2.id, a1.id])
    expect(await ids({ buyer_id: w.ada.id })).to.deep.equal([a2.id, a1.id])
    expect(await ids({ buyer_external_identifier: w.bob.external_identifier })).to.deep.equal([b1.id])
    expect(await ids({ buyer_external_identifier: 'nobody' })).to.deep.equal([])
    expect(await ids({ external_identifier: 'x' })).to.deep.equal([b1.id, a1.id])
    expect(await ids({ external_identifier: 'x', buyer_id: w.ada.id })).to.deep.equal([a1.id])
    expect(await ids({ status: ['processing', 'failed'] })).to.deep.equal([])
    expect(await ids({ status: ['succeeded'] })).to.deep.equal([b1.id, a2.id, a1.id])
    const first = await right(q({}, { limit: 2 }))
    expect(first.items.map((m) => m.id)).to.deep.equal([b1.id, a2.id])
    const next = await right(q({}, { limit: 2, cursor: first.next_cursor }))
    expect(next.items.map((m) => m.id)).to.deep.equal([a1.id])
    expect(await left(q({ buyer_id: w.ada.id }, { limit: 2, cursor: first.next_cursor }))).to.deep.include({ _tag: 'InvalidRequest' })
  })

  it('updates what the body names and stamps updated_at; another account’s method is not found', async () => {
    const w = await world()
    const m = await stored(w, card({ external_identifier: 'before' }))
    w.clock.advance(5000)
    const updated = await right(
      w.update({
        merchantAccountId: MERCHANT_A,
        actor: ACTOR,
        id: m.id,
        input: { expiration_date: '10/31', external_identifier: null, scheme_transaction_id: 'stid-1' },
        reach: ACCOUNT_REACH,
      }),
    )
    expect(updated).to.deep.equal({
      ...m,
      expiration_date: '10/31',
      external_identifier: null,
      scheme_transaction_id: 'stid-1',
      updated_at: w.clock.now().toISOString(),
    })
    expect(await left(w.update({ merchantAccountId: MERCHANT_B, actor: ACTOR, id: m.id, input: {}, reach: ACCOUNT_REACH }))).to.deep.equal(
      notFound('PaymentMethod', m.id),
    )
  })

  it('deletes once, destroying the number, with payment-method.deleted; the relay hands it over only once the method is gone', async () => {
    const w = await world()
    const m = await stored(w, card())
    expect(await left(w.remove({ merchantAccountId: MERCHANT_B, actor: ACTOR, id: m.id, reach: ACCOUNT_REACH }))).to.deep.equal(
      notFound('PaymentMethod', m.id),
    )
    await right(w.remove({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: m.id, reach: ACCOUNT_REACH }))
    expect(await right(w.paymentMethods.findById(MERCHANT_A, m.id))).to.deep.equal(O.none)
    expect(await left(w.remove({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: m.id, reach: ACCOUNT_REACH }))).to.deep.equal(
      notFound('PaymentMethod', m.id),
    )
    const entries = await outboxEntries(w.outbox)
    expect(entries.map((e) => e.event_name)).to.deep.equal(['payment-method.created', 'payment-method.deleted'])
    expect(JSON.parse(entries[1]?.body ?? '{}')).to.deep.include({ name: 'payment-method.deleted', target: m })
    w.clock.advance(120_000)
    const relay = makeRelayOutbox({
      ...w,
      giftCardVault: w.giftCards.vault,
      deliveries: new MemoryWebhookDeliveryStore(),
      config: { graceMs: 60_000, batch: 10 },
    })
    // The created event is handed over (the method existed... and is gone now: dropped); the deleted one is handed over.
    expect(await right(relay())).to.deep.equal({ handedOver: 1, dropped: 1 })
  })

  it('deletes a buyer’s methods with the buyer, and no other', async () => {
    const w = await world()
    await stored(w, card({ buyer_id: w.ada.id }))
    const bobs = await stored(w, card({ buyer_id: w.bob.id }))
    await right(
      makeDeleteBuyer({ ...w, cascade: [deleteBuyersPaymentMethods(w.paymentMethods)] })({
        merchantAccountId: MERCHANT_A,
        actor: ACTOR,
        id: w.ada.id,
      }),
    )
    const kept = await right(w.paymentMethods.list(MERCHANT_A, {}, { direction: 'forward', from: O.none, limit: 10 }))
    expect(kept.map((m) => m.id)).to.deep.equal([bobs.id])
  })

  it('lists a buyer’s usable methods: succeeded and unexpired, by last use when asked, in either order', async () => {
    const w = await world()
    const older = await stored(w, card({ buyer_id: w.ada.id }))
    w.clock.advance(1000)
    const newer = await stored(w, card({ buyer_id: w.ada.id, number: '5555555555554444' }))
    const expiring = await stored(w, card({ buyer_id: w.ada.id, number: '378282246310005', expiration_date: '01/25' }))
    await right(w.paymentMethods.recordUse(MERCHANT_A, older.id, w.clock.now().toISOString(), true))
    const q = (o: Record<string, unknown>) =>
      right(
        w.buyerList({ merchantAccountId: MERCHANT_A, buyer: { id: w.ada.id }, sortBy: null, orderBy: 'desc', reach: ACCOUNT_REACH, ...o }),
      )
    const ids = async (o: Record<string, unknown>) => (await q(o)).items.map((m) => m.id)
    expect(await ids({})).to.deep.equal([expiring.id, newer.id, older.id])
    w.clock.advance(31 * 86_400_000) // February 2025: the 01/25 card has expired
    expect(await ids({})).to.deep.equal([newer.id, older.id])
    expect(await ids({ sortBy: 'last_used_at' })).to.deep.equal([older.id, newer.id])
    expect(await ids({ sortBy: 'last_used_at', orderBy: 'asc' })).to.deep.equal([newer.id, older.id])
    expect(await ids({ buyer: { externalIdentifier: w.ada.external_identifier } })).to.deep.equal([newer.id, older.id])
    expect(await ids({ buyer: { id: aBuyer().id } })).to.deep.equal([])
    const [summary] = (await q({ sortBy: 'last_used_at' })).items
    expect(summary).to.deep.equal({
      type: 'payment-method',
      id: older.id,
      merchant_account_id: MERCHANT_A,
      method: 'card',
      mode: 'card',
      label: '1111',
      scheme: 'visa',
      additional_schemes: null,
      expiration_date: '12/30',
      fingerprint: older.fingerprint,
      details: { bin: '411111', card_type: null },
      approval_url: null,
      country: null,
      currency: null,
      last_replaced_at: null,
      has_replacement: false,
      scheme_transaction_id: null,
      scheme_transaction_id_scheme: null,
      usage_count: 1,
      cit_usage_count: 1,
      last_used_at: '2025-01-15T10:00:01.000Z',
      cit_last_used_at: '2025-01-15T10:00:01.000Z',
    })
  })
})
