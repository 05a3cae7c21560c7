import { expect } from 'chai'
import * as t from 'io-ts'
import { boundedList, boundedString, ByKey, closed, intRange, literal, NOT_UNICODE, NUL_CHARACTER, oneOf } from '../../src/shared/codecs'
import { GiftCardActivationCreate } from '../../src/gift-cards/gift-card.codecs'
import { faultsOf } from '../helpers'

/** The domain explains a fault by its kind and parameters; wording it is an adapter's business. */
describe('inputFaults', () => {
  it('explains a limit by its type and ctx, with no wording', () => {
    expect(faultsOf(closed('X', { name: boundedString('name', { min: 2, max: 4 }) }), { name: 'a' })).to.deep.equal([
      { path: ['name'], type: 'string_too_short', value: 'a', ctx: { min_length: 2 } },
    ])
    expect(faultsOf(closed('X', { n: intRange('n', 1, 9) }), { n: 10 })).to.deep.equal([
      { path: ['n'], type: 'less_than_equal', value: 10, ctx: { le: 9 } },
    ])
  })

  it('carries the values an enum admits beside the ctx it shows, and a literal as its ctx shows it', () => {
    expect(faultsOf(oneOf('colour', ['red', 'green']), 'blue')).to.deep.equal([
      { path: [], type: 'enum', value: 'blue', ctx: { expected: 'red, green' }, values: ['red', 'green'] },
    ])
    expect(faultsOf(literal('basic'), 'x')).to.deep.equal([{ path: [], type: 'literal_error', value: 'x', ctx: { expected: "'basic'" } }])
  })

  it('explains a missing property, an unknown one and a wrong shape by type alone', () => {
    expect(faultsOf(closed('X', { a: boundedString('a', {}) }), { b: 1 })).to.deep.equal([
      { path: ['b'], type: 'extra_forbidden', value: 1 },
      { path: ['a'], type: 'missing', value: undefined },
    ])
    expect(faultsOf(closed('X', {}), [])).to.deep.equal([{ path: [], type: 'model_type', value: [] }])
    expect(faultsOf(t.type({ a: t.number }), { a: 'x' })).to.deep.equal([{ path: ['a'], type: 'float_type', value: 'x' }])
  })

  it('explains a list over its bound once, as too_long, without checking its items', () => {
    const list = closed('X', { items: boundedList(intRange('n', 0), 2) })
    expect(faultsOf(list, { items: [1, 'a', -1] })).to.deep.equal([
      { path: ['items'], type: 'too_long', value: [1, 'a', -1], ctx: { field_type: 'List', max_length: 2, actual_length: 3 } },
    ])
    expect(faultsOf(list, { items: [1, -1] })).to.deep.equal([
      { path: ['items', 1], type: 'greater_than_equal', value: -1, ctx: { ge: 0 } },
    ])
    expect(faultsOf(list, { items: 'a' })).to.deep.equal([{ path: ['items'], type: 'list_type', value: 'a' }])
    expect(list.is({ items: [1, 2] }) && !list.is({ items: [1, 2, 3] })).to.equal(true)
  })

  it('decodes a ByKey union by whether the key is there, reporting only that branch', () => {
    const item = new ByKey(
      'Item',
      closed('ByName', { name: boundedString('name', { min: 1 }) }),
      'id',
      closed('ById', { id: intRange('id', 1) }),
    )
    expect(faultsOf(item, { id: 0 })).to.deep.equal([{ path: ['id'], type: 'greater_than_equal', value: 0, ctx: { ge: 1 } }])
    expect(faultsOf(item, { id: 1, name: 'x' })).to.deep.equal([{ path: ['name'], type: 'extra_forbidden', value: 'x' }])
    expect(faultsOf(item, {})).to.deep.equal([{ path: ['name'], type: 'missing', value: undefined }])
    expect(faultsOf(item, 'x')).to.deep.equal([{ path: [], type: 'model_type', value: 'x' }])
    expect(item.decode({ id: 3 })).to.deep.equal({ _tag: 'Right', right: { id: 3 } })
    expect(item.encode({ name: 'n' })).to.deep.equal({ name: 'n' })
  })

  it('names the codec of a fault it has no kind for', () => {
    expect(faultsOf(t.type({ a: t.null }), { a: 1 })).to.deep.equal([{ path: ['a'], type: 'value_error', value: 1, codec: 'null' }])
  })

  it('explains a broken cross-field rule by the rule itself', () => {
    expect(faultsOf(GiftCardActivationCreate, { number: '4111111111111111', store: true })).to.deep.equal([
      { path: ['pin'], type: 'value_error', value: undefined, rule: '`pin` is required when `store` is true' },
    ])
  })

  it('explains the characters no input may hold by type alone', () => {
    expect(NUL_CHARACTER).to.deep.equal({ type: 'string_invalid_characters' })
    expect(NOT_UNICODE).to.deep.equal({ type: 'string_unicode' })
    expect(faultsOf(boundedString('s', {}), 'a\u0000')).to.deep.equal([{ path: [], type: 'string_invalid_characters', value: 'a\u0000' }])
  })
})
