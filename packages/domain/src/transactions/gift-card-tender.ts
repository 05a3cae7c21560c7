import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { EmbedBuyer } from '../auth/authorize'
import { ACCOUNT_REACH, audienceOf, CardReach, EVERYONE, sees } from '../gift-cards/card-reach'
import { SessionGiftCard } from '../checkout-sessions/checkout-session'
import { sealGiftCard } from '../gift-cards/gift-card'
import { failedValidation, Forbidden, InvalidRequest, NotFound, notFound, Problem, problem, Unavailable } from '../shared/errors'
import { redemptionReference, RedemptionRecord } from './gift-card-redemption'
import { MAX_TRANSACTION_GIFT_CARDS, TransactionCreate, TransactionGiftCard } from './transaction-requests.codecs'
import { TransactionDeps } from './transaction-deps'

/** Whose stored cards a payment may use: a server's reaches the account's, an embed token's only its claim's buyer's. */
export const embedReach = (embed: { readonly buyer: EmbedBuyer | null } | null): CardReach =>
  embed === null ? ACCOUNT_REACH : embed.buyer === null ? { kind: 'none' } : { kind: 'buyer', buyer: embed.buyer }

/** A gift card as the rules below see it: by number or by a stored card's id, with the amount it is to pay. */
type TenderItem = { readonly amount: number } & ({ readonly number: string } | { readonly id: string })

/**
 * Gift cards checked against each other and, when it is known, the amount they pay part of
 * (`total.of` names it in the message), before anything is asked of any service: the first
 * item at fault (never its number or PIN). At most `MAX_TRANSACTION_GIFT_CARDS`, each for more
 * than 0, none twice (by number or id), together no more than `total.amount`.
 */
export const giftCardItemsProblem = (
  cards: readonly TenderItem[],
  total: { readonly amount: number; readonly of: string } | null,
): Problem | null => {
  if (cards.length > MAX_TRANSACTION_GIFT_CARDS)
    return problem(
      'input',
      ['gift_cards', String(MAX_TRANSACTION_GIFT_CARDS)],
      `At most ${String(MAX_TRANSACTION_GIFT_CARDS)} gift cards may pay one transaction`,
      'too_many_gift_cards',
    )
  const seen = new Set<string>()
  let sum = 0
  for (const [i, card] of cards.entries()) {
    const at = (field: string) => ['gift_cards', String(i), field]
    if (card.amount <= 0) return problem('input', at('amount'), 'A gift card must pay an amount above 0', 'invalid_amount')
    const [field, key] = 'id' in card ? ['id', `id ${card.id}`] : ['number', `number ${card.number}`]
    if (seen.has(key)) return problem('input', at(field), `Gift card ${String(i)} is also an earlier item`, 'duplicate_gift_card')
    seen.add(key)
    sum += card.amount
    if (total !== null && sum > total.amount)
      return problem('input', at('amount'), `The gift cards would pay more than the ${total.of} amount`, 'gift_cards_exceed_amount')
  }
  return null
}

/** How a refusal of `cardPartProblem` is worded where it is made: the field it names, and what may pay the rest. */
export interface CardPartWords {
  readonly at: readonly string[]
  readonly rest: string
  readonly leaveOut: string
}

/**
 * Gift cards paying `paid` of `amount` leave a card the rest: required when there is a rest,
 * refused when there is none (a card asked to pay nothing would be authorized for 0, or its
 * session's card used up, for no reason).
 */
export const cardPartProblem = (paid: number, amount: number, withCard: boolean, words: CardPartWords): Problem | null => {
  if (!withCard && paid < amount)
    return problem(
      'input',
      words.at,
      `The gift cards pay ${String(paid)} of ${String(amount)}: ${words.rest} must pay the rest`,
      'payment_method_required',
    )
  if (withCard && paid === amount)
    return problem('input', words.at, `The gift cards pay the whole amount: ${words.leaveOut}`, 'payment_method_not_needed')
  return null
}

export const sumOf = (cards: readonly { readonly amount: number }[]): number => cards.reduce((n, c) => n + c.amount, 0)

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
export const redemptionsFor = async (
  deps: TransactionDeps,
  cmd: {
    readonly merchantAccountId: string
    readonly input: TransactionCreate
    readonly embed: { readonly buyer: EmbedBuyer | null } | null
  },
  transactionId: string,
  cards: readonly (TransactionGiftCard | SessionGiftCard)[] = cmd.input.gift_cards ?? [],
): Promise<E.Either<NotFound | Forbidden | Unavailable, readonly RedemptionRecord[]>> => {
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
