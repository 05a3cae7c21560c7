import { expect } from 'chai'
import { BuyerCreate, TAX_ID_KINDS } from '@orka/domain'
import { Violation } from '../../src/decode/violations'
import { decoded, violationsOf } from './helpers'

/** SPEC.md's list of TaxId kinds, in its order. */
const SPEC_TAX_ID_KINDS =
  'ae.trn, au.abn, ar.dni, ar.cuil, ar.cuit, br.cnpj, br.cpf, ca.bn, ca.gst_hst, ca.pst_bc, ca.pst_mb, ca.pst_sk, ca.qst, ch.vat, ' +
  'cl.tin, co.itin, co.nit, co.cc, co.ce, co.de, co.rc, co.ti, co.passport, es.cif, eu.vat, gb.vat, hk.br, id.nik, id.npwp, ' +
  'in.gst, in.pan, jp.cn, jp.rn, kr.brn, li.uid, mx.curp, mx.rfc, my.frp, my.itn, my.nric, my.sst, no.vat, nz.gst, pe.ruc, ' +
  'ph.tin, ru.inn, ru.kpp, sa.vat, sg.gst, sg.uen, th.id, th.vat, tw.vat, us.ein, za.vat, bo.ci, uy.rut, uy.ci'

const bd = (billing_details: unknown) => ({ billing_details })
const PHONE = '^\\+[1-9]\\d{1,14}$'
const phone = (input: string): Violation => ({
  loc: ['body', 'billing_details', 'phone_number'],
  msg: `String should match pattern '${PHONE}'`,
  type: 'string_pattern_mismatch',
  input,
  ctx: { pattern: PHONE },
})

