import { boundedString, closed, nullable, oneOf } from '../shared/codecs'

const s = (name: string, max: number) => nullable(boundedString(name, { min: 1, max }))

export const TAX_ID_KINDS = [
  'ae.trn', 'au.abn', 'ar.dni', 'ar.cuil', 'ar.cuit', 'br.cnpj', 'br.cpf', 'ca.bn', 'ca.gst_hst', 'ca.pst_bc', 'ca.pst_mb',
  'ca.pst_sk', 'ca.qst', 'ch.vat', 'cl.tin', 'co.itin', 'co.nit', 'co.cc', 'co.ce', 'co.de', 'co.rc', 'co.ti', 'co.passport',
  'es.cif', 'eu.vat', 'gb.vat', 'hk.br', 'id.nik', 'id.npwp', 'in.gst', 'in.pan', 'jp.cn', 'jp.rn', 'kr.brn', 'li.uid',
  'mx.curp', 'mx.rfc', 'my.frp', 'my.itn', 'my.nric', 'my.sst', 'no.vat', 'nz.gst', 'pe.ruc', 'ph.tin', 'ru.inn', 'ru.kpp',
  'sa.vat', 'sg.gst', 'sg.uen', 'th.id', 'th.vat', 'tw.vat', 'us.ein', 'za.vat', 'bo.ci', 'uy.rut', 'uy.ci',
] as const

export const TaxId = closed('TaxId', {
  value: boundedString('value', { min: 1, max: 50 }),
  kind: oneOf('TaxIdKind', TAX_ID_KINDS),
})

export const Address = closed(
  'Address',
  {},
  {
    city: s('city', 100),
    country: nullable(boundedString('country', { pattern: /^[A-Z]{2}$/ })),
    postal_code: s('postal_code', 50),
    state: s('state', 255),
    state_code: nullable(boundedString('state_code', { pattern: /^[A-Z]{2}-[A-Z0-9]{1,3}$/ })),
    house_number_or_name: s('house_number_or_name', 255),
    line1: s('line1', 255),
    line2: s('line2', 255),
    organization: s('organization', 255),
  },
)

export const BillingDetails = closed(
  'BillingDetails',
  {},
  {
    first_name: s('first_name', 255),
    last_name: s('last_name', 255),
    email_address: s('email_address', 320),
    phone_number: nullable(boundedString('phone_number', { pattern: /^\+[1-9]\d{1,14}$/ })),
    address: nullable(Address),
    tax_id: nullable(TaxId),
  },
)
