import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { BuyerName, findNamedBuyer, notFound, problem, resolveNamedBuyer } from '@orka/domain'
import { aBuyer, MERCHANT_A, MERCHANT_B, right, uuidFor } from '@orka/domain/testing'
import { MemoryBuyerRepository } from '../../src'

describe('a buyer named by id or by external identifier', () => {
  const setup = async () => {
    const buyers = new MemoryBuyerRepository()
    const ada = aBuyer({ merchant_account_id: MERCHANT_A, external_identifier: 'crm-1' })
    const bob = aBuyer({ merchant_account_id: MERCHANT_A, external_identifier: 'crm-2' })
    const theirs = aBuyer({ merchant_account_id: MERCHANT_B, external_identifier: 'crm-3' })
    for (const b of [ada, bob, theirs]) await right(buyers.create(b))
    return { buyers, ada, bob, theirs }
  }

  it('finds by id, else by external identifier; named both ways, only a buyer carrying both', async () => {
    const { buyers, ada, bob, theirs } = await setup()
    const cases: [BuyerName, O.Option<unknown>][] = [
      [{ buyer_id: ada.id }, O.some(ada)],
      [{ buyer_external_identifier: 'crm-2' }, O.some(bob)],
      [{ buyer_id: ada.id, buyer_external_identifier: 'crm-1' }, O.some(ada)],
      [{ buyer_id: ada.id, buyer_external_identifier: 'crm-2' }, O.none],
      [{ buyer_id: null, buyer_external_identifier: null }, O.none],
      [{}, O.none],
      [{ buyer_id: theirs.id }, O.none],
      [{ buyer_external_identifier: 'crm-3' }, O.none],
    ]
    for (const [name, expected] of cases)
      expect(await right(findNamedBuyer(buyers, MERCHANT_A, name)), JSON.stringify(name)).to.deep.equal(expected)
  })

  it('resolves no name to no buyer, and an unknown one to NotFound pointing at the field that named it', async () => {
    const { buyers, ada } = await setup()
    expect(await resolveNamedBuyer(buyers, MERCHANT_A, {})()).to.deep.equal(E.right(null))
    expect(await resolveNamedBuyer(buyers, MERCHANT_A, { buyer_external_identifier: 'crm-1' })()).to.deep.equal(E.right(ada))
    const unknownId = uuidFor(99)
    expect(await resolveNamedBuyer(buyers, MERCHANT_A, { buyer_id: unknownId })()).to.deep.equal(
      E.left(
        notFound(
          'Buyer',
          unknownId,
          problem('input', ['buyer_id'], 'No buyer with this id exists in this merchant account', 'unknown_buyer'),
        ),
      ),
    )
    expect(await resolveNamedBuyer(buyers, MERCHANT_A, { buyer_external_identifier: 'nobody' })()).to.deep.equal(
      E.left(
        notFound(
          'Buyer',
          '',
          problem(
            'input',
            ['buyer_external_identifier'],
            'No buyer with this external identifier exists in this merchant account',
            'unknown_buyer',
          ),
        ),
      ),
    )
  })
})
