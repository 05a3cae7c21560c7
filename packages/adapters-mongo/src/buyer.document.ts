import * as t from 'io-ts'
import { Buyer } from '@orka/domain'
import { COLLECTIONS } from './mongo-schema'
import { BsonDate, decoder, Doc, fieldsOf, pick } from './document-decoder'
import { compositeId } from './text-escaping'

/**
 * A buyer with its id as `_id`. `created_at` stays the ISO string the domain gives: fixed-width
 * UTC (`...Z`), so it sorts as the instant it names.
 */
export interface BuyerDocument extends Doc {
  merchant_account_id: string
  created_at: string
}

export const toBuyerDocument = ({ id, ...rest }: Buyer): BuyerDocument => ({ _id: id, ...rest })

export const fromBuyerDocument = decoder(COLLECTIONS.buyers, Buyer, (d) => ({ ...pick(d, fieldsOf(Buyer)), id: d._id }))

/**
 * Who holds an external identifier in an account. Inserting it is what makes the identifier
 * unique per account under concurrency: an insert into `_id` is atomic on every server.
 */
export interface ExternalIdentifierClaimDocument extends Doc {
  buyer_id: string
  /** When it was claimed (the writing instance's clock): a claim whose buyer never appeared can be recognised as abandoned. */
  claimed_at: Date
}

export const externalIdentifierClaimId = (merchantAccountId: string, externalIdentifier: string): string =>
  compositeId(merchantAccountId, externalIdentifier)

const ExternalIdentifierClaim = t.type({ buyer_id: t.string, claimed_at: BsonDate })

export const fromExternalIdentifierClaimDocument = decoder(COLLECTIONS.buyerExternalIdentifiers, ExternalIdentifierClaim, (d) =>
  pick(d, fieldsOf(ExternalIdentifierClaim)),
)
