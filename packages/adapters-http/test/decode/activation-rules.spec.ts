import { expect } from 'chai'
import { GiftCardActivationCreate } from '@orka/domain'
import { Violation } from '../../src/decode/violations'
import { decoded, violationsOf } from './helpers'

const N = '4111111111111111'
const BUYER_ID = 'fe26475d-ec3e-4884-9553-f7356683f7f9'

const rule = (field: string, msg: string, input?: unknown): Violation => ({
  loc: ['body', field],
  msg: `Value error, ${msg}`,
  type: 'value_error',
  ...(input !== undefined ? { input } : {}),
})

describe('GiftCardActivationCreate: rules 1-4', () => {
  const rejected: [string, Record<string, unknown>, Violation[]][] = [
    // Rule 1
    [
      'a currency without an amount with a value_error on /amount',
      { number: N, currency: 'USD' },
      [rule('amount', '`amount` is required when `currency` is given')],
    ],
    [
      'a currency with a null amount with a value_error on /amount',
      { number: N, currency: 'USD', amount: null },
      [rule('amount', '`amount` is required when `currency` is given', null)],
    ],
    [
      'an amount without a currency with a value_error on /currency',
      { number: N, amount: 500 },
      [rule('currency', '`currency` is required when `amount` is given')],
    ],
    [
      'an amount of 0 without a currency (0 is an amount) with a value_error on /currency',
      { number: N, amount: 0, currency: null },
      [rule('currency', '`currency` is required when `amount` is given', null)],
    ],
    // Rule 2
    [
      'store true without a pin with a value_error on /pin',
      { number: N, store: true },
      [rule('pin', '`pin` is required when `store` is true')],
    ],
    [
      'store true with a null pin with a value_error on /pin, without echoing the pin',
      { number: N, store: true, pin: null },
      [rule('pin', '`pin` is required when `store` is true')],
    ],
    // Rule 3
    [
      'a buyer_id without store with a value_error on /buyer_id',
      { number: N, buyer_id: BUYER_ID },
      [rule('buyer_id', '`buyer_id` is allowed only when `store` is true', BUYER_ID)],
    ],
    [
      'a buyer_id with store false with a value_error on /buyer_id',
      { number: N, store: false, buyer_id: BUYER_ID },
      [rule('buyer_id', '`buyer_id` is allowed only when `store` is true', BUYER_ID)],
    ],
    [
      'a buyer_external_identifier without store with a value_error on /buyer_external_identifier',
      { number: N, buyer_external_identifier: 'b-1' },
      [rule('buyer_external_identifier', '`buyer_external_identifier` is allowed only when `store` is true', 'b-1')],
    ],
    // Rule 4
    [
      'both buyer fields with store true with a value_error on /buyer_external_identifier',
      {
        number: N,
        store: true,
        pin: '1',
        buyer_id: BUYER_ID,
        buyer_external_identifier: 'b-1',
      },
      [rule('buyer_external_identifier', '`buyer_id` and `buyer_external_identifier` must not both be set', 'b-1')],
    ],
    [
      'both buyer fields without store with one value_error per field',
      { number: N, buyer_id: BUYER_ID, buyer_external_identifier: 'b-1' },
      [
        rule('buyer_id', '`buyer_id` is allowed only when `store` is true', BUYER_ID),
        rule('buyer_external_identifier', '`buyer_external_identifier` is allowed only when `store` is true', 'b-1'),
      ],
    ],
    // Several rules at once
    [
      'an amount without currency and store without pin with both violations, in rule order',
      { number: N, amount: 1, store: true },
      [rule('currency', '`currency` is required when `amount` is given'), rule('pin', '`pin` is required when `store` is true')],
    ],
  ]
  for (const [name, body, expected] of rejected)
    it(`rejects ${name}`, () => {
      expect(violationsOf(GiftCardActivationCreate, body)).to.deep.equal(expected)
    })

  it('checks rules only once every field is well-typed: a bad currency without amount reports the pattern alone', () => {
    expect(violationsOf(GiftCardActivationCreate, { number: N, currency: 'usd' })).to.deep.equal([
      {
        loc: ['body', 'currency'],
        msg: "String should match pattern '^[A-Z]{3}$'",
        type: 'string_pattern_mismatch',
        input: 'usd',
        ctx: { pattern: '^[A-Z]{3}$' },
      },
    ])
  })

  const accepted: [string, Record<string, unknown>][] = [
    ['amount and currency together', { number: N, amount: 1000, currency: 'USD' }],
    ['amount and currency both null', { number: N, amount: null, currency: null }],
    ['store true with a pin', { number: N, store: true, pin: '0000' }],
    ['store true with a pin and a buyer_id', { number: N, store: true, pin: '0000', buyer_id: BUYER_ID }],
    ['store true with a pin and a buyer_external_identifier', { number: N, store: true, pin: '0000', buyer_external_identifier: 'b-1' }],
    ['null buyer fields without store (null is not set)', { number: N, buyer_id: null, buyer_external_identifier: null }],
    [
      'a buyer_id with a null buyer_external_identifier under store',
      { number: N, store: true, pin: '1', buyer_id: BUYER_ID, buyer_external_identifier: null },
    ],
    ['a pin without store (a pin alone is allowed)', { number: N, pin: '1234' }],
  ]
  for (const [name, body] of accepted)
    it(`accepts ${name}`, () => {
      expect(decoded(GiftCardActivationCreate, body)).to.deep.equal(body)
    })
})
