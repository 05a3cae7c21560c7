import { Problem, problem } from '../shared/errors'

/** The most gift cards one transaction may spend (more is a `400` naming the first one too many). */
export const MAX_TRANSACTION_GIFT_CARDS = 10

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
