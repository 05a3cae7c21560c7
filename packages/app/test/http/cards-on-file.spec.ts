import { expect } from 'chai'
import { errorBody, Harness, IDS, Page, recordedResponses, Resource, startHarness } from '../support/harness'
import { approvedCardPayment } from '../support/transaction-bodies'
import { eventually, quietFor, Receiver, startReceiver } from '../support/receiver'
import { WEBHOOK_TEST_ENV } from '../webhooks/delivery.suite'
import { methodBody, summaryOf, withCheckDigit } from './payment-method-support'

type Json = Record<string, unknown>
type Tx = Resource & { status: string; payment_method: Json & { id: string | null }; buyer: Json | null; [k: string]: unknown }
interface PaymentMethod extends Resource {
  readonly status: string
  readonly fingerprint: string
  readonly expiration_date: string
  readonly label: string
  readonly details: Json
  readonly external_identifier: string | null
  readonly usage_count: number
  readonly buyer: (Resource & { reconciliation_id: string }) | null
}
type Buyer = Resource & { reconciliation_id: string; display_name: string | null; external_identifier: string | null }

// Four digits, matched as a JSON string: four digits alone can turn up as a group of a UUID.
const CVV = '7319'
const DECLINED = '4000000000000002'

/** A 400 of the original API's payment validation, at one body field. */
const refused = (pointer: string, message: string, type: string) => ({
  ...errorBody(400, [{ location: 'body', pointer, message, type }]),
  message: 'Request failed validation',
})
const UNKNOWN_METHOD = refused('/payment_method/id', 'No stored payment method with this id can pay', 'unknown_payment_method')

