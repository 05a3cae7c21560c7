import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { EmbedBuyer } from '../auth/authorize'
import { audienceOf, sees } from '../reach/card-reach'
import { PaymentMethod } from '../payment-methods/payment-method.codecs'
import { InvalidRequest, Unavailable, unavailable } from '../shared/errors'
import { expiredAt } from '../cards/card-number'
import { CardToCharge } from './card-to-charge'
import { embedReach } from '../reach/card-reach'
import { TransactionDeps } from './transaction-deps'
import { refusedInput } from '../shared/errors'

/** A stored payment method named for a payment (by the request, or on its checkout session), with the security code sent for it. */
export interface StoredMethodRef {
  readonly id: string
  readonly securityCode: string | null
}

/** A stored card to charge: unsealed for the calls only, shown by its method's id. */
export interface StoredCardToCharge extends CardToCharge {
  readonly method: PaymentMethod
}

/** Whether the card to charge is a stored method's. */
export const isStored = (card: CardToCharge): card is StoredCardToCharge => 'method' in card

const AT = ['payment_method', 'id']

/**
 * The stored card a payment charges: a method of the caller's reach (a server's: the account's;
 * an embed token's: its claim's buyer's), `succeeded` and not past its expiry month. Anything
 * else (unknown, deleted, another account's or buyer's, never proven, expired) is a `400` on
 * `payment_method.id` that does not tell which, so a browser cannot probe ids.
 */
export const storedCardToCharge = async (
  deps: Pick<TransactionDeps, 'paymentMethods' | 'buyers' | 'box'>,
  cmd: { readonly merchantAccountId: string; readonly embed: { readonly buyer: EmbedBuyer | null } | null },
  ref: StoredMethodRef,
  now: Date,
): Promise<E.Either<InvalidRequest | Unavailable, StoredCardToCharge>> => {
  const unusable = E.left(refusedInput(AT, 'No stored payment method with this id can pay', 'unknown_payment_method'))
  const audience = await audienceOf(deps.buyers, cmd.merchantAccountId, embedReach(cmd.embed))()
  if (E.isLeft(audience)) return audience.left._tag === 'Forbidden' ? unusable : E.left(audience.left)
  const found = await deps.paymentMethods.findById(cmd.merchantAccountId, ref.id.toLowerCase())()
  if (E.isLeft(found)) return found
  const vaulted = O.toNullable(found.right)
  if (vaulted === null || !sees(audience.right, vaulted.method) || vaulted.method.status !== 'succeeded') return unusable
  const { method } = vaulted
  const expirationDate = method.expiration_date ?? ''
  if (expiredAt(expirationDate, now)) return E.left(refusedInput(AT, 'The stored card has expired', 'expired_card'))
  const number = E.tryCatch(
    () => deps.box.open(vaulted.sealed_number),
    () => unavailable(new Error(`the number of payment method ${method.id} does not unseal`)),
  )
  if (E.isLeft(number)) return number
  return E.right({
    method,
    card: { number: number.right, expirationDate, securityCode: ref.securityCode },
    view: {
      type: 'payment-method',
      method: 'card',
      id: method.id,
      label: method.label ?? null,
      scheme: method.scheme ?? null,
      expiration_date: expirationDate,
      fingerprint: method.fingerprint ?? null,
      details: method.details ?? null,
      country: null,
      currency: null,
      external_identifier: method.external_identifier ?? null,
    },
  })
}
