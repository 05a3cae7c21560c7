import { expect } from 'chai'
import * as t from 'io-ts'
import {
  boundedString,
  BuyerCreate,
  canonicalUuid,
  closed,
  explainCharacters,
  GiftCardActivationCreate,
  IdempotencyRecord,
  inputStr,
  nullable,
  PermissionSet,
  PLAIN_NAME,
  str,
  UNNAMED_PROPERTY,
  uuid,
  WebhookSubscriptionCreate,
} from '@orka/domain'
import { Violation } from '../../src/decode/violations'
import { decoded, violationsOf } from './helpers'

const N = '4111111111111111'
const NUL = { msg: 'String should not contain the NUL character (U+0000)', type: 'string_invalid_characters' }
const UNICODE = { msg: 'Input should be a valid string, unable to parse raw data as a unicode string', type: 'string_unicode' }
const one = (codec: t.Mixed) => closed('One', { v: codec })
const at = (v: Omit<Violation, 'loc'>): Violation => ({ loc: ['body', 'v'], ...v })

describe('string codecs refuse NUL and lone surrogates', () => {
  const refused: [string, string, typeof NUL][] = [
    ['NUL alone', '\u0000', NUL],
    ['NUL inside', 'ab\u0000cd', NUL],
    ['NUL at the end', 'abc\u0000', NUL],
    ['a lone high surrogate', '\ud800', UNICODE],
    ['a lone high surrogate at the end', 'abc\ud83d', UNICODE],
    ['a high surrogate followed by a plain character', '\ud83dx', UNICODE],
    ['a lone low surrogate', '\udc00', UNICODE],
    ['a lone low surrogate after text', 'x\ude00', UNICODE],
    ['a pair in the wrong order', '\ude00\ud83d', UNICODE],
    ['two high surrogates', '\ud83d\ud83d', UNICODE],
    ['a lone surrogate from a JSON escape', JSON.parse('"a\\ud800b"') as string, UNICODE],
    ['a NUL from a JSON escape', JSON.parse('"a\\u0000b"') as string, NUL],
  ]
  const codecs: [string, t.Mixed][] = [
    ['inputStr', inputStr],
    ['a bounded string', boundedString('b', { min: 1, max: 200 })],
    ['a nullable bounded string', nullable(boundedString('b', { min: 1, max: 200 }))],
  ]
  for (const [codecName, codec] of codecs)
    for (const [name, value, why] of refused)
      it(`${codecName} refuses ${name}, without echoing it`, () => {
        expect(violationsOf(one(codec), { v: value })).to.deep.equal([at(why)])
      })

  it('reports the character fault before length and pattern', () => {
    expect(violationsOf(one(boundedString('c', { min: 5, pattern: /^[A-Z]+$/ })), { v: 'a\u0000' })).to.deep.equal([at(NUL)])
    expect(violationsOf(one(boundedString('c', { max: 1 })), { v: 'ab\ud800' })).to.deep.equal([at(UNICODE)])
  })

  const accepted: [string, string][] = [
    ['an emoji (a surrogate pair)', '\ud83d\ude00'],
    ['text around an emoji', 'a😀b'],
    ['several pairs in a row', '𝄞😀👍🏽'],
    ['a pair at the very start and end', '😀x😀'],
    ['U+FFFD itself', '\ufffd'],
    ['other control characters', 'a\u0001\u001f\u007fb'],
    ['the highest code point', '\u{10ffff}'],
  ]
  for (const [name, value] of accepted)
    it(`accepts ${name}`, () => {
      expect(decoded(one(inputStr), { v: value })).to.deep.equal({ v: value })
      expect(decoded(one(boundedString('b', { min: 1, max: 200 })), { v: value })).to.deep.equal({ v: value })
      expect(explainCharacters(value)).to.equal(undefined)
    })

  it('agrees in is() with decode', () => {
    expect([inputStr.is('ok'), inputStr.is('a\u0000'), inputStr.is('\ud800'), inputStr.is('😀')]).to.deep.equal([true, false, false, true])
  })

  it('leaves str as it was, for what the service stores: an idempotency key joins its parts with NUL', () => {
    expect([str.is('a\u0000b'), str.is('\ud800')]).to.deep.equal([true, true])
    const record = {
      merchant_account_id: 'default',
      key: 'POST /gift-cards/activations\u0000k-1',
      fingerprint: 'f',
      state: 'completed',
      outcome: null,
      created_at: '2027-01-15T08:00:00.000Z',
      expires_at: '2027-01-16T08:00:00.000Z',
    }
    expect(decoded(IdempotencyRecord, record)).to.deep.equal(record)
  })

  describe('protects every field of the request codecs', () => {
    it('a buyer external_identifier and a billing name', () => {
      expect(violationsOf(BuyerCreate, { external_identifier: 'ext\u0000', billing_details: { first_name: 'J\ud800' } })).to.deep.equal([
        { loc: ['body', 'external_identifier'], ...NUL },
        { loc: ['body', 'billing_details', 'first_name'], ...UNICODE },
      ])
    })

    it('a webhook url and basic authentication username and password', () => {
      expect(
        violationsOf(WebhookSubscriptionCreate, {
          url: 'https://merchant.example/h\u0000ook',
          authentication: { kind: 'basic', username: 'u\u0000', password: 'p\udfff' },
        }),
      ).to.deep.equal([
        { loc: ['body', 'url'], ...NUL },
        { loc: ['body', 'authentication', 'username'], ...NUL },
        { loc: ['body', 'authentication', 'password'], ...UNICODE },
      ])
    })

    it('an activation buyer_external_identifier and PIN', () => {
      const v = violationsOf(GiftCardActivationCreate, { number: N, pin: '12\u00003', store: true, buyer_external_identifier: '\udbff' })
      expect(v).to.deep.equal([
        { loc: ['body', 'pin'], ...NUL },
        { loc: ['body', 'buyer_external_identifier'], ...UNICODE },
      ])
    })
  })
})

