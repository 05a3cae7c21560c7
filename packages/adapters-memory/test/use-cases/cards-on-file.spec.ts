import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import {
  AuthorizeRequest,
  Buyer,
  CardConnector,
  forbidden,
  makeCreateTransaction,
  makePutCheckoutSessionFields,
  PaymentMethod,
  TransactionCreate,
} from '@orka/domain'
import {
  aBuyer,
  aCheckoutSessionRecord,
  aPaymentServiceRecord,
  AUTHORIZED,
  cardConnectorsOf,
  DECLINED,
  left,
  MERCHANT_A,
  MERCHANT_B,
  right,
  ScriptedCardConnector,
} from '@orka/domain/testing'
import { invariants, payment, record, transactionWorld, TransactionWorld } from './transaction-world'
import { ACTOR } from './support'

const NUMBER = '4111111111111111'
const CVV = '987'
const card = (o: Record<string, unknown> = {}) => ({ method: 'card', number: NUMBER, expiration_date: '12/30', security_code: CVV, ...o })

/** A world with one card service that remembers the card each authorization was asked for. */
const world = async (script: ConstructorParameters<typeof ScriptedCardConnector>[0] = {}) => {
  const asked: AuthorizeRequest['card'][] = []
  const service = new ScriptedCardConnector({
    ...script,
    authorize: (req) => {
      asked.push(req.card)
      return script.authorize?.(req) ?? AUTHORIZED(req.capture)
    },
  })
  const w = await transactionWorld([service])
  const ada = aBuyer({ merchant_account_id: MERCHANT_A })
  const bob = aBuyer({ merchant_account_id: MERCHANT_A })
  await right(w.buyers.create(ada))
  await right(w.buyers.create(bob))
  return { w, service, asked, ada, bob }
}

const method = async (w: TransactionWorld, id: string): Promise<PaymentMethod> => {
  const found = await right(w.paymentMethods.findById(MERCHANT_A, id))
  if (O.isNone(found)) throw new Error(`no payment method ${id}`)
  return found.value.method
}
const stored = (o: Record<string, unknown>) => payment({ payment_method: card(), store: true, ...o })
const byId = (id: string, o: Record<string, unknown> = {}) => payment({ payment_method: { method: 'id', id, security_code: '321' }, ...o })
/** Across several payments: the authorizations the service holds are exactly those the transactions show. */
const noneHeldUnseen = async (w: TransactionWorld, service: ScriptedCardConnector, ids: readonly string[]) => {
  const shown = (await Promise.all(ids.map((id) => record(w, id))))
    .filter((r) => r.authorization !== null && r.status !== 'authorization_voided')
    .map((r) => r.authorization?.reference)
  expect([...service.heldAuthorizations()].sort()).to.deep.equal(shown.sort())
}
const problemsOf = (e: unknown) => (e as { problems: { path: string[]; type: string }[] }).problems.map((p) => [p.path.join('.'), p.type])

