import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { askConnector } from '../../src/gift-cards/ask-connector'
import { ActivationResult, BalanceResult } from '../../src/gift-cards/gift-card.ports'
import { cardDeclined, serviceFailed, serviceTimeout } from '../../src/shared/errors'

const NUMBER = '6036280000000001'
const PIN = '97531'
const ask = (call: () => TE.TaskEither<unknown, unknown>) => askConnector(ActivationResult, [NUMBER, PIN], call)()

describe('askConnector', () => {
  it('passes a well-formed answer through', async () => {
    const answer = { expirationDate: '2029-01-01T00:00:00.000Z' }
    expect(await ask(() => TE.right(answer))).to.deep.equal(E.right(answer))
    expect(await ask(() => TE.right({ expirationDate: null }))).to.deep.equal(E.right({ expirationDate: null }))
  })

  it('passes known errors through with their reasons', async () => {
    expect(await ask(() => TE.left(cardDeclined('Card is blocked')))).to.deep.equal(E.left(cardDeclined('Card is blocked')))
    expect(await ask(() => TE.left(serviceFailed('upstream 503', 'gift-card')))).to.deep.equal(
      E.left(serviceFailed('upstream 503', 'gift-card')),
    )
    expect(await ask(() => TE.left(serviceTimeout('gift-card')))).to.deep.equal(E.left(serviceTimeout('gift-card')))
  })

  describe('turns a connector that misbehaves into ServiceFailed', () => {
    const shape = serviceFailed('the gift card service answered in an unexpected shape', 'gift-card')
    const cases: [string, () => TE.TaskEither<unknown, unknown>, unknown][] = [
      [
        'throws while building its task',
        () => {
          throw new Error(`boom ${NUMBER}`)
        },
        serviceFailed('the gift card connector threw', 'gift-card'),
      ],
      [
        'rejects its promise',
        () => () => Promise.reject(new Error('socket hang up')),
        serviceFailed('the gift card connector threw', 'gift-card'),
      ],
      ['answers a date that is not a date', () => TE.right({ expirationDate: 'next year' }), shape],
      ['answers a number as the date', () => TE.right({ expirationDate: 42 }), shape],
      ['answers nothing', () => TE.right(undefined), shape],
      ['answers an object without the date', () => TE.right({}), shape],
      ['answers a string', () => TE.right('<html>502 Bad Gateway</html>'), shape],
      [
        'fails with an error it does not know',
        () => TE.left({ _tag: 'Teapot' }),
        serviceFailed('the gift card connector answered an unknown error', 'gift-card'),
      ],
      [
        'fails with a bare Error',
        () => TE.left(new Error('x')),
        serviceFailed('the gift card connector answered an unknown error', 'gift-card'),
      ],
      ['fails with null', () => TE.left(null), serviceFailed('the gift card connector answered an unknown error', 'gift-card')],
    ]
    for (const [what, call, expected] of cases)
      it(`when it ${what}`, async () => {
        expect(await ask(call)).to.deep.equal(E.left(expected))
      })
  })

  describe('replaces a reason that must not be shown or logged', () => {
    const cases: [string, unknown][] = [
      ['quotes the card number', `card ${NUMBER} is blocked`],
      ['quotes the PIN', `wrong pin ${PIN}`],
      ['is empty', '  '],
      ['is not a string', { text: 'declined' }],
      ['is longer than 300 characters', 'x'.repeat(301)],
    ]
    for (const [what, reason] of cases)
      it(`when it ${what}`, async () => {
        expect(await ask(() => TE.left({ _tag: 'CardDeclined', reason }))).to.deep.equal(E.left(cardDeclined('The gift card was declined')))
        expect(await ask(() => TE.left({ _tag: 'ServiceFailed', reason }))).to.deep.equal(
          E.left(serviceFailed('the gift card service failed', 'gift-card')),
        )
      })

    it('keeps a reason that merely contains a PIN shorter than 4 characters (it cannot be told from text)', async () => {
      const short = askConnector(ActivationResult, [NUMBER, '12'], () => TE.left(cardDeclined('limit 12 per day')))
      expect(await short()).to.deep.equal(E.left(cardDeclined('limit 12 per day')))
    })
  })
})

describe('askConnector with balance checks', () => {
  const askBalance = (call: () => TE.TaskEither<unknown, unknown>) => askConnector(BalanceResult, [NUMBER, PIN], call)()
  const shape = serviceFailed('the gift card service answered in an unexpected shape', 'gift-card')

  it('passes a balance and a per-card refusal through', async () => {
    const balance = { _tag: 'Balance', balance: 0, currency: 'USD', expirationDate: null }
    expect(await askBalance(() => TE.right(balance))).to.deep.equal(E.right(balance))
    const refusal = { _tag: 'Refused', errorCode: 'expired_card' }
    expect(await askBalance(() => TE.right(refusal))).to.deep.equal(E.right(refusal))
  })

  it('turns a garbled balance answer into ServiceFailed', async () => {
    for (const answer of [
      { _tag: 'Balance', balance: -1, currency: 'USD', expirationDate: null },
      { _tag: 'Balance', balance: 1.5, currency: 'USD', expirationDate: null },
      { _tag: 'Balance', balance: 10, currency: 'usd', expirationDate: null },
      { _tag: 'Balance', balance: 10, currency: 'USD', expirationDate: 'soon' },
      { _tag: 'Refused', errorCode: 'no_such_code' },
      { balance: 10, currency: 'USD', expirationDate: null },
      null,
    ])
      expect(await askBalance(() => TE.right(answer)), JSON.stringify(answer)).to.deep.equal(E.left(shape))
  })
})