describe('canonicalUuid', () => {
  it('decodes an upper- or mixed-case UUID to lower case', () => {
    expect(decoded(one(canonicalUuid), { v: 'FE26475D-EC3E-4884-9553-F7356683F7F9' })).to.deep.equal({
      v: 'fe26475d-ec3e-4884-9553-f7356683f7f9',
    })
    expect(decoded(one(canonicalUuid), { v: 'Fe26475d-EC3E-4884-9553-f7356683F7F9' })).to.deep.equal({
      v: 'fe26475d-ec3e-4884-9553-f7356683f7f9',
    })
  })
  it('refuses what uuid refuses, the same way', () => {
    expect(violationsOf(one(canonicalUuid), { v: 'not-a-uuid' })).to.deep.equal([
      at({ msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: 'not-a-uuid' }),
    ])
    expect(violationsOf(one(canonicalUuid), { v: 'fe26475d-ec3e-4884-9553-f7356683f7f9\u0000' })).to.deep.equal([
      at({ msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: 'fe26475d-ec3e-4884-9553-f7356683f7f9\u0000' }),
    ])
  })
  it('leaves uuid itself as it was: the input is kept as sent', () => {
    expect(decoded(one(uuid), { v: 'FE26475D-EC3E-4884-9553-F7356683F7F9' })).to.deep.equal({ v: 'FE26475D-EC3E-4884-9553-F7356683F7F9' })
  })
  it('is documented as a uuid string', () => {
    expect(canonicalUuid.schema).to.deep.equal({ type: 'string', format: 'uuid' })
  })
})

