import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { GiftCard, GiftCardActivationCreate } from '@orka/domain'
import { defineOperation, Tag } from './operation'

const GIFT_CARDS: Tag = {
  name: 'Gift cards',
  description: "Physical gift cards activated through the merchant account's gift card service.",
}

/**
 * A replay (same key, same body) answers with the first response's status and bytes plus
 * `Idempotent-Replayed: true`, failures included.
 */
export const activateGiftCard = defineOperation({
  method: 'POST',
  path: '/gift-cards/activations',
  scope: 'gift-cards.write',
  operationId: 'activate_gift_card',
  rateLimit: 'embed',
  doc: {
    tag: GIFT_CARDS,
    summary: 'Activate a gift card',
    description:
      "Activates a physical gift card through the merchant account's primary gift card service. With `store: true` the activated card is " +
      'also stored in the vault (a card number already stored for the account is a `409` naming it).\n\n' +
      'With an `idempotency-key`, the same key and body replay the first outcome (`Idempotent-Replayed: true`), another body with the ' +
      'key is a `400`, and a request while the first still runs is a `425`.',
  },
  idempotent: true,
  body: GiftCardActivationCreate,
  success: { status: 201, codec: GiftCard, description: 'The activated gift card.' },
  handle: (u) => (req) =>
    pipe(
      u.activateGiftCard({ merchantAccountId: req.access.merchantAccount.id, input: req.body, idempotencyKey: req.idempotencyKey }),
      TE.map((r) => ({ value: r.card, replayed: r.replayed })),
    ),
})

export const GIFT_CARD_OPERATIONS = [activateGiftCard]
