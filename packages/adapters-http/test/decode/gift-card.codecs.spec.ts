import { expect } from 'chai'
import { GiftCard, GiftCardActivationCreate } from '@orka/domain'
import { Violation } from '../../src/decode/violations'
import { decoded, violationsOf } from './helpers'

const N16 = '4111111111111111'
const N19 = '6006491000000000012'
const BUYER_ID = 'fe26475d-ec3e-4884-9553-f7356683f7f9'
const s = (n: number) => 'x'.repeat(n)

const tooShort = (field: string, min: number, input?: unknown): Violation => ({
  loc: ['body', field],
  msg: `String should have at least ${min} character${min === 1 ? '' : 's'}`,
  type: 'string_too_short',
  ...(input !== undefined ? { input } : {}),
  ctx: { min_length: min },
})
const tooLong = (field: string, max: number, input?: unknown): Violation => ({
  loc: ['body', field],
  msg: `String should have at most ${max} characters`,
  type: 'string_too_long',
  ...(input !== undefined ? { input } : {}),
  ctx: { max_length: max },
})
const pattern = (field: string, re: string, input?: unknown): Violation => ({
  loc: ['body', field],
  msg: `String should match pattern '${re}'`,
  type: 'string_pattern_mismatch',
  ...(input !== undefined ? { input } : {}),
  ctx: { pattern: re },
})
const notString = (field: string, input?: unknown): Violation => ({
  loc: ['body', field],
  msg: 'Input should be a valid string',
  type: 'string_type',
  ...(input !== undefined ? { input } : {}),
})
const notInt = (input: unknown): Violation => ({ loc: ['body', 'amount'], msg: 'Input should be a valid integer', type: 'int_type', input })

