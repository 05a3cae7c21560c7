import * as t from 'io-ts'
import { boundedString, closed, nullable, unsupported } from '../shared/codecs'
import { BillingDetails } from './billing-details'

const nullableText = (name: string, max: number) => nullable(boundedString(name, { min: 1, max }))

export const GuestBuyer = closed(
  'GuestBuyer',
  {},
  {
    display_name: nullableText('display_name', 200),
    external_identifier: nullableText('external_identifier', 200),
    billing_details: nullable(BillingDetails),
    account_number: nullableText('account_number', 200),
    shipping_details: unsupported,
  },
)
export type GuestBuyer = t.TypeOf<typeof GuestBuyer>