describe('cards on file: store: true and paying with a stored method', () => {
  it('keeps the card that paid for the buyer: processing until the authorization, then succeeded with one use; never the CVV', async () => {
    const { w, ada } = await world()
    const { value: t } = await right(w.create(stored({ buyer_id: ada.id })))
    expect(t.status).to.equal('authorization_succeeded')
    const id = t.payment_method?.id ?? ''
    const m = await method(w, id)
    expect(m).to.deep.include({
      status: 'succeeded',
      usage_count: 1,
      cit_usage_count: 1,
      last_used_at: t.updated_at,
      cit_last_used_at: t.updated_at,
      label: '1111',
      scheme: 'visa',
      expiration_date: '12/30',
      fingerprint: t.payment_method?.fingerprint,
    })
    expect(m.buyer?.id).to.equal(ada.id)
    const vaulted = await right(w.paymentMethods.findById(MERCHANT_A, id))
    const kept = O.toNullable(vaulted)
    expect(w.box.open(kept?.sealed_number ?? '')).to.equal(NUMBER)
    expect(JSON.stringify(kept)).not.to.include(CVV).and.not.to.include(NUMBER)
    // The history shows the method named from version 0 on.
    const versions = await right(w.transactions.history(MERCHANT_A, t.id))
    expect(versions.map((v) => v.payment_method?.id)).to.deep.equal(versions.map(() => id))
    expect(JSON.stringify(versions)).not.to.include(CVV).and.not.to.include(NUMBER)
  })

  it('pays with the stored card: the number and expiry from the vault, the security code from the request only', async () => {
    const { w, ada, asked, service } = await world()
    const first = (await right(w.create(stored({ buyer_id: ada.id })))).value
    const id = first.payment_method?.id ?? ''
    const { value: t } = await right(w.create(byId(id, { amount: 500 })))
    expect(t).to.deep.include({ status: 'authorization_succeeded', amount: 500 })
    expect(t.payment_method).to.deep.include({ id, label: '1111', expiration_date: '12/30' })
    expect(t.buyer?.id, 'a request naming no buyer is made for the method’s').to.equal(ada.id)
    expect(asked).to.deep.equal([
      { number: NUMBER, expirationDate: '12/30', securityCode: CVV },
      { number: NUMBER, expirationDate: '12/30', securityCode: '321' },
    ])
    expect(await method(w, id)).to.deep.include({ usage_count: 2, cit_usage_count: 2 })
    await noneHeldUnseen(w, service, [first.id, t.id])
  })

  it('stores the same card for the same buyer once: a second store names the same method, and a decline does not undo it', async () => {
    const { w, ada, bob } = await world({ authorize: (req) => (req.amount === 666 ? DECLINED() : AUTHORIZED(req.capture)) })
    const a = (await right(w.create(stored({ buyer_id: ada.id })))).value.payment_method?.id
    const again = (await right(w.create(stored({ buyer_id: ada.id })))).value.payment_method?.id
    const declined = await right(w.create(stored({ buyer_id: ada.id, amount: 666 })))
    expect(declined.value.status).to.equal('authorization_declined')
    const other = (await right(w.create(stored({ buyer_id: bob.id })))).value.payment_method?.id
    expect([again, declined.value.payment_method?.id]).to.deep.equal([a, a])
    expect(other).not.to.equal(a)
    expect(await method(w, a ?? '')).to.deep.include({ status: 'succeeded', usage_count: 2 })
  })

  it('leaves a card kept by a declined payment failed: it cannot pay', async () => {
    const { w, ada } = await world({ authorize: () => DECLINED() })
    const { value: t } = await right(w.create(stored({ buyer_id: ada.id })))
    expect(t.status).to.equal('authorization_declined')
    const id = t.payment_method?.id ?? ''
    expect(await method(w, id)).to.deep.include({ status: 'failed', usage_count: 0, last_used_at: null })
    expect(problemsOf(await left(w.create(byId(id))))).to.deep.equal([['payment_method.id', 'unknown_payment_method']])
  })

  it('refuses store: true without a buyer of the account, or with gift cards only, before anything happens', async () => {
    const { w, service } = await world()
    expect(problemsOf(await left(w.create(stored({}))))).to.deep.equal([['store', 'buyer_required']])
    expect(problemsOf(await left(w.create(stored({ buyer: { display_name: 'Guest' } }))))).to.deep.equal([['store', 'buyer_required']])
    const giftOnly = { ...stored({ buyer_id: aBuyer().id, gift_cards: [{ number: '4123450000001111', pin: '1234', amount: 1299 }] }) }
    expect(problemsOf(await left(w.create({ ...giftOnly, payment_method: undefined })))).to.deep.equal([['store', 'nothing_to_store']])
    expect(problemsOf(await left(w.create(stored({ buyer_id: aBuyer().id }))))).to.deep.equal([['buyer_id', 'unknown_buyer']])
    expect(service.calls).to.deep.equal([])
    expect(await right(w.paymentMethods.list(MERCHANT_A, {}, { direction: 'forward', from: O.none, limit: 10 }))).to.deep.equal([])
  })

  it('refuses a method that cannot pay with one 400 that does not say why: deleted, another account’s, never proven', async () => {
    const { w, ada, service } = await world()
    const id = (await right(w.create(stored({ buyer_id: ada.id })))).value.payment_method?.id ?? ''
    await right(w.cardServices.write(aPaymentServiceRecord({ merchant_account_id: MERCHANT_B, payment_service_definition_id: 'card-1' })))
    const calls = service.calls.length
    const foreign = await makeCreateTransaction(w)({
      merchantAccountId: MERCHANT_B,
      actor: ACTOR,
      input: byId(id),
      idempotencyKey: null,
      embed: null,
    })()
    expect(foreign._tag).to.equal('Left')
    expect(problemsOf((foreign as { left: unknown }).left)).to.deep.equal([['payment_method.id', 'unknown_payment_method']])
    await right(w.paymentMethods.delete(MERCHANT_A, id))
    expect(problemsOf(await left(w.create(byId(id))))).to.deep.equal([['payment_method.id', 'unknown_payment_method']])
    expect(problemsOf(await left(w.create(byId('not-a-uuid'))))).to.deep.equal([['payment_method.id', 'unknown_payment_method']])
    expect(service.calls.length).to.equal(calls)
  })

  it('pays for the method’s buyer only: another buyer or a guest is a 400; an embed token reaches only its buyer’s methods', async () => {
    const { w, ada, bob } = await world()
    const id = (await right(w.create(stored({ buyer_id: ada.id })))).value.payment_method?.id ?? ''
    expect(problemsOf(await left(w.create(byId(id, { buyer_id: bob.id }))))).to.deep.equal([
      ['payment_method.id', 'payment_method_buyer_mismatch'],
    ])
    expect(problemsOf(await left(w.create(byId(id, { buyer: { display_name: 'Guest' } }))))).to.deep.equal([
      ['payment_method.id', 'payment_method_buyer_mismatch'],
    ])
    const asEmbed = (b: Buyer, input: TransactionCreate) =>
      makeCreateTransaction(w)({
        merchantAccountId: MERCHANT_A,
        actor: ACTOR,
        input,
        idempotencyKey: null,
        embed: { buyer: { id: b.id, externalIdentifier: null }, pins: {} },
      })()
    const own = await asEmbed(ada, byId(id, { buyer_id: ada.id }))
    expect(own._tag === 'Right' && own.right.value.status).to.equal('authorization_succeeded')
    const others = await asEmbed(bob, byId(id, { buyer_id: bob.id }))
    expect(others._tag === 'Left' && problemsOf(others.left)).to.deep.equal([['payment_method.id', 'unknown_payment_method']])
  })

  it('lets an embed token keep a card only for the buyer its claim names, as POST /payment-methods does', async () => {
    const { w, ada, service } = await world()
    const asEmbed = (buyer: Buyer | null) =>
      makeCreateTransaction(w)({
        merchantAccountId: MERCHANT_A,
        actor: ACTOR,
        input: stored({ buyer_id: ada.id }),
        idempotencyKey: null,
        embed: { buyer: buyer === null ? null : { id: buyer.id, externalIdentifier: null }, pins: {} },
      })()
    expect(await asEmbed(null)).to.deep.equal(E.left(forbidden('embed_buyer')))
    expect(service.calls).to.deep.equal([])
    const own = await asEmbed(ada)
    expect(own._tag === 'Right' && own.right.value.payment_method?.id).to.be.a('string')
  })

  it('pays with a stored method Secure Fields put on a checkout session, with the security code they sent', async () => {
    const { w, ada, asked } = await world()
    const id = (await right(w.create(stored({ buyer_id: ada.id })))).value.payment_method?.id ?? ''
    const session = aCheckoutSessionRecord()
    await right(w.sessions.create(session))
    await right(makePutCheckoutSessionFields(w)({ id: session.id, input: { payment_method: { method: 'id', id, security_code: '4321' } } }))
    const shown = O.toNullable(await right(w.sessions.find(MERCHANT_A, session.id, w.clock.now())))
    expect(shown?.card?.payment_method).to.deep.equal({
      type: 'payment-method',
      method: 'card',
      id,
      label: '1111',
      scheme: 'visa',
      fingerprint: (await method(w, id)).fingerprint,
      details: { bin: '411111', card_type: null },
    })
    expect(JSON.stringify(shown)).not.to.include('4321')
    const { value: t } = await right(w.create(payment({ payment_method: { method: 'checkout-session', id: session.id } })))
    expect(t).to.deep.include({ status: 'authorization_succeeded', checkout_session_id: session.id })
    expect(t.payment_method?.id).to.equal(id)
    expect(asked.at(-1)).to.deep.equal({ number: NUMBER, expirationDate: '12/30', securityCode: '4321' })
  })

  it('keeps one method when payments storing the same card race, and counts each payment’s use once', async () => {
    const { w, ada, service } = await world()
    const paid = await Promise.all(Array.from({ length: 6 }, () => right(w.create(stored({ buyer_id: ada.id })))))
    const ids = new Set(paid.map((p) => p.value.payment_method?.id))
    expect(ids.size).to.equal(1)
    const [id] = [...ids]
    expect(await method(w, id ?? '')).to.deep.include({ status: 'succeeded', usage_count: 6, cit_usage_count: 6 })
    expect(await right(w.paymentMethods.forBuyer(MERCHANT_A, ada.id, ['processing', 'succeeded', 'failed'], 10))).to.have.length(1)
    await noneHeldUnseen(
      w,
      service,
      paid.map((p) => p.value.id),
    )
  })

  it('settles the kept card on a retry with the key after the process stopped during the authorization: failed, voided, nothing held', async () => {
    const { w, ada, service } = await world()
    const hanging: CardConnector = {
      authorize: () => () => new Promise<never>(() => undefined),
      capture: (r) => service.capture(r),
      void: (r) => service.void(r),
      refund: (r) => service.refund(r),
      verify: (f) => service.verify(f),
      readNotification: (f, w) => service.readNotification(f, w),
      lookup: (r) => service.lookup(r),
    }
    void makeCreateTransaction({ ...w, cardConnectors: cardConnectorsOf({ 'card-1': hanging }) })({
      merchantAccountId: MERCHANT_A,
      actor: ACTOR,
      input: stored({ buyer_id: ada.id }),
      idempotencyKey: 'key-1',
      embed: null,
    })()
    await new Promise((r) => setImmediate(r))
    const kept = await right(w.paymentMethods.forBuyer(MERCHANT_A, ada.id, ['processing'], 10))
    expect(kept.map((m) => m.status)).to.deep.equal(['processing'])
    w.clock.advance(31_000) // past the idempotency lease
    const retried = await right(w.create(stored({ buyer_id: ada.id }), 'key-1'))
    expect(retried.value).to.deep.include({ status: 'authorization_failed' })
    expect(retried.value.payment_method?.id).to.equal(kept[0]?.id)
    expect(await method(w, kept[0]?.id ?? '')).to.deep.include({ status: 'failed', usage_count: 0 })
    invariants(await record(w, retried.value.id), [service])
  })

  it('lets a payment in flight finish when its method is deleted meanwhile: the method stays deleted', async () => {
    const { w, ada, service } = await world()
    const first = (await right(w.create(stored({ buyer_id: ada.id })))).value
    const id = first.payment_method?.id ?? ''
    const held = service.hold('authorize')
    const paying = right(w.create(byId(id)))
    await held.arrived
    await right(w.paymentMethods.delete(MERCHANT_A, id))
    held.release()
    const { value: t } = await paying
    expect(t.status).to.equal('authorization_succeeded')
    expect(await right(w.paymentMethods.findById(MERCHANT_A, id))).to.deep.equal(O.none)
    await noneHeldUnseen(w, service, [first.id, t.id])
  })
})
