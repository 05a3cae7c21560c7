import { expect } from 'chai'
import { CardConnectors } from '@orka/domain'
import { cardConnectorsOf, ScriptedCardConnector } from '@orka/domain/testing'
import { errorBody, Harness, startHarness } from '../support/harness'

const PAYMENT = {
  amount: 1299,
  currency: 'USD',
  payment_method: { method: 'card', number: '4111111111111111', expiration_date: '12/30', security_code: '123' },
}
interface Tx {
  readonly id: string
  readonly status: string
  readonly external_identifier?: string | null
}

/** The 409 of an operation on a transaction whose authorization has no outcome yet. */
const inFlight = (id: string, verb: string) => ({
  ...errorBody(409, [
    {
      location: 'unknown',
      pointer: '',
      message: `A transaction in status processing cannot be ${verb}: its authorization has no outcome yet`,
      type: 'invalid_transaction_status',
    },
  ]),
  resource_id: id,
})

describe('transactions over HTTP while the authorization is in flight', () => {
  let h: Harness
  let connector: ScriptedCardConnector
  beforeEach(async () => {
    connector = new ScriptedCardConnector()
    h = await startHarness({ configure: (c) => c.register(CardConnectors, { useValue: cardConnectorsOf({ 'mock-card': connector }) }) })
  })
  afterEach(() => h.close())

  /** Starts a payment whose authorization the card service holds; its id once version 0 is recorded. */
  const payHeld = async () => {
    const held = connector.hold('authorize')
    const paying = h.request<Tx>('POST', '/transactions', { body: PAYMENT })
    await held.arrived
    const [t] = (await h.request<{ items: Tx[] }>('GET', '/transactions')).body.items
    if (t === undefined) throw new Error('the payment recorded nothing')
    expect(t.status).to.equal('processing')
    return { id: t.id, paying, release: held.release }
  }

  it('answers capture, void, refund and refund all with a 409 naming the status; the payment goes on untouched', async () => {
    const { id, paying, release } = await payHeld()
    const [capture, voided, refund, all] = await Promise.all(
      ['capture', 'void', 'refunds', 'refunds/all'].map((op) => h.request('POST', `/transactions/${id}/${op}`)),
    )
    expect([capture?.status, capture?.body]).to.deep.equal([409, inFlight(id, 'captured')])
    expect([voided?.status, voided?.body]).to.deep.equal([409, inFlight(id, 'voided')])
    expect([refund?.status, refund?.body]).to.deep.equal([409, inFlight(id, 'refunded')])
    expect([all?.status, all?.body]).to.deep.equal([409, inFlight(id, 'refunded')])
    release()
    const paid = await paying
    expect([paid.status, paid.body.id, paid.body.status]).to.deep.equal([201, id, 'authorization_succeeded'])
    expect(connector.calls.map((c) => c.op)).to.deep.equal(['authorize'])
    expect(connector.heldAuthorizations()).to.deep.equal([`${id}:authorize:1`])
    expect((await h.request<Tx>('GET', `/transactions/${id}`)).body.status).to.equal('authorization_succeeded')
  })

  it('answers PUT with a 409 naming the status, changing nothing; the payment answers its authorization', async () => {
    const { id, paying, release } = await payHeld()
    const put = await h.request('PUT', `/transactions/${id}`, { body: { external_identifier: 'order-9' } })
    const message = 'A transaction in status processing cannot be updated while a call to its card service has no outcome'
    expect([put.status, put.body]).to.deep.equal([
      409,
      {
        ...errorBody(409, [{ location: 'unknown', pointer: '', message, type: 'invalid_transaction_status' }]),
        resource_id: id,
      },
    ])
    release()
    const paid = await paying
    expect([paid.status, paid.body.status, paid.body.external_identifier]).to.deep.equal([201, 'authorization_succeeded', null])
    const after = await h.request<Tx>('PUT', `/transactions/${id}`, { body: { external_identifier: 'order-9' } })
    expect([after.status, after.body.status, after.body.external_identifier]).to.deep.equal([200, 'authorization_succeeded', 'order-9'])
  })
})
