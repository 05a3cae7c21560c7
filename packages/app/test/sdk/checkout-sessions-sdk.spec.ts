import { expect } from 'chai'
import { Gr4vy, withToken } from '@gr4vy/sdk'
import { CartItem, CheckoutSession } from '@gr4vy/sdk/models/components'
import { Error400, Error404, HTTPValidationError } from '@gr4vy/sdk/models/errors'
import { freshDatabase } from '../mongo/support'
import { Harness, startHarness, UUID_RE } from '../support/harness'
import { rejectionOf } from './support'

/**
 * The original API SDK's own end-to-end cases for checkout sessions (its
 * `tests/processing/checkout-sessions.test.ts`: create, get, partial update, delete, then a
 * client error), with its Secure Fields helper (`tests/utils/fields.ts`: a raw `PUT .../fields`
 * with no token at all), on the embedded store and on MongoDB. The payment cases of that file
 * belong to transactions.
 */
const SDK_HEADER = 'x-gr4vy-merchant-account-id'
const HOUR = 3_600_000

/** The SDK's fixtures: `APPROVING_CARD` and `cartItem()`. */
const APPROVING_CARD = { number: '4111111111111111', expiration_date: '12/35', security_code: '123' }
const cartItem = (o: Partial<CartItem> = {}): CartItem => ({ name: 'Joust Duffle Bag', quantity: 1, unitAmount: 1299, ...o })

const suite = (store: string, env: () => Promise<{ env: Record<string, string>; drop: () => Promise<void> }>) =>
  describe(`the original API SDK's checkout sessions against Orka (${store})`, function () {
    this.timeout(30_000)
    let h: Harness
    let sdk: Gr4vy
    let drop: () => Promise<void>

    before(async () => {
      const db = await env()
      drop = db.drop
      h = await startHarness({ env: { MERCHANT_ACCOUNT_HEADER: SDK_HEADER, ...db.env } })
      sdk = new Gr4vy({ serverURL: h.url, merchantAccountId: 'default', bearerAuth: withToken({ privateKey: h.pems.admin }) })
    })
    after(async () => {
      await h.close()
      await drop()
    })
    // The SDK's tokens carry the real time: Orka's clock follows it.
    beforeEach(() => {
      h.clock.set(new Date())
    })

    /** `putCheckoutSessionCard` of the SDK's tests: Secure Fields, no token, `204` or it throws. */
    const putCheckoutSessionCard = async (session: CheckoutSession, card: typeof APPROVING_CARD) => {
      const response = await fetch(`${h.url}/checkout/sessions/${session.id}/fields`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ payment_method: { method: 'card', ...card } }),
      })
      if (response.status !== 204) throw new Error(`Unexpected status ${response.status} submitting checkout session fields`)
    }

    it('create → get → update (partial) → delete, then get is a client error (404)', async () => {
      const created = await sdk.checkoutSessions.create({ cartItems: [cartItem()], metadata: { source: 'test' } })
      expect(created.id).to.match(UUID_RE)
      expect(created).to.deep.equal({
        type: 'checkout-session',
        id: created.id,
        cartItems: [cartItem()],
        metadata: { source: 'test' },
        buyer: null,
        airline: null,
        amount: null,
        currency: null,
        paymentServiceId: null,
        expiresAt: new Date(h.clock.now().getTime() + HOUR),
        paymentMethod: null,
      })

      const fetched = await sdk.checkoutSessions.get(created.id)
      expect(fetched).to.deep.equal(created)

      // Partial update: change only the metadata, leave the cart items.
      const updated = await sdk.checkoutSessions.update({ metadata: { source: 'updated' } }, created.id)
      expect(updated.metadata?.source).to.equal('updated')
      expect(updated).to.deep.equal({ ...created, metadata: { source: 'updated' } })

      await sdk.checkoutSessions.delete(created.id)
      expect(await rejectionOf(sdk.checkoutSessions.get(created.id))).to.be.instanceOf(Error404)
    })

    it('create with no body, then Secure Fields without a token: the session shows the card, never its number', async () => {
      const session = await sdk.checkoutSessions.create()
      await putCheckoutSessionCard(session, APPROVING_CARD)
      const read = await sdk.checkoutSessions.get(session.id)
      expect(read.paymentMethod).to.deep.include({ type: 'payment-method', method: 'card', label: '1111', scheme: 'visa', id: null })
      expect(read.paymentMethod?.details).to.deep.equal({ bin: '411111', cardType: null })
      expect(read.paymentMethod?.fingerprint).to.be.a('string')
      expect(read.expiresAt).to.deep.equal(new Date(h.clock.now().getTime() + 5 * 60_000))
      expect(JSON.stringify(read)).not.to.include(APPROVING_CARD.number)
    })

    it("maps Orka's refusals to the SDK's errors: 422 (expires_in), 400 (not supported), 404 (another account)", async () => {
      expect(await rejectionOf(sdk.checkoutSessions.create({ expiresIn: 60 }))).to.be.instanceOf(HTTPValidationError)
      const e = await rejectionOf(sdk.checkoutSessions.create({ buyer: { shippingDetails: { firstName: 'Ada' } } }))
      expect(e).to.be.instanceOf(Error400)
      expect((e as Error400).data$.details).to.deep.equal([
        {
          location: 'body',
          pointer: '/buyer/shipping_details',
          message: '`buyer.shipping_details` is not supported',
          type: 'not_supported',
        },
      ])
      const theirs = await sdk.checkoutSessions.create(undefined, 'acme')
      expect(await rejectionOf(sdk.checkoutSessions.get(theirs.id))).to.be.instanceOf(Error404)
      expect(await rejectionOf(sdk.checkoutSessions.delete(theirs.id))).to.be.instanceOf(Error404)
      await sdk.checkoutSessions.delete(theirs.id, 'acme')
    })
  })

suite('embedded store', () => Promise.resolve({ env: {}, drop: () => Promise.resolve() }))
suite('MongoDB', () => Promise.resolve(freshDatabase()))