describe('BuyerCreate with billing details', () => {
  it('lists exactly the TaxId kinds of the spec', () => {
    expect(TAX_ID_KINDS.join(', ')).to.equal(SPEC_TAX_ID_KINDS)
  })

  const accepted: [string, unknown][] = [
    ['an empty buyer', {}],
    [
      'a full buyer',
      {
        display_name: 'Jane Doe',
        external_identifier: 'cust-1',
        account_number: 'acc-1',
        billing_details: {
          first_name: 'Jane',
          last_name: 'Doe',
          email_address: 'jane@example.com',
          phone_number: '+14155550100',
          address: {
            city: 'San Francisco',
            country: 'US',
            postal_code: '94107',
            state: 'California',
            state_code: 'US-CA',
            house_number_or_name: '1',
            line1: 'Main St',
            line2: 'Suite 2',
            organization: 'Acme',
          },
          tax_id: { value: '12-3456789', kind: 'us.ein' },
        },
      },
    ],
    ['the shortest E.164 number', bd({ phone_number: '+12' })],
    ['the longest E.164 number (15 digits)', bd({ phone_number: '+123456789012345' })],
    [
      'every billing field null',
      bd({ first_name: null, last_name: null, email_address: null, phone_number: null, address: null, tax_id: null }),
    ],
    ['a three-char subdivision code', bd({ address: { state_code: 'GB-ENG' } })],
  ]
  for (const [name, body] of accepted)
    it(`accepts ${name}`, () => {
      expect(decoded(BuyerCreate, body)).to.deep.equal(body)
    })

  const rejected: [string, unknown, Violation[]][] = [
    ['a phone number without + against the E.164 pattern', bd({ phone_number: '14155550100' }), [phone('14155550100')]],
    ['a phone number starting +0 against the E.164 pattern', bd({ phone_number: '+04155550100' }), [phone('+04155550100')]],
    ['a phone number of 16 digits against the E.164 pattern', bd({ phone_number: '+1234567890123456' }), [phone('+1234567890123456')]],
    ['a phone number with spaces against the E.164 pattern', bd({ phone_number: '+1 415 555 0100' }), [phone('+1 415 555 0100')]],
    [
      'a lower-case country',
      bd({ address: { country: 'us' } }),
      [
        {
          loc: ['body', 'billing_details', 'address', 'country'],
          msg: "String should match pattern '^[A-Z]{2}$'",
          type: 'string_pattern_mismatch',
          input: 'us',
          ctx: { pattern: '^[A-Z]{2}$' },
        },
      ],
    ],
    [
      'a three-letter country',
      bd({ address: { country: 'USA' } }),
      [
        {
          loc: ['body', 'billing_details', 'address', 'country'],
          msg: "String should match pattern '^[A-Z]{2}$'",
          type: 'string_pattern_mismatch',
          input: 'USA',
          ctx: { pattern: '^[A-Z]{2}$' },
        },
      ],
    ],
    [
      'a state_code without its country part',
      bd({ address: { state_code: 'CA' } }),
      [
        {
          loc: ['body', 'billing_details', 'address', 'state_code'],
          msg: "String should match pattern '^[A-Z]{2}-[A-Z0-9]{1,3}$'",
          type: 'string_pattern_mismatch',
          input: 'CA',
          ctx: { pattern: '^[A-Z]{2}-[A-Z0-9]{1,3}$' },
        },
      ],
    ],
    [
      'a 101-char city',
      bd({ address: { city: 'c'.repeat(101) } }),
      [
        {
          loc: ['body', 'billing_details', 'address', 'city'],
          msg: 'String should have at most 100 characters',
          type: 'string_too_long',
          input: 'c'.repeat(101),
          ctx: { max_length: 100 },
        },
      ],
    ],
    [
      'an unknown tax id kind as enum listing every kind',
      bd({ tax_id: { value: '1', kind: 'xx.vat' } }),
      [
        {
          loc: ['body', 'billing_details', 'tax_id', 'kind'],
          msg: `Input should be ${SPEC_TAX_ID_KINDS.split(', ')
            .map((k) => `'${k}'`)
            .join(', ')}`,
          type: 'enum',
          input: 'xx.vat',
          ctx: { expected: SPEC_TAX_ID_KINDS },
        },
      ],
    ],
    [
      'a tax id without value and kind with both missing',
      bd({ tax_id: {} }),
      [
        { loc: ['body', 'billing_details', 'tax_id', 'value'], msg: 'Field required', type: 'missing' },
        { loc: ['body', 'billing_details', 'tax_id', 'kind'], msg: 'Field required', type: 'missing' },
      ],
    ],
    [
      'a 51-char tax id value',
      bd({ tax_id: { value: 'v'.repeat(51), kind: 'eu.vat' } }),
      [
        {
          loc: ['body', 'billing_details', 'tax_id', 'value'],
          msg: 'String should have at most 50 characters',
          type: 'string_too_long',
          input: 'v'.repeat(51),
          ctx: { max_length: 50 },
        },
      ],
    ],
    [
      'an unknown property inside the address with its full loc path',
      bd({ address: { city: 'Oslo', planet: 'Earth' } }),
      [{ loc: ['body', 'billing_details', 'address', 'planet'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }],
    ],
    [
      'an unknown property inside billing_details',
      bd({ middle_name: 'Q' }),
      [{ loc: ['body', 'billing_details', 'middle_name'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }],
    ],
    [
      'billing_details that is a string as model_type',
      bd('Jane'),
      [{ loc: ['body', 'billing_details'], msg: 'Input should be a valid dictionary or object', type: 'model_type', input: 'Jane' }],
    ],
    [
      'an empty first_name',
      bd({ first_name: '' }),
      [
        {
          loc: ['body', 'billing_details', 'first_name'],
          msg: 'String should have at least 1 character',
          type: 'string_too_short',
          input: '',
          ctx: { min_length: 1 },
        },
      ],
    ],
    [
      'a 201-char display_name',
      { display_name: 'd'.repeat(201) },
      [
        {
          loc: ['body', 'display_name'],
          msg: 'String should have at most 200 characters',
          type: 'string_too_long',
          input: 'd'.repeat(201),
          ctx: { max_length: 200 },
        },
      ],
    ],
    [
      'a buyer id sent by the client as extra_forbidden',
      { id: 'fe26475d-ec3e-4884-9553-f7356683f7f9' },
      [{ loc: ['body', 'id'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }],
    ],
  ]
  for (const [name, body, expected] of rejected)
    it(`rejects ${name}`, () => {
      expect(violationsOf(BuyerCreate, body)).to.deep.equal(expected)
    })
})
