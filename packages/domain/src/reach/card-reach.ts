import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { Access, EmbedBuyer } from '../auth/authorize'
import { Buyer } from '../buyers/buyer'
import { BuyerRepository } from '../buyers/buyers.ports'
import { BuyerName, findNamedBuyer, namesABuyer } from '../buyers/named-buyer'
import { Forbidden, forbidden, Unavailable } from '../shared/errors'
import { actsAsServer, EmbedClaim } from './embed-claim'

/**
 * Whose stored cards, gift cards or payment methods, a caller may read (`*.read`) or change
 * (`*.write`). A token holding the scope itself (or its wildcard) reaches the account's cards. An `embed`
 * token is a browser's: it reaches only the cards of the buyer its `embed` claim names, and
 * with no buyer named none at all (a `403`). Storing and activating cards, and checking them by
 * number, stay open to every embed token, but only for no buyer or its own (`mayWriteFor`).
 */
export type CardReach = { readonly kind: 'account' } | { readonly kind: 'buyer'; readonly buyer: EmbedBuyer } | { readonly kind: 'none' }

/** A server's reach: every card of the account (what an embedder acting for the merchant passes). */
export const ACCOUNT_REACH: CardReach = { kind: 'account' }

/** The scopes narrowed to the embed claim's buyer: stored cards, and a buyer's shipping details. */
export type CardScope =
  | 'gift-cards.read'
  | 'gift-cards.write'
  | 'payment-methods.read'
  | 'payment-methods.write'
  | 'buyers.shipping-details.read'
  | 'buyers.shipping-details.write'

export const cardReach = (access: Access, scope: CardScope): CardReach => {
  if (actsAsServer(access.principal, scope)) return ACCOUNT_REACH
  const { embedBuyer } = access.principal
  return embedBuyer === undefined ? { kind: 'none' } : { kind: 'buyer', buyer: embedBuyer }
}

/** Which stored cards are visible: all the account's, or only those of the buyer with this id (null: no such buyer, so none). */
export type Audience = { readonly all: true } | { readonly all: false; readonly buyerId: string | null }
export const EVERYONE: Audience = { all: true }

/** The reach as the cards it sees: the embed claim's buyer looked up (both names given: both must match). */
export const audienceOf = (
  buyers: BuyerRepository,
  merchantAccountId: string,
  reach: CardReach,
): TE.TaskEither<Forbidden | Unavailable, Audience> => {
  if (reach.kind === 'account') return TE.right(EVERYONE)
  if (reach.kind === 'none') return TE.left(forbidden('embed_buyer'))
  const { id, externalIdentifier } = reach.buyer
  return pipe(
    findNamedBuyer(buyers, merchantAccountId, { buyer_id: id, buyer_external_identifier: externalIdentifier }),
    TE.map((b): Audience => ({ all: false, buyerId: O.toNullable(O.map((x: Buyer) => x.id)(b)) })),
  )
}

export const sees = (audience: Audience, card: { readonly buyer?: { readonly id: string } | null }): boolean =>
  audience.all || (audience.buyerId !== null && card.buyer?.id === audience.buyerId)

/**
 * Whether the caller may store a card for the buyer a request names: any buyer with the scope
 * itself, only the claim's buyer with an embed token, none with an embed token naming none. A
 * refused buyer is a `403` whether or not it exists, so a browser cannot probe the account's
 * external identifiers.
 */
export const mayWriteFor = (
  buyers: BuyerRepository,
  merchantAccountId: string,
  reach: CardReach,
  named: BuyerName,
): TE.TaskEither<Forbidden | Unavailable, void> => {
  if (reach.kind === 'account' || !namesABuyer(named)) return TE.right(undefined)
  return pipe(
    audienceOf(buyers, merchantAccountId, reach),
    TE.flatMap((audience) =>
      pipe(
        findNamedBuyer(buyers, merchantAccountId, named),
        TE.flatMap((b) =>
          O.isSome(b) && sees(audience, { buyer: b.value })
            ? TE.right(undefined)
            : TE.left<Forbidden | Unavailable>(forbidden('embed_buyer')),
        ),
      ),
    ),
  )
}

/** A buyer a list for one buyer names: by id or by external identifier. */
export type BuyerRef = { readonly id: string } | { readonly externalIdentifier: string }

/** The account's buyer `ref` names, when the caller's reach covers it; null for an unknown buyer or one out of reach (nothing to show). */
export const buyerInReach =
  (
    buyers: BuyerRepository,
    merchantAccountId: string,
    reach: CardReach,
    ref: BuyerRef,
  ): TE.TaskEither<Forbidden | Unavailable, Buyer | null> =>
  async () => {
    const audience = await audienceOf(buyers, merchantAccountId, reach)()
    if (E.isLeft(audience)) return audience
    const name = 'id' in ref ? { buyer_id: ref.id } : { buyer_external_identifier: ref.externalIdentifier }
    const found = await findNamedBuyer(buyers, merchantAccountId, name)()
    if (E.isLeft(found)) return found
    const buyer = O.toNullable(found.right)
    return E.right(buyer !== null && sees(audience.right, { buyer }) ? buyer : null)
  }

/** Whose stored cards a payment may use: a server's reaches the account's, an embed token's only its claim's buyer's. */
export const embedReach = (embed: Pick<EmbedClaim, 'buyer'> | null): CardReach =>
  embed === null ? ACCOUNT_REACH : embed.buyer === null ? { kind: 'none' } : { kind: 'buyer', buyer: embed.buyer }
