import { InvalidRequest } from '../shared/errors'
import { MAX_TRANSACTION_GIFT_CARDS, TransactionCreate } from './transaction-requests.codecs'
import { notOffered, refusedInput } from './transaction-deps'

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
  return null
}

/**
 * Until transactions spend gift cards (the split-payment flow is being built), a request whose
 * gift cards pass every check above is refused by name rather than paid without them.
 */
export const giftCardsNotYet = (input: TransactionCreate): InvalidRequest | null =>
  (input.gift_cards ?? []).length === 0
    ? null
    : notOffered([['gift_cards']], () => '`gift_cards`: spending gift cards in a transaction is not supported yet')
