import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { failedValidation, legacySessionTransactionId, makePutCheckoutSessionFields, problem, sessionTransactionId } from '@orka/domain'
import { aCheckoutSessionRecord, left, MERCHANT_A, right, ScriptedCardConnector } from '@orka/domain/testing'
import { payment, record, transactionWorld, TransactionWorld } from './transaction-world'

const CARD = { method: 'card', number: '4111111111111111', expiration_date: '12/30', security_code: '123' } as const
const USED = failedValidation(
  problem('input', ['payment_method', 'id'], 'The checkout session was used for another transaction', 'used_checkout_session'),
)
const fromSession = (id: string) => payment({ payment_method: { method: 'checkout-session', id } })

/** A session with card data; `legacy`: created before ids took 122 bits (no `full_transaction_id`). */
const sessionWithCard = async (w: TransactionWorld, legacy: boolean): Promise<string> => {
  const { full_transaction_id: full, ...old } = aCheckoutSessionRecord({ amount: 1299, currency: 'USD' })
  await right(w.sessions.create(legacy ? old : { ...old, full_transaction_id: full }))
  await right(makePutCheckoutSessionFields(w)({ id: old.id, input: { payment_method: CARD } }))
  return old.id
}

describe('the transaction id of a checkout session payment', () => {
  it('is the session’s full-entropy id, not the older one', async () => {
    const w = await transactionWorld([new ScriptedCardConnector()])
    const id = await sessionWithCard(w, false)
    const t = (await right(w.create(fromSession(id)))).value
    expect(t.id).to.equal(sessionTransactionId(w.mac, id))
    expect(t.id).to.not.equal(legacySessionTransactionId(w.mac, id))
  })

  it('a session created before, which paid under its older id, pays no second time: card data given again is taken and purged', async () => {
    const w = await transactionWorld([new ScriptedCardConnector()])
    const sessionId = await sessionWithCard(w, true)
    // Paid before the upgrade: a payment recorded under the session's older id (made from another session, moved there).
    const t = (await right(w.create(fromSession(await sessionWithCard(w, false))))).value
    const legacyId = legacySessionTransactionId(w.mac, sessionId)
    await right(w.transactions.put({ ...(await record(w, t.id)), id: legacyId, version: 0, checkout_session_id: sessionId }))
    await right(w.sessions.takeCard(MERCHANT_A, sessionId, w.clock.now()))

    expect(await left(w.create(fromSession(sessionId))), 'no card data: paid already').to.deep.equal(USED)
    await right(makePutCheckoutSessionFields(w)({ id: sessionId, input: { payment_method: CARD } }))
    expect(await left(w.create(fromSession(sessionId))), 'card data given after it paid').to.deep.equal(USED)
    const session = await right(w.sessions.find(MERCHANT_A, sessionId, w.clock.now()))
    expect(O.isSome(session) && session.value.card, 'the card data was taken and purged').to.equal(null)
    const fresh = await right(w.transactions.find(MERCHANT_A, sessionTransactionId(w.mac, sessionId)))
    expect(fresh, 'nothing recorded under the new id').to.deep.equal(O.none)
  })

  it('a session created before that did not pay pays under the new id', async () => {
    const w = await transactionWorld([new ScriptedCardConnector()])
    const id = await sessionWithCard(w, true)
    const t = (await right(w.create(fromSession(id)))).value
    expect([t.id, t.status]).to.deep.equal([sessionTransactionId(w.mac, id), 'authorization_succeeded'])
  })
})
