import { expect } from 'chai'
import { errorBody, Harness, startHarness } from '../support/harness'

const CARD = { method: 'card', number: '4111111111111111', expiration_date: '12/30', security_code: '123' }
const PAYMENT = { amount: 1299, currency: 'USD', payment_method: CARD }
interface Tx {
  readonly id: string
  readonly status: string
  readonly authorized_amount: number
}

describe('transaction rules over HTTP (embedded store, mock-card)', () => {
  let h: Harness
  beforeEach(async () => {
    h = await startHarness()
  })
  afterEach(() => h.close())
  const pay = (body: unknown = PAYMENT) => h.request<Tx>('POST', '/transactions', { body })

  it('refuses to capture an authorization of 0 (a card check) with a 409; intent capture with amount 0 is a 422', async () => {
    const check = await pay({ ...PAYMENT, amount: 0 })
    expect([check.status, check.body.status, check.body.authorized_amount]).to.deep.equal([201, 'authorization_succeeded', 0])
    const capture = await h.request('POST', `/transactions/${check.body.id}/capture`)
    expect([capture.status, capture.body]).to.deep.equal([
      409,
      {
        ...errorBody(409, [
          {
            location: 'unknown',
            pointer: '',
            message: 'A transaction authorized for 0 (a card check) cannot be captured: nothing was authorized to capture',
            type: 'invalid_transaction_status',
          },
        ]),
        resource_id: check.body.id,
      },
    ])
    expect((await h.request<Tx>('GET', `/transactions/${check.body.id}`)).body.status).to.equal('authorization_succeeded')
    expect((await h.request<Tx>('POST', `/transactions/${check.body.id}/void`)).body.status).to.equal('authorization_voided')
    const captureNow = await pay({ ...PAYMENT, amount: 0, intent: 'capture' })
    expect([captureNow.status, captureNow.body]).to.deep.equal([
      422,
      {
        detail: [{ loc: ['body', 'amount'], msg: 'Value error, `intent: capture` needs an amount above 0', type: 'value_error', input: 0 }],
      },
    ])
  })
})
