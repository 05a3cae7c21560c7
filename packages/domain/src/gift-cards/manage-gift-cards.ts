import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { BuyerCascade } from '../buyers/buyer-use-cases'
import { BuyerRepository } from '../buyers/buyers.ports'
import { findNamedBuyer } from '../buyers/named-buyer'
import { Page } from '../pagination/page'
import { paginate, PageQuery } from '../pagination/paginate'
import { Mac } from '../shared/crypto.ports'
import { Forbidden, InvalidRequest, NotFound, notFound, Unavailable } from '../shared/errors'
import { Audience, audienceOf, CardReach, sees } from '../reach/card-reach'
import { AuditActor } from '../audit/audit-entry'
import { changeOf, RecordAudited, recordedDelete } from '../audit/record-audited'
import { WebhookEvents } from '../webhooks/webhook-events.ports'
import { giftCardSortKey } from './gift-card'
import { GiftCard, giftCardResource } from './gift-card.codecs'
import { GiftCardVault } from './gift-card.ports'

/** The filters of `GET /gift-cards`, as sent. */
export interface GiftCardListFilter {
  readonly buyer_id?: string
  readonly buyer_external_identifier?: string
}

/** The buyer filter as the caller may see it: an embed token's buyer narrows it (`None`: no cards at all). */
const within = (audience: Audience, buyerId: O.Option<string | undefined>): O.Option<string | undefined> =>
  audience.all
    ? buyerId
    : pipe(
        buyerId,
        O.filter((id) => audience.buyerId !== null && (id === undefined || id === audience.buyerId)),
        O.map(() => audience.buyerId ?? undefined),
      )

/**
 * The buyer a list of stored cards (gift cards, payment methods) keeps: `buyer_external_identifier`
 * is looked up among the account's buyers (no such buyer: `None`, no cards); with both filters,
 * only a buyer matching both; an embed token's buyer narrows it (`cardReach`). `some(undefined)`:
 * every buyer's cards.
 */
export const listedBuyer = (
  buyers: BuyerRepository,
  merchantAccountId: string,
  reach: CardReach,
  filter: GiftCardListFilter,
): TE.TaskEither<Forbidden | Unavailable, O.Option<string | undefined>> => {
  const buyerId: TE.TaskEither<Unavailable, O.Option<string | undefined>> = filter.buyer_external_identifier === undefined
    ? TE.right(O.some(filter.buyer_id))
    : pipe(findNamedBuyer(buyers, merchantAccountId, filter), TE.map(O.map((b) => b.id)))
  return pipe(
    audienceOf(buyers, merchantAccountId, reach),
    TE.flatMap((audience) =>
      pipe(
        buyerId,
        TE.map((id) => within(audience, id)),
      ),
    ),
  )
}

/**
 * The account's stored cards, newest first, filtered by buyer (`listedBuyer`). An embed token
 * sees only its buyer's (`cardReach`).
 */
export const makeListGiftCards =
  (deps: { giftCardVault: GiftCardVault; buyers: BuyerRepository; mac: Mac }) =>
  (
    q: PageQuery & { merchantAccountId: string; filter: GiftCardListFilter; reach: CardReach },
  ): TE.TaskEither<Forbidden | InvalidRequest | Unavailable, Page<GiftCard>> => {
    const { buyer_id, buyer_external_identifier } = q.filter
    // The filter is part of the cursor's scope: a cursor cannot be reused with another filter.
    const scope = `gift-cards\u0000${q.merchantAccountId}\u0000${JSON.stringify([buyer_id ?? null, buyer_external_identifier ?? null])}`
    return pipe(
      listedBuyer(deps.buyers, q.merchantAccountId, q.reach, q.filter),
      TE.flatMap((id) =>
        paginate(deps, scope, giftCardSortKey, (seek) =>
          O.isNone(id)
            ? TE.right<Unavailable, readonly GiftCard[]>([])
            : deps.giftCardVault.list(q.merchantAccountId, id.value === undefined ? {} : { buyer_id: id.value }, seek),
        )(q),
      ),
    )
  }

/** One stored card of the account; another account's (or another buyer's, for an embed token) is not found, as one never stored. */
export const makeGetGiftCard =
  (deps: { giftCardVault: GiftCardVault; buyers: BuyerRepository }) =>
  (q: { merchantAccountId: string; id: string; reach: CardReach }): TE.TaskEither<Forbidden | NotFound | Unavailable, GiftCard> =>
    pipe(
      audienceOf(deps.buyers, q.merchantAccountId, q.reach),
      TE.flatMap((audience) =>
        pipe(deps.giftCardVault.findById(q.merchantAccountId, q.id), TE.map(O.filter((v) => sees(audience, v.card)))),
      ),
      TE.flatMap(
        O.match(
          () => TE.left<Forbidden | NotFound | Unavailable, GiftCard>(notFound('GiftCard', q.id)),
          (v) => TE.right(v.card),
        ),
      ),
    )

/**
 * Deletes a stored card: the vault removes it with its sealed number and PIN, nothing is kept.
 * `gift-card.deleted` goes to the outbox before the delete; a delete that finds the card gone
 * meanwhile (a racing delete) is a 404 and takes its entry back.
 */
export const makeDeleteGiftCard =
  (deps: { giftCardVault: GiftCardVault; buyers: BuyerRepository; events: WebhookEvents; audited: RecordAudited }) =>
  (q: {
    merchantAccountId: string
    actor: AuditActor
    id: string
    reach: CardReach
  }): TE.TaskEither<Forbidden | NotFound | Unavailable, void> =>
    pipe(
      makeGetGiftCard(deps)(q),
      TE.flatMap((card) =>
        pipe(
          deps.events.raise('gift-card.deleted', q.merchantAccountId, card),
          TE.flatMap((event) =>
            recordedDelete(
              { audited: deps.audited, record: deps.events.record },
              event,
              changeOf(q, giftCardResource(card), 'deleted', 'gift-card-absent'),
              deps.giftCardVault.delete(q.merchantAccountId, q.id),
              notFound('GiftCard', q.id),
            ),
          ),
        ),
      ),
    )

/** The step of a buyer's deletion that deletes its stored gift cards with it (numbers and PINs destroyed). */
export const deleteBuyersGiftCards =
  (vault: GiftCardVault): BuyerCascade =>
  (buyer) =>
    pipe(
      vault.deleteByBuyer(buyer.merchant_account_id, buyer.id),
      TE.map(() => undefined),
    )
