import * as t from 'io-ts'
import { LedgerEntry } from '@orka/domain'
import { COLLECTIONS } from './mongo-schema'
import { decoder, Doc } from './document-decoder'
import { compositeId } from './text-escaping'

/**
 * One movement of one card: `_id` is the card and the movement's number, so that of two
 * movements built on the same latest entry only one is inserted; a unique index on (card,
 * reference) makes a reference apply once.
 */
export interface LedgerEntryDocument extends Doc {
  card: string
  seq: number
  reference: string
  amount: number
  balance: number
}

export const ledgerEntryId = (card: string, seq: number): string => compositeId(card, String(seq))

const LedgerEntryCodec = t.type({ card: t.string, seq: t.number, reference: t.string, amount: t.number, balance: t.number })

export const toLedgerEntryDocument = (e: LedgerEntry): LedgerEntryDocument => ({ _id: ledgerEntryId(e.card, e.seq), ...e })

export const fromLedgerEntryDocument = decoder<LedgerEntry>(
  COLLECTIONS.giftCardLedger,
  LedgerEntryCodec,
  ({ card, seq, reference, amount, balance }) => ({ card, seq, reference, amount, balance }),
)