describe('GiftCardActivationCreate: field constraints', () => {
  const accepted: [string, Record<string, unknown>][] = [
    ['a 16-digit number alone', { number: N16 }],
    ['a 19-digit number alone', { number: N19 }],
    [
      'every field set, store true with a pin and a buyer id',
      {
        number: N16,
        pin: '1234',
        amount: 0,
        currency: 'USD',
        external_identifier: s(1),
        store: true,
        buyer_id: BUYER_ID,
      },
    ],
    ['store true with a buyer external identifier of 200 chars', { number: N16, pin: 'x', store: true, buyer_external_identifier: s(200) }],
    ['the largest amount, 99999999', { number: N16, amount: 99999999, currency: 'EUR' }],
    [
      'every optional field null',
      {
        number: N16,
        pin: null,
        amount: null,
        currency: null,
        external_identifier: null,
        buyer_id: null,
        buyer_external_identifier: null,
      },
    ],
    ['store false', { number: N16, store: false }],
    ['an external_identifier of 200 chars', { number: N16, external_identifier: s(200) }],
    ['a pin of 64 characters', { number: N16, pin: '7'.repeat(64) }],
  ]
  for (const [name, body] of accepted)
    it(`accepts ${name}, decoding it unchanged`, () => {
      expect(decoded(GiftCardActivationCreate, body)).to.deep.equal(body)
    })

  const rejected: [string, unknown, Violation[]][] = [
    ['a missing number as missing', {}, [{ loc: ['body', 'number'], msg: 'Field required', type: 'missing' }]],
    ['a 15-digit number as string_too_short, without echoing it', { number: '411111111111111' }, [tooShort('number', 16)]],
    ['a 20-digit number as string_too_long, without echoing it', { number: '41111111111111111111' }, [tooLong('number', 19)]],
    ['a number with a letter as a pattern mismatch, without echoing it', { number: '411111111111111A' }, [pattern('number', '^\\d+$')]],
    ['a number with spaces as a pattern mismatch', { number: '4111 1111 1111 1111' }, [pattern('number', '^\\d+$')]],
    ['a number sent as a JSON number as string_type, without echoing it', { number: 4111111111111111 }, [notString('number')]],
    ['a null number as string_type', { number: null }, [notString('number')]],
    ['an empty pin as string_too_short, without echoing it', { number: N16, pin: '' }, [tooShort('pin', 1)]],
    ['a 65-character pin as string_too_long, without echoing it', { number: N16, pin: '7'.repeat(65) }, [tooLong('pin', 64)]],
    ['a 60 KB pin as string_too_long, without echoing it', { number: N16, pin: '7'.repeat(60_000) }, [tooLong('pin', 64)]],
    ['a pin sent as a number as string_type, without echoing it', { number: N16, pin: 1234 }, [notString('pin')]],
    ['a pin sent as an object as string_type', { number: N16, pin: { value: '1234' } }, [notString('pin')]],
    ['an amount of 1.5 as int_type', { number: N16, amount: 1.5, currency: 'USD' }, [notInt(1.5)]],
    ['an amount sent as a string as int_type', { number: N16, amount: '100', currency: 'USD' }, [notInt('100')]],
    [
      'an amount of -1 as greater_than_equal 0',
      { number: N16, amount: -1, currency: 'USD' },
      [
        {
          loc: ['body', 'amount'],
          msg: 'Input should be greater than or equal to 0',
          type: 'greater_than_equal',
          input: -1,
          ctx: { ge: 0 },
        },
      ],
    ],
    [
      'an amount of 100000000 as less_than_equal 99999999',
      { number: N16, amount: 100000000, currency: 'USD' },
      [
        {
          loc: ['body', 'amount'],
          msg: 'Input should be less than or equal to 99999999',
          type: 'less_than_equal',
          input: 100000000,
          ctx: { le: 99999999 },
        },
      ],
    ],
    [
      'a lower-case currency as a pattern mismatch',
      { number: N16, amount: 1, currency: 'usd' },
      [pattern('currency', '^[A-Z]{3}$', 'usd')],
    ],
    [
      'a four-letter currency as a pattern mismatch',
      { number: N16, amount: 1, currency: 'USDX' },
      [pattern('currency', '^[A-Z]{3}$', 'USDX')],
    ],
    ['a currency sent as a number as string_type', { number: N16, amount: 1, currency: 840 }, [notString('currency', 840)]],
    [
      'an empty external_identifier as string_too_short',
      { number: N16, external_identifier: '' },
      [tooShort('external_identifier', 1, '')],
    ],
    [
      'a 201-char external_identifier as string_too_long',
      { number: N16, external_identifier: s(201) },
      [tooLong('external_identifier', 200, s(201))],
    ],
    [
      'an empty buyer_external_identifier as string_too_short',
      { number: N16, pin: '1', store: true, buyer_external_identifier: '' },
      [tooShort('buyer_external_identifier', 1, '')],
    ],
    [
      'a 201-char buyer_external_identifier as string_too_long',
      { number: N16, pin: '1', store: true, buyer_external_identifier: s(201) },
      [tooLong('buyer_external_identifier', 200, s(201))],
    ],
    [
      'store sent as the string "true" as bool_type',
      { number: N16, store: 'true' },
      [{ loc: ['body', 'store'], msg: 'Input should be a valid boolean', type: 'bool_type', input: 'true' }],
    ],
    [
      'store null as bool_type (store is not nullable)',
      { number: N16, store: null },
      [{ loc: ['body', 'store'], msg: 'Input should be a valid boolean', type: 'bool_type', input: null }],
    ],
    [
      'a buyer_id that is not a UUID as uuid_parsing',
      { number: N16, pin: '1', store: true, buyer_id: 'buyer-1' },
      [{ loc: ['body', 'buyer_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: 'buyer-1' }],
    ],
    ['a buyer_id sent as a number as string_type', { number: N16, pin: '1', store: true, buyer_id: 42 }, [notString('buyer_id', 42)]],
    [
      'an unknown property as extra_forbidden, without echoing its value',
      { number: N16, cvv: '123' },
      [{ loc: ['body', 'cvv'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }],
    ],
    [
      'a body that is a string as model_type, without echoing it',
      N16,
      [{ loc: ['body'], msg: 'Input should be a valid dictionary or object', type: 'model_type' }],
    ],
    [
      'a body that is an array as model_type',
      [N16],
      [{ loc: ['body'], msg: 'Input should be a valid dictionary or object', type: 'model_type' }],
    ],
    [
      'a body that is null as model_type',
      null,
      [{ loc: ['body'], msg: 'Input should be a valid dictionary or object', type: 'model_type' }],
    ],
    [
      'a body that is a number as model_type',
      4111111111111111,
      [{ loc: ['body'], msg: 'Input should be a valid dictionary or object', type: 'model_type' }],
    ],
    [
      'several faults at once, unknown properties first, then fields in declaration order',
      {
        amount: 1.5,
        zzz: 1,
        currency: 'eur',
        store: 1,
      },
      [
        { loc: ['body', 'zzz'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
        { loc: ['body', 'number'], msg: 'Field required', type: 'missing' },
        notInt(1.5),
        pattern('currency', '^[A-Z]{3}$', 'eur'),
        { loc: ['body', 'store'], msg: 'Input should be a valid boolean', type: 'bool_type', input: 1 },
      ],
    ],
  ]
  for (const [name, body, expected] of rejected)
    it(`rejects ${name}`, () => {
      expect(violationsOf(GiftCardActivationCreate, body)).to.deep.equal(expected)
    })
})

describe('GiftCard codec', () => {
  const card = {
    type: 'gift-card' as const,
    id: '1d6d3c8e-6f0a-4c5e-9a57-2a3c4b5d6e7f',
    merchant_account_id: 'default',
    gift_card_service: {
      type: 'gift-card-service' as const,
      id: '6f1e7a52-3b1c-4e0d-8f6a-0c9b8a7d6e5f',
      gift_card_service_definition_id: 'mock-gift-card' as const,
      display_name: 'Mock',
    },
    bin: '411111',
    sub_bin: '111',
    last4: '1111',
    expiration_date: null,
    buyer: {
      type: 'buyer' as const,
      id: 'fe26475d-ec3e-4884-9553-f7356683f7f9',
      reconciliation_id: '7jZXl4gBUNl0CnaLEnfXbt',
      merchant_account_id: 'default',
      display_name: 'Jane',
      external_identifier: null,
      billing_details: { first_name: 'Jane', address: { city: 'Oslo' } },
      account_number: null,
      created_at: '2025-01-01T00:00:00.000Z',
      updated_at: '2025-01-01T00:00:00.000Z',
    },
    created_at: '2025-01-02T00:00:00.000Z',
    updated_at: '2025-01-02T00:00:00.000Z',
    last_used_at: null,
    usage_count: 0,
    cit_last_used_at: null,
    cit_usage_count: 0,
  }

  it('encodes a gift card unchanged when it has only its own properties', () => {
    expect(GiftCard.encode(card)).to.deep.equal(card)
  })

  it('drops unknown properties at every level when encoding, so a stray number or PIN never reaches a response', () => {
    const polluted = {
      ...card,
      number: N16,
      pin: '1234',
      gift_card_service: { ...card.gift_card_service, api_key: 'secret' },
      buyer: {
        ...card.buyer,
        internal_note: 'x',
        billing_details: {
          ...card.buyer.billing_details,
          ssn: '078-05-1120',
          address: { ...card.buyer.billing_details.address, geo: [1, 2] },
        },
      },
    }
    expect(GiftCard.encode(polluted)).to.deep.equal(card)
  })

  it('rejects a gift card with an unknown property when decoding', () => {
    expect(violationsOf(GiftCard, { ...card, number: N16 })).to.deep.equal([
      { loc: ['body', 'number'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ])
  })

  it('rejects a negative usage_count when decoding', () => {
    expect(violationsOf(GiftCard, { ...card, usage_count: -1 })).to.deep.equal([
      {
        loc: ['body', 'usage_count'],
        msg: 'Input should be greater than or equal to 0',
        type: 'greater_than_equal',
        input: -1,
        ctx: { ge: 0 },
      },
    ])
  })
})