describe('toViolations loc items', () => {
  const Thing = closed('Thing', { id: str }, { tags: t.array(closed('Tag', { name: str })) })

  it('never echoes an all-digit unknown property name, nor turns it into a number', () => {
    const v = violationsOf(GiftCardActivationCreate, { number: N, [N]: '1234' })
    expect(v).to.deep.equal([{ loc: ['body', UNNAMED_PROPERTY], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }])
    expect(typeof v[0]!.loc[1]).to.equal('string')
    expect(JSON.stringify(v)).to.not.include('4111')
    expect(JSON.stringify(v)).to.not.include('1234')
  })

  it('echoes an unknown property name that is a plain identifier, as a string', () => {
    expect(violationsOf(Thing, { id: 'a', colour_2: 'x', _x: 1 })).to.deep.equal([
      { loc: ['body', 'colour_2'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
      { loc: ['body', '_x'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ])
  })

  const hidden: [string, string][] = [
    ['short digits', '7'],
    ['a PIN', '0042'],
    ['digits with spaces', '4111 1111 1111 1111'],
    ['a name with a dash', 'card-number'],
    ['a name starting with a digit', '1st'],
    ['a name with a dot', 'a.b'],
    ['an empty name', ''],
    ['a non-ASCII name', 'número'],
    ['a name with NUL', 'a\u0000'],
    ['a name with a lone surrogate', 'a\ud800'],
    ['a name of 65 characters', `a${'b'.repeat(64)}`],
    ['the placeholder itself', UNNAMED_PROPERTY],
  ]
  for (const [name, key] of hidden)
    it(`replaces ${name} with the placeholder`, () => {
      const v = violationsOf(Thing, { id: 'a', [key]: 'x' })
      expect(v).to.deep.equal([{ loc: ['body', UNNAMED_PROPERTY], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }])
      expect(PLAIN_NAME.test(key)).to.equal(false)
    })

  it('echoes a name of exactly 64 characters', () => {
    const key = `a${'b'.repeat(63)}`
    expect(violationsOf(Thing, { id: 'a', [key]: 'x' })[0]!.loc).to.deep.equal(['body', key])
  })

  it('reports several hidden names once', () => {
    expect(violationsOf(Thing, { id: 'a', '1': 1, '22': 2, 'x-y': 3 })).to.deep.equal([
      { loc: ['body', UNNAMED_PROPERTY], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ])
  })

  it('keeps real array positions as integers, and hides a digit key of an object inside the array', () => {
    const v = violationsOf(Thing, { id: 'a', tags: [{ name: 'ok' }, { name: 5, '12': 'x' }] })
    expect(v).to.deep.equal([
      { loc: ['body', 'tags', 1, UNNAMED_PROPERTY], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
      { loc: ['body', 'tags', 1, 'name'], msg: 'Input should be a valid string', type: 'string_type', input: 5 },
    ])
    expect(typeof v[0]!.loc[2]).to.equal('number')
  })

  it('keeps the index of a plain list an integer', () => {
    expect(violationsOf(PermissionSet, { allow: ['gift-cards.read', 'x', 7] })).to.deep.equal([
      { loc: ['body', 'allow', 2], msg: 'Input should be a valid string', type: 'string_type', input: 7 },
    ])
  })

  it('hides a map key the client chose, and the value below it', () => {
    const Labels = closed('Labels', { labels: t.record(t.string, str) })
    expect(violationsOf(Labels, { labels: { [N]: 1234, plain: 5 } })).to.deep.equal([
      { loc: ['body', 'labels', UNNAMED_PROPERTY], msg: 'Input should be a valid string', type: 'string_type' },
      { loc: ['body', 'labels', 'plain'], msg: 'Input should be a valid string', type: 'string_type', input: 5 },
    ])
  })

  it('keeps a declared name that is not an identifier (a header name)', () => {
    expect(
      violationsOf(t.partial({ 'idempotency-key': boundedString('k', { min: 1 }) }), { 'idempotency-key': '' }, 'header'),
    ).to.deep.equal([
      {
        loc: ['header', 'idempotency-key'],
        msg: 'String should have at least 1 character',
        type: 'string_too_short',
        input: '',
        ctx: { min_length: 1 },
      },
    ])
  })

  it('leaves union member indexes out of loc', () => {
    const v = violationsOf(t.type({ a: t.union([t.string, t.number]) }), { a: true })
    expect(v.map((x) => x.loc)).to.deep.equal([
      ['body', 'a'],
      ['body', 'a'],
    ])
  })

  it('keeps rule paths', () => {
    expect(violationsOf(GiftCardActivationCreate, { number: N, currency: 'USD' }).map((x) => x.loc)).to.deep.equal([['body', 'amount']])
  })
})