describe('cards on file: paying with store: true and with a stored method (embedded store, mock-card)', function () {
  this.timeout(30_000)
  let h: Harness
  let rx: Receiver
  let seenFrom: number
  /** Every card number the suite sent: none may be in any response, log line or webhook. */
  const sent = new Set<string>([DECLINED])
  before(async () => {
    rx = await startReceiver()
    h = await startHarness({ env: WEBHOOK_TEST_ENV })
    const sub = await h.request('POST', '/webhook-subscriptions', { body: { url: `${rx.url}/hook` } })
    expect(sub.status, sub.text).to.equal(201)
  })
  after(async () => {
    await h.close()
    await rx.close()
  })
  beforeEach(() => {
    seenFrom = recordedResponses.length
  })
  afterEach(() => {
    const answers = recordedResponses
      .slice(seenFrom)
      .map((r) => r.text)
      .join('\n')
    for (const secret of sent) {
      expect(answers, `a response carries ${secret}`).not.to.match(new RegExp(`\\b${secret}\\b`))
      expect(h.logs.join('\n'), `the log carries ${secret}`).not.to.match(new RegExp(`\\b${secret}\\b`))
    }
    expect(answers, 'a response carries the security code').not.to.include(`"${CVV}"`)
    expect(h.logs.join('\n'), 'the log carries the security code').not.to.include(`"${CVV}"`)
  })

  let n = 0
  /** A Visa number no other test uses (Luhn-valid, approved by the mock card service). */
  const fresh = () => {
    const number = withCheckDigit(`42${String(3_000_000_000_000 + n++).padStart(13, '0')}`)
    sent.add(number)
    return number
  }
  const card = (number = fresh(), o: Json = {}) => ({ method: 'card', number, expiration_date: '12/30', security_code: CVV, ...o })
  const byId = (id: string, o: Json = {}) => ({ method: 'id', id, security_code: CVV, ...o })
  const now = () => h.clock.now().toISOString()
  const pay = (body: Json, o: { auth?: string; merchantAccount?: string } = {}) =>
    h.request<Tx>('POST', '/transactions', { body: { amount: 1299, currency: 'USD', ...body }, ...o })
  const paid = async (body: Json, o: { auth?: string; merchantAccount?: string } = {}) => {
    const r = await pay(body, o)
    expect(r.status, r.text).to.equal(201)
    return r.body
  }
  const method = async (id: string, merchantAccount?: string) => {
    const r = await h.request<PaymentMethod>('GET', `/payment-methods/${id}`, merchantAccount === undefined ? {} : { merchantAccount })
    expect(r.status, r.text).to.equal(200)
    return r.body
  }
  const storedMethod = async (body: Json, merchantAccount?: string) => {
    const r = await h.request<PaymentMethod>('POST', '/payment-methods', {
      body,
      ...(merchantAccount === undefined ? {} : { merchantAccount }),
    })
    expect(r.status, r.text).to.equal(201)
    return r.body
  }
  const newBuyer = async (external: string) => {
    const r = await h.request<Buyer>('POST', '/buyers', { body: { display_name: 'Grace Hopper', external_identifier: external } })
    expect(r.status, r.text).to.equal(201)
    return r.body
  }
  const embedFor = (claim?: Record<string, string>) =>
    h.token('admin', { scopes: ['embed'], ...(claim === undefined ? {} : { embedClaim: claim }) })
  const methodCount = async () => (await h.request<Page>('GET', '/payment-methods?limit=100')).body.items.length
  const transactionCount = async () => (await h.request<Page>('GET', '/transactions?limit=100')).body.items.length

  /** The buyer as a transaction shows it. */
  const txBuyer = (b: Buyer) => ({
    type: 'buyer',
    id: b.id,
    reconciliation_id: b.reconciliation_id,
    display_name: b.display_name,
    external_identifier: b.external_identifier,
    billing_details: null,
    account_number: null,
  })
  /** The card a transaction paid with, as it shows it: a stored method's view. */
  const paidWith = (m: PaymentMethod) => ({
    type: 'payment-method',
    method: 'card',
    id: m.id,
    label: m.label,
    scheme: 'visa',
    expiration_date: m.expiration_date,
    fingerprint: m.fingerprint,
    details: m.details,
    country: null,
    currency: null,
    external_identifier: m.external_identifier,
  })
  const expectedTx = (t: Tx, o: Json = {}): Json => approvedCardPayment(t, now(), o)
  /** What using a method once more at `now` changed of it. */
  const used = (m: PaymentMethod, uses: number, o: Json = {}) => ({
    ...m,
    usage_count: uses,
    cit_usage_count: uses,
    last_used_at: now(),
    cit_last_used_at: now(),
    ...o,
  })

  describe('store: true', () => {
    it('keeps the card that pays for the named buyer: the transaction names the method, succeeded with one use', async () => {
      const b = await newBuyer('cof-keeper')
      const number = fresh()
      h.clock.advance(1000)
      const t = await paid({ payment_method: card(number), store: true, buyer_id: b.id })
      const id = t.payment_method.id
      expect(id).to.be.a('string')
      const m = await method(id!)
      expect(t).to.deep.equal(expectedTx(t, { payment_method: paidWith(m), buyer: txBuyer(b) }))
      expect(m).to.deep.equal(
        methodBody({ id: id!, fingerprint: m.fingerprint }, number, now(), {
          usage_count: 1,
          cit_usage_count: 1,
          buyer: b,
          last_used_at: now(),
          cit_last_used_at: now(),
        }),
      )
      expect((await h.request('GET', `/transactions/${t.id}`)).body).to.deep.equal(t)
      const wallet = await h.request('GET', `/buyers/payment-methods?buyer_id=${b.id}`)
      expect(wallet.body).to.deep.equal({ items: [summaryOf(m)] })
      // The same card kept again for the same buyer (by its external identifier): the same method, one more use.
      h.clock.advance(1000)
      const again = await paid({ payment_method: card(number), store: true, buyer_external_identifier: 'cof-keeper' })
      expect(again.payment_method.id).to.equal(id)
      expect(await method(id!)).to.deep.equal(used(m, 2))
    })

    it('keeps the card of a checkout session Secure Fields filled', async () => {
      const number = fresh()
      const ada = (await h.request<Buyer>('GET', `/buyers/${IDS.defaultBuyer}`)).body
      const session = (await h.request<Resource>('POST', '/checkout/sessions')).body
      const put = await h.request('PUT', `/checkout/sessions/${session.id}/fields`, {
        auth: null,
        body: { payment_method: card(number, { expiration_date: '09/31' }) },
      })
      expect(put.status).to.equal(204)
      const t = await paid({ payment_method: { method: 'checkout-session', id: session.id }, store: true, buyer_id: IDS.defaultBuyer })
      const m = await method(t.payment_method.id!)
      expect(t).to.deep.equal(expectedTx(t, { payment_method: paidWith(m), buyer: txBuyer(ada), checkout_session_id: session.id }))
      expect(m).to.deep.include({ status: 'succeeded', usage_count: 1, expiration_date: '09/31', label: number.slice(-4) })
      expect(m.buyer?.id).to.equal(IDS.defaultBuyer)
    })

    it('leaves a card kept by a declined payment failed: unusable and out of the buyer’s list; a card that paid before stays succeeded', async () => {
      const b = await newBuyer('cof-declined')
      const t = await paid({ payment_method: card(DECLINED), store: true, buyer_id: b.id })
      expect(t).to.deep.include({ status: 'authorization_declined', error_code: 'issuer_decline', intent_outcome: 'failed' })
      const failed = await method(t.payment_method.id!)
      expect(failed).to.deep.include({ status: 'failed', usage_count: 0, cit_usage_count: 0, last_used_at: null, cit_last_used_at: null })
      const r = await pay({ payment_method: byId(failed.id), buyer_id: b.id })
      expect([r.status, r.body]).to.deep.equal([400, UNKNOWN_METHOD])
      expect((await h.request('GET', `/buyers/payment-methods?buyer_id=${b.id}`)).body).to.deep.equal({ items: [] })
      // A card that paid once, kept again by a payment the service declines (by its amount): still succeeded, no use counted.
      const number = fresh()
      const good = await paid({ payment_method: card(number), store: true, buyer_id: b.id })
      const before = await method(good.payment_method.id!)
      h.clock.advance(1000)
      const declined = await paid({ amount: 200_001, payment_method: card(number), store: true, buyer_id: b.id })
      expect([declined.status, declined.payment_method.id]).to.deep.equal(['authorization_declined', before.id])
      expect(await method(before.id)).to.deep.equal(before)
    })

    it('refuses store: true without a buyer of the account or with gift cards alone, storing and charging nothing', async () => {
      const [methods, transactions] = [await methodCount(), await transactionCount()]
      const buyerRequired = refused('/store', '`store: true` needs a buyer: `buyer_id` or `buyer_external_identifier`', 'buyer_required')
      for (const body of [
        { payment_method: card(), store: true },
        { payment_method: card(), store: true, buyer: { display_name: 'Guest' } },
      ]) {
        const r = await pay(body)
        expect([r.status, r.body]).to.deep.equal([400, buyerRequired])
      }
      const giftCardsOnly = await pay({
        amount: 500,
        store: true,
        buyer_id: IDS.defaultBuyer,
        gift_cards: [{ number: '7200000000000009001', pin: '8642', amount: 500 }],
      })
      expect([giftCardsOnly.status, giftCardsOnly.body]).to.deep.equal([
        400,
        refused('/store', '`store: true` keeps the card that pays: send a `payment_method`', 'nothing_to_store'),
      ])
      const unknownBuyer = await pay({ payment_method: card(), store: true, buyer_id: '99999999-9999-4999-8999-999999999999' })
      expect([unknownBuyer.status, unknownBuyer.body]).to.deep.equal([
        400,
        refused('/buyer_id', 'No buyer with this id exists in this merchant account', 'unknown_buyer'),
      ])
      const notBoolean = await pay({ payment_method: card(), store: 'yes', buyer_id: IDS.defaultBuyer })
      expect([notBoolean.status, notBoolean.body]).to.deep.equal([
        422,
        { detail: [{ loc: ['body', 'store'], msg: 'Input should be a valid boolean', type: 'bool_type', input: 'yes' }] },
      ])
      expect([await methodCount(), await transactionCount()]).to.deep.equal([methods, transactions])
      // `store: false` keeps nothing.
      const t = await paid({ payment_method: card(), store: false, buyer_id: IDS.defaultBuyer })
      expect(t.payment_method.id).to.equal(null)
      expect(await methodCount()).to.equal(methods)
    })
  })

  describe('payment_method: {method: "id"}', () => {
    it('pays with a stored card and its security code: authorized, one more use, the code checked and never kept', async () => {
      const b = await newBuyer('cof-payer')
      const first = await paid({ payment_method: card(), store: true, buyer_id: b.id })
      const m = await method(first.payment_method.id!)
      h.clock.advance(60_000)
      const t = await paid({ payment_method: byId(m.id), buyer_id: b.id })
      expect(t).to.deep.equal(expectedTx(t, { payment_method: paidWith(m), buyer: txBuyer(b) }))
      expect(await method(m.id)).to.deep.equal(used(m, 2))
      // Without a code the service is told none was given; with the mock's mismatching code it says so.
      h.clock.advance(1000)
      const noCode = await paid({ payment_method: { method: 'id', id: m.id.toUpperCase() }, buyer_id: b.id })
      expect([noCode.status, noCode.cvv_response_code]).to.deep.equal(['authorization_succeeded', 'not_provided'])
      const mismatch = await paid({ payment_method: byId(m.id, { security_code: '333' }), buyer_id: b.id })
      expect(mismatch.cvv_response_code).to.equal('no_match')
      expect((await method(m.id)).usage_count).to.equal(4)
    })

    it("makes a payment naming no buyer for the method's buyer; naming another buyer, or a guest, is a 400", async () => {
      const b = await newBuyer('cof-owner')
      const m = await storedMethod({ ...card(), buyer_id: b.id })
      const t = await paid({ payment_method: byId(m.id) })
      expect(t).to.deep.equal(expectedTx(t, { payment_method: paidWith(m), buyer: txBuyer(b) }))
      const byExternal = await paid({ payment_method: byId(m.id), buyer_external_identifier: 'cof-owner' })
      expect(byExternal.buyer).to.deep.equal(txBuyer(b))
      const mismatch = refused(
        '/payment_method/id',
        'The stored payment method is of another buyer than the transaction',
        'payment_method_buyer_mismatch',
      )
      const transactions = await transactionCount()
      for (const other of [
        { buyer_id: IDS.defaultBuyer },
        { buyer_external_identifier: 'buyer-1' },
        { buyer: { display_name: 'Guest' } },
      ]) {
        const r = await pay({ payment_method: byId(m.id), ...other })
        expect([other, r.status, r.body]).to.deep.equal([other, 400, mismatch])
      }
      expect(await transactionCount()).to.equal(transactions)
      // A method stored for no buyer pays for any buyer, or none.
      const unowned = await storedMethod(card())
      const forAda = await paid({ payment_method: byId(unowned.id), buyer_id: IDS.defaultBuyer })
      expect(forAda.buyer?.id).to.equal(IDS.defaultBuyer)
      const forNobody = await paid({ payment_method: byId(unowned.id) })
      expect(forNobody.buyer).to.equal(null)
      expect((await method(m.id)).usage_count).to.equal(2)
    })

    it("refuses an unknown, deleted or another account's method with one 400 on payment_method.id, and an expired one as expired", async () => {
      const deleted = await storedMethod(card())
      expect((await h.request('DELETE', `/payment-methods/${deleted.id}`)).status).to.equal(204)
      const acmes = await storedMethod(card(), 'acme')
      const transactions = await transactionCount()
      for (const id of [deleted.id, acmes.id, '99999999-9999-4999-8999-999999999999', 'pm-1']) {
        const r = await pay({ payment_method: byId(id) })
        expect([id, r.status, r.body]).to.deep.equal([id, 400, UNKNOWN_METHOD])
      }
      const expired = await storedMethod(card())
      expect((await h.request('PUT', `/payment-methods/${expired.id}`, { body: { expiration_date: '01/20' } })).status).to.equal(200)
      const r = await pay({ payment_method: byId(expired.id) })
      expect([r.status, r.body]).to.deep.equal([400, refused('/payment_method/id', 'The stored card has expired', 'expired_card')])
      expect(await transactionCount()).to.equal(transactions)
      // The acme method pays in its own account.
      const own = await paid({ payment_method: byId(acmes.id) }, { merchantAccount: 'acme' })
      expect(own.payment_method.id).to.equal(acmes.id)
      const malformed = await h.request<{ detail: unknown[] }>('POST', '/transactions', {
        body: { amount: 1299, currency: 'USD', payment_method: byId(acmes.id, { security_code: '12' }) },
      })
      expect([malformed.status, malformed.body]).to.deep.equal([
        422,
        {
          detail: [
            {
              loc: ['body', 'payment_method', 'security_code'],
              msg: "String should match pattern '^\\d{3,4}$'",
              type: 'string_pattern_mismatch',
              ctx: { pattern: '^\\d{3,4}$' },
            },
          ],
        },
      ])
    })

    it("lets an embed token pay with its buyer's method only, and keep a card for its buyer", async () => {
      const b = await newBuyer('cof-embed')
      const mine = await storedMethod({ ...card(), buyer_id: b.id })
      const adas = await storedMethod({ ...card(), buyer_id: IDS.defaultBuyer })
      const token = embedFor({ buyer_id: b.id })
      const t = await paid({ payment_method: byId(mine.id), buyer_id: b.id }, { auth: token })
      expect(t).to.deep.equal(expectedTx(t, { payment_method: paidWith(mine), buyer: txBuyer(b) }))
      for (const [auth, body] of [
        [token, { payment_method: byId(adas.id), buyer_id: b.id }],
        [embedFor(), { payment_method: byId(mine.id) }],
        [embedFor(), { payment_method: byId(adas.id) }],
      ] as const) {
        const r = await pay(body, { auth })
        expect([r.status, r.body]).to.deep.equal([400, UNKNOWN_METHOD])
      }
      // An embed token's payment is pinned to its buyer: naming another is a 403 before any card is looked at.
      const pinned = await pay({ payment_method: byId(mine.id), buyer_id: IDS.defaultBuyer }, { auth: token })
      expect([pinned.status, pinned.body]).to.deep.equal([403, errorBody(403)])
      const kept = await paid({ payment_method: card(), store: true, buyer_id: b.id }, { auth: token })
      expect((await method(kept.payment_method.id!)).buyer?.id).to.equal(b.id)
      expect((await method(mine.id)).usage_count).to.equal(1)
      expect((await method(adas.id)).usage_count).to.equal(0)
    })
  })

  describe('checkout sessions naming a stored method', () => {
    const session = async () => (await h.request<Resource>('POST', '/checkout/sessions')).body
    const fields = (id: string, body: unknown) => h.request('PUT', `/checkout/sessions/${id}/fields`, { auth: null, body })

    it('takes {method: "id"} in Secure Fields, shows the method, and the payment from the session pays with it', async () => {
      const b = await newBuyer('cof-session')
      const m = await storedMethod({ ...card(), buyer_id: b.id })
      const s = await session()
      const put = await fields(s.id, { payment_method: byId(m.id.toUpperCase()) })
      expect([put.status, put.text]).to.deep.equal([204, ''])
      const read = await h.request<Resource & { payment_method: Json }>('GET', `/checkout/sessions/${s.id}`)
      expect(read.body.payment_method).to.deep.equal({
        type: 'payment-method',
        method: 'card',
        id: m.id,
        label: m.label,
        scheme: 'visa',
        fingerprint: m.fingerprint,
        details: m.details,
      })
      h.clock.advance(1000)
      const t = await paid({ payment_method: { method: 'checkout-session', id: s.id } })
      expect(t).to.deep.equal(
        expectedTx(t, { payment_method: paidWith(m), buyer: txBuyer(b), checkout_session_id: s.id, updated_at: now() }),
      )
      expect(await method(m.id)).to.deep.equal(used(m, 1))
    })

    it("refuses a method that cannot pay in Secure Fields, and one out of the paying token's reach at the payment", async () => {
      const s = await session()
      const failedTx = await paid({ payment_method: card(DECLINED), store: true, buyer_id: IDS.defaultBuyer })
      const acmes = await storedMethod(card(), 'acme')
      for (const id of [failedTx.payment_method.id!, acmes.id]) {
        const r = await fields(s.id, { payment_method: byId(id) })
        expect([r.status, r.body]).to.deep.equal([
          400,
          errorBody(400, [
            {
              location: 'body',
              pointer: '/payment_method/id',
              message: 'No stored payment method with this id can pay',
              type: 'unknown_payment_method',
            },
          ]),
        ])
      }
      // The session id reaches nobody's cards: an embed token of another buyer cannot pay with Ada's method through it.
      const adas = await storedMethod({ ...card(), buyer_id: IDS.defaultBuyer })
      expect((await fields(s.id, { payment_method: byId(adas.id) })).status).to.equal(204)
      const b = await newBuyer('cof-session-thief')
      const r = await pay(
        { payment_method: { method: 'checkout-session', id: s.id }, buyer_id: b.id },
        { auth: embedFor({ buyer_id: b.id }) },
      )
      expect([r.status, r.body]).to.deep.equal([400, UNKNOWN_METHOD])
      expect((await method(adas.id)).usage_count).to.equal(0)
    })
  })

  // Last: by then the webhooks of every test above are on their way.
  describe('secrets', () => {
    it('puts neither the card number nor the security code in any transaction event log or webhook', async () => {
      const b = await newBuyer('cof-secrets')
      const number = fresh()
      const kept = await paid({ payment_method: card(number), store: true, buyer_id: b.id })
      const again = await paid({ payment_method: byId(kept.payment_method.id!), buyer_id: b.id })
      const declined = await paid({ payment_method: card(DECLINED), store: true, buyer_id: b.id })
      for (const t of [kept, again, declined]) {
        const events = await h.request<Page>('GET', `/transactions/${t.id}/events`)
        expect(events.status).to.equal(200)
        expect(events.body.items.length).to.be.greaterThan(0)
        expect(events.text).not.to.include(number).and.not.to.include(DECLINED).and.not.to.include(`"${CVV}"`)
        expect(events.text).not.to.include('security_code')
      }
      const apiRequest = (await h.request<Page<Json>>('GET', `/transactions/${again.id}/events`)).body.items[0]
      expect(apiRequest).to.deep.include({ name: 'transaction-api-request' })
      expect(apiRequest!.context).to.deep.equal({
        amount: 1299,
        currency: 'USD',
        buyer_id: b.id,
        payment_method: { method: 'id', id: kept.payment_method.id },
      })
      // Every webhook of the suite: the methods kept, and the transactions authorized and declined.
      const names = await eventually(() => {
        const got = rx.received.map((r) => (JSON.parse(r.body) as Json).name as string)
        return got.includes('transaction.declined') && got.filter((x) => x === 'payment-method.created').length >= 2 ? got : undefined
      }, 'the suite’s webhooks')
      await quietFor(300)
      expect(names).to.include.members(['buyer.created', 'payment-method.created', 'transaction.authorized', 'transaction.declined'])
      const bodies = rx.received.map((r) => r.body).join('\n')
      for (const secret of sent) expect(bodies, secret).not.to.match(new RegExp(`\\b${secret}\\b`))
      expect(bodies).not.to.include(`"${CVV}"`).and.not.to.include('security_code')
    })
  })
})
