import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { EmbedBuyer } from '../auth/authorize'
import { audienceOf, EVERYONE, sees, embedReach } from '../reach/card-reach'
import { SessionGiftCard } from '../checkout-sessions/checkout-session'
import { sealGiftCard } from '../gift-cards/gift-card'
import { failedValidation, Forbidden, InvalidRequest, NotFound, notFound, problem, Unavailable } from '../shared/errors'
import { redemptionReference, RedemptionRecord } from './gift-card-redemption'
import { TransactionCreate, TransactionGiftCard } from './transaction-requests.codecs'
import { TransactionDeps } from './transaction-deps'
import { giftCardItemsProblem, cardPartProblem, sumOf } from '../cards/tender-rules'

/**
 * The gift cards of a transaction checked against each other and its amount, before anything
 * is asked of any service: a `400` naming the first item at fault (`giftCardItemsProblem`), or
 * `payment_method` when the gift cards and the card do not add up (`cardPartProblem`).
 */
export const giftCardsFault = (input: TransactionCreate): InvalidRequest | null => {
  const cards = input.gift_cards ?? []
  const found =
    giftCardItemsProblem(cards, { amount: input.amount, of: 'transaction' }) ??
    (cards.length === 0
      ? null
      : cardPartProblem(sumOf(cards), input.amount, input.payment_method != null, {
          at: ['payment_method'],
          rest: 'a card or a checkout session',
          leaveOut: 'leave out `payment_method`',
        }))
  return found === null ? null : failedValidation(found)
}

/**
 * The redemptions a payment's gift cards become, recorded with its first version: the
 * request's `gift_cards`, or those Secure Fields put on its checkout session (`cards`, sealed
 * already). Each card by number and PIN at the account's primary gift card service, each stored
 * one (`{id}`) at the service it was stored with. A stored card is reached as the gift card
 * routes reach it: a server's token reaches the account's cards, an embed token only its
 * buyer's (none named: `403`); one it cannot reach (unknown, deleted, another account's or
 * buyer's) is a `404` naming the item, before anything is recorded. Numbers and PINs are kept
 * sealed.
 */
export const redemptionsFor =
  (
    deps: TransactionDeps,
    cmd: {
      readonly merchantAccountId: string
      readonly input: TransactionCreate
      readonly embed: { readonly buyer: EmbedBuyer | null } | null
    },
    transactionId: string,
    cards: readonly (TransactionGiftCard | SessionGiftCard)[] = cmd.input.gift_cards ?? [],
  ): TE.TaskEither<NotFound | Forbidden | Unavailable, readonly RedemptionRecord[]> =>
  async () => {
    if (cards.length === 0) return E.right([])
    const { vault, services } = deps.giftCards
    const audience = cards.some((c) => 'id' in c)
      ? await audienceOf(deps.buyers, cmd.merchantAccountId, embedReach(cmd.embed))()
      : E.right(EVERYONE)
    if (E.isLeft(audience)) return audience
    const [primary, ...found] = await Promise.all([
      services.findPrimary(cmd.merchantAccountId)(),
      ...cards.map((c) => ('id' in c ? vault.findById(cmd.merchantAccountId, c.id)() : E.right(O.none))),
    ])
    if (E.isLeft(primary)) return primary
    const out: RedemptionRecord[] = []
    for (const [i, card] of cards.entries()) {
      const base = { id: deps.ids.uuid(), reference: redemptionReference(transactionId, i + 1), amount: card.amount, ...UNTRIED }
      if (!('id' in card)) {
        const { bin, sub_bin, last4, sealed_number, sealed_pin } = 'sealed_number' in card ? card : sealGiftCard(deps.box, card)
        const service = O.toNullable(primary.right)?.service ?? null
        out.push({ ...base, gift_card: { id: null, bin, sub_bin, last4 }, service, sealed_number, sealed_pin })
        continue
      }
      const f = found[i]
      if (f !== undefined && E.isLeft(f)) return f
      const vaulted = f === undefined ? null : O.toNullable(f.right)
      if (vaulted === null || !sees(audience.right, vaulted.card))
        return E.left(
          notFound(
            'GiftCard',
            card.id,
            problem('input', ['gift_cards', String(i), 'id'], `No gift card with the id of item ${i} exists`, 'unknown_gift_card'),
          ),
        )
      const { id, bin, sub_bin, last4, gift_card_service } = vaulted.card
      out.push({
        ...base,
        gift_card: { id, bin, sub_bin, last4 },
        service: gift_card_service,
        sealed_number: vaulted.sealed_number,
        sealed_pin: vaulted.sealed_pin,
      })
    }
    return E.right(out)
  }

const UNTRIED = {
  status: 'created',
  error_code: null,
  unknown: false,
  requested_at: null,
  answered_at: null,
  reversal: null,
} as const
