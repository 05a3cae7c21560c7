import { expect } from 'chai'
import { Address, ShippingDetails } from '@gr4vy/sdk/models/components'
import { Error404 } from '@gr4vy/sdk/models/errors'
import { errorBody, UUID_RE } from '../support/harness'
import { rejectionOf } from './support'
import { onBothStores, uniqueId } from './transactions-support'

/** The SDK's `address()` fixture. */
const address = (o: Partial<Address> = {}): Address => ({
  city: 'London',
  country: 'US',
  postalCode: '94110',
  state: 'CA',
  line1: '123 Example Street',
  line2: 'Apt 4',
  organization: 'Gr4vy',
  ...o,
})

/**
 * The original API SDK's own end-to-end case for a buyer's shipping details (its
 * `tests/processing/buyers.test.ts`, "shipping details › create → list → get → update (partial)
 * → delete"), ported to Orka on both stores through SDK 1.10.18, which parses every answer with
 * its schemas; where the SDK's case looks at an id or a name, these assert the whole ShippingDetails.
 */
onBothStores('buyer shipping details through the original SDK', (world) => {
  it('create → list → get → update (partial) → delete; then the SDK gets a 404', async () => {
    const { sdk } = world()
    const buyer = await sdk.buyers.create({ displayName: 'John Doe', externalIdentifier: uniqueId('buyer') })
    const created = await sdk.buyers.shippingDetails.create(
      { firstName: 'Ship', lastName: 'Here', emailAddress: 'ship@example.com', address: address({ city: 'London' }) },
      buyer.id!,
    )
    expect(created.id).to.match(UUID_RE)
    const whole: ShippingDetails = {
      type: 'shipping-details',
      id: created.id,
      buyerId: buyer.id,
      firstName: 'Ship',
      lastName: 'Here',
      emailAddress: 'ship@example.com',
      phoneNumber: null,
      address: address(),
    }
    expect(created).to.deep.equal(whole)

    const list = await sdk.buyers.shippingDetails.list(buyer.id!)
    expect(list).to.deep.equal({ items: [whole] })
    expect(await sdk.buyers.shippingDetails.get(buyer.id!, created.id!)).to.deep.equal(whole)

    // The SDK sends only `{"first_name":"Renamed"}`: the last name stays.
    const updated = await sdk.buyers.shippingDetails.update({ firstName: 'Renamed' }, buyer.id!, created.id!)
    expect(updated).to.deep.equal({ ...whole, firstName: 'Renamed' })
    expect(updated.lastName).to.equal('Here')

    await sdk.buyers.shippingDetails.delete(buyer.id!, created.id!)
    const gone = await rejectionOf(sdk.buyers.shippingDetails.get(buyer.id!, created.id!))
    expect(gone).to.be.instanceOf(Error404)
    expect([(gone as Error404).statusCode, JSON.parse((gone as Error404).body)]).to.deep.equal([404, errorBody(404)])
    expect(await sdk.buyers.shippingDetails.list(buyer.id!)).to.deep.equal({ items: [] })
  })

  it("the buyer lifecycle: a stored card pays with the buyer's shipping details, which the transaction shows", async () => {
    const { sdk } = world()
    const buyer = await sdk.buyers.create({ displayName: 'Ada Lovelace' })
    const method = await sdk.paymentMethods.create({
      method: 'card',
      number: '4111111111111111',
      expirationDate: '12/35',
      buyerId: buyer.id!,
    })
    const shipping = await sdk.buyers.shippingDetails.create({ firstName: 'Ada', lastName: 'Lovelace', address: address() }, buyer.id!)
    const paid = await sdk.transactions.create({
      amount: 1299,
      currency: 'USD',
      buyerId: buyer.id!,
      shippingDetailsId: shipping.id!,
      externalIdentifier: uniqueId('order'),
      paymentMethod: { method: 'id', id: method.id, securityCode: '123' },
    })
    expect(paid.status).to.equal('authorization_succeeded')
    expect(paid.shippingDetails).to.deep.equal(shipping)
    expect((await sdk.transactions.get(paid.id)).shippingDetails).to.deep.equal(shipping)
  })

  it("the buyer lifecycle's shipping details go with the buyer: after its delete, the buyer and its shipping details are 404s", async () => {
    const { sdk } = world()
    const buyer = await sdk.buyers.create({ displayName: 'Ada Lovelace' })
    const kept = await sdk.buyers.shippingDetails.create({ firstName: 'Ada', lastName: 'Lovelace', address: address() }, buyer.id!)
    await sdk.buyers.delete(buyer.id!)
    expect(await rejectionOf(sdk.buyers.get(buyer.id!))).to.be.instanceOf(Error404)
    expect(await rejectionOf(sdk.buyers.shippingDetails.get(buyer.id!, kept.id!))).to.be.instanceOf(Error404)
    expect(await rejectionOf(sdk.buyers.shippingDetails.list(buyer.id!))).to.be.instanceOf(Error404)
  })
})
