import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { EmbedBuyer } from '../auth/authorize'
import { ACCOUNT_REACH, audienceOf, CardReach, EVERYONE, sees } from '../gift-cards/card-reach'
import { splitNumber } from '../gift-cards/gift-card'
import { Forbidden, InvalidRequest, NotFound, notFound, problem, Unavailable } from '../shared/errors'
import { redemptionReference, RedemptionRecord } from './gift-card-redemption'
import { MAX_TRANSACTION_GIFT_CARDS, TransactionCreate } from './transaction-requests.codecs'
import { refusedInput, TransactionDeps } from './transaction-deps'

/**
 * The gift cards of a transaction checked against each other and its amount, before anything
 * is asked of any service: a `400` naming the first item at fault (never its number or PIN).
 * At most `MAX_TRANSACTION_GIFT_CARDS`, each for more than 0, none twice (by number or id),
 * together no more than `amount`, and all of it unless a card pays the rest.
 */
export const giftCardsFault = (input: TransactionCreate): InvalidRequest | null => {
  const cards = input.gift_cards ?? []
  if (cards.length > MAX_TRANSACTION_GIFT_CARDS)
    return refusedInput(
      ['gift_cards', String(MAX_TRANSACTION_GIFT_CARDS)],
      `At most ${String(MAX_TRANSACTION_GIFT_CARDS)} gift cards may pay one transaction`,
      'too_many_gift_cards',
    )
  const seen = new Set<string>()
  let sum = 0
  for (const [i, card] of cards.entries()) {
    const at = (field: string) => ['gift_cards', String(i), field]
    if (card.amount <= 0) return refusedInput(at('amount'), 'A gift card must pay an amount above 0', 'invalid_amount')
    const [field, key] = 'id' in card ? ['id', `id ${card.id}`] : ['number', `number ${card.number}`]
    if (seen.has(key)) return refusedInput(at(field), `Gift card ${String(i)} is also an earlier item`, 'duplicate_gift_card')
    seen.add(key)
    sum += card.amount
    if (sum > input.amount)
      return refusedInput(at('amount'), 'The gift cards would pay more than the transaction amount', 'gift_cards_exceed_amount')
  }
  if (cards.length > 0 && input.payment_method == null && sum < input.amount)
    return refusedInput(
      ['payment_method'],
      `The gift cards pay ${String(sum)} of ${String(input.amount)}: a card or a checkout session must pay the rest`,
      'payment_method_required',
    )
  // A card asked to pay nothing would be authorized for 0 (or its session's card used up) for no reason.
  if (cards.length > 0 && input.payment_method != null && sum === input.amount)
    return refusedInput(['payment_method'], 'The gift cards pay the whole amount: leave out `payment_method`', 'payment_method_not_needed')
  return null
}

/**
 * The redemptions a payment's gift cards become, recorded with its first version: each card
 * by number and PIN at the account's primary gift card service, each stored one (`{id}`) at
 * the service it was stored with. A stored card is reached as the gift card routes reach it:
 * a server's token reaches the account's cards, an embed token only its buyer's (none named:
 * `403`); one it cannot reach (unknown, deleted, another account's or buyer's) is a `404`
 * naming the item, before anything is recorded. Numbers and PINs are kept sealed.
 */
export const redemptionsFor = async (
  deps: TransactionDeps,
  cmd: {
    readonly merchantAccountId: string
    readonly input: TransactionCreate
    readonly embed: { readonly buyer: EmbedBuyer | null } | null
  },
  transactionId: string,
): Promise<E.Either<NotFound | Forbidden | Unavailable, readonly RedemptionRecord[]>> => {
  const cards = cmd.input.gift_cards ?? []
  if (cards.length === 0) return E.right([])
  const { vault, services } = deps.giftCards
  const reach: CardReach =
    cmd.embed === null ? ACCOUNT_REACH : cmd.embed.buyer === null ? { kind: 'none' } : { kind: 'buyer', buyer: cmd.embed.buyer }
  const audience = cards.some((c) => 'id' in c) ? await audienceOf(deps.buyers, cmd.merchantAccountId, reach)() : E.right(EVERYONE)
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
      out.push({
        ...base,
        gift_card: { id: null, ...splitNumber(card.number) },
        service: O.toNullable(primary.right)?.service ?? null,
        sealed_number: deps.box.seal(card.number),
        sealed_pin: deps.box.seal(card.pin),
      })
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
