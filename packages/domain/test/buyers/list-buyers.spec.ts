import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Buyer } from '../../src/buyers/buyer'
import { BuyerRepository } from '../../src/buyers/buyers.ports'
import { makeCreateBuyer } from '../../src/buyers/create-buyer'
import { makeListBuyers } from '../../src/buyers/list-buyers'
import { invalidRequest, problem } from '../../src/shared/errors'
import { fakeMac, ManualClock } from '../../src/testing/doubles'
import { noWebhookEvents } from '../../src/testing/webhook-fakes'

const badCursor = E.left(
  invalidRequest(problem('cursor', [], 'The cursor is not valid for this list; use a cursor from the previous response', 'invalid_cursor')),
)

/** Just enough of a buyer store: newest first, as the port says, with the external_identifier filter. */
const buyerStore = (buyers: Buyer[]): BuyerRepository => {
  const key = (b: Buyer) => `${b.created_at}\u0000${b.id}`
  const desc = [...buyers].sort((a, b) => (key(a) < key(b) ? 1 : -1))
  return {
    create: () => TE.right(undefined),
    findById: () => TE.right(O.none),
    findByExternalIdentifier: () => TE.right(O.none),
    list: (acct, filter, seek) => {
      const from = O.toUndefined(seek.from)
      const mine = desc.filter(
        (b) =>
          b.merchant_account_id === acct &&
          (filter.external_identifier === undefined || b.external_identifier === filter.external_identifier),
      )
      const at = from && `${from[0]}\u0000${from[1]}`
      const found =
        seek.direction === 'forward' ? mine.filter((b) => !at || key(b) < at) : [...mine].reverse().filter((b) => !at || key(b) > at)
      return TE.right(found.slice(0, seek.limit))
    },
  }
}

const buyer = (n: number, ext: string | null): Buyer => ({
  type: 'buyer',
  id: `00000000-0000-4000-8000-00000000000${n}`,
  reconciliation_id: String(n),
  merchant_account_id: 'acme',
  display_name: null,
  external_identifier: ext,
  billing_details: null,
  account_number: null,
  created_at: `2025-01-0${n}T00:00:00.000Z`,
  updated_at: `2025-01-0${n}T00:00:00.000Z`,
})

describe('makeListBuyers', () => {
  const listBuyers = makeListBuyers({ buyers: buyerStore([buyer(1, 'x'), buyer(2, 'y'), buyer(3, 'x'), buyer(4, 'x')]), mac: fakeMac() })

  it('rejects a cursor issued under another external_identifier filter', async () => {
    const first = await listBuyers({ merchantAccountId: 'acme', filter: { external_identifier: 'x' }, limit: 1 })()
    const cursor = E.isRight(first) ? first.right.next_cursor! : ''
    expect(await listBuyers({ merchantAccountId: 'acme', filter: { external_identifier: 'y' }, limit: 1, cursor })()).to.deep.equal(
      badCursor,
    )
    expect(await listBuyers({ merchantAccountId: 'acme', filter: {}, limit: 1, cursor })()).to.deep.equal(badCursor)
  })

  it('rejects a cursor issued to another merchant account', async () => {
    const first = await listBuyers({ merchantAccountId: 'acme', filter: {}, limit: 1 })()
    const cursor = E.isRight(first) ? first.right.next_cursor! : ''
    expect(await listBuyers({ merchantAccountId: 'globex', filter: {}, limit: 1, cursor })()).to.deep.equal(badCursor)
  })

  it('follows its own cursor under the same filter, newest first', async () => {
    const first = await listBuyers({ merchantAccountId: 'acme', filter: { external_identifier: 'x' }, limit: 2 })()
    const cursor = E.isRight(first) ? first.right.next_cursor! : ''
    const second = await listBuyers({ merchantAccountId: 'acme', filter: { external_identifier: 'x' }, limit: 2, cursor })()
    expect([first, second].map((r) => E.isRight(r) && r.right.items.map((b) => b.id.slice(-1)))).to.deep.equal([['4', '3'], ['1']])
  })
})

describe('makeCreateBuyer', () => {
  it('builds the buyer from the input, the clock and a fresh id, with its reconciliation id', async () => {
    const created: Buyer[] = []
    const create = makeCreateBuyer({
      buyers: { ...buyerStore([]), create: (b) => (created.push(b), TE.right(undefined)) },
      clock: new ManualClock(new Date('2025-03-04T05:06:07.000Z')),
      ids: { uuid: () => 'fe26475d-ec3e-4884-9553-f7356683f7f9' },
      events: noWebhookEvents,
    })
    const expected: Buyer = {
      type: 'buyer',
      id: 'fe26475d-ec3e-4884-9553-f7356683f7f9',
      reconciliation_id: '7jZXl4gBUNl0CnaLEnfXbt',
      merchant_account_id: 'acme',
      display_name: 'Jane',
      external_identifier: null,
      billing_details: null,
      account_number: null,
      created_at: '2025-03-04T05:06:07.000Z',
      updated_at: '2025-03-04T05:06:07.000Z',
    }
    expect(await create({ merchantAccountId: 'acme', input: { display_name: 'Jane' } })()).to.deep.equal(E.right(expected))
    expect(created).to.deep.equal([expected])
  })
})
