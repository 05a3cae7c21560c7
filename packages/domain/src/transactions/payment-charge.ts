import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { CardDetails } from '../cards/card-details'
import { expiredAt } from '../cards/card-number'
import { Tender } from '../cards/tender'
import { sessionPaymentMethod } from '../checkout-sessions/session-card'
import { PaymentMethod } from '../payment-methods/payment-method.codecs'
import { audienceOf, embedReach, sees } from '../reach/card-reach'
import { EmbedClaim } from '../reach/embed-claim'
import { InvalidRequest, refusedInput, Unavailable, unavailable } from '../shared/errors'
import { TransactionPaymentMethod } from './transaction.codecs'
import { TransactionPaymentMethodCreate } from './transaction-requests.codecs'
import { TransactionDeps } from './transaction-deps'

/**
 * The card a payment charges, once its tender is resolved: its data for the calls only (never
 * stored, never logged), what may be shown of it, and the stored payment method it is, if one.
 */
export interface Charge {
  readonly card: CardDetails
  readonly view: TransactionPaymentMethod
  readonly method: PaymentMethod | null
}

/** The card part's tender a request names: its card data, or a stored method by id. */
export const requestTender = (pm: Extract<TransactionPaymentMethodCreate, { method: 'card' | 'id' }>): Tender =>
  pm.method === 'card'
    ? { kind: 'card', card: { number: pm.number, expirationDate: pm.expiration_date, securityCode: pm.security_code ?? null } }
    : { kind: 'stored-method', id: pm.id, securityCode: pm.security_code ?? null }

const AT_STORED = ['payment_method', 'id']

/**
 * What a tender charges. Card data: not past its expiry month. A stored method: one of the
 * caller's reach (a server's: the account's; an embed token's: its claim's buyer's), `succeeded`
 * and not expired. Anything else about a stored method (unknown, deleted, another account's or
 * buyer's, never proven) is one `400` on `payment_method.id` that does not tell which, so a
 * browser cannot probe ids.
 */
export const chargeOf =
  (
    deps: Pick<TransactionDeps, 'mac' | 'paymentMethods' | 'buyers' | 'box'>,
    cmd: { readonly merchantAccountId: string; readonly embed: Pick<EmbedClaim, 'buyer'> | null },
    tender: Tender,
    now: Date,
  ): TE.TaskEither<InvalidRequest | Unavailable, Charge> =>
  async () => {
    if (tender.kind === 'card') {
      const { card } = tender
      if (expiredAt(card.expirationDate, now))
        return E.left(refusedInput(['payment_method', 'expiration_date'], 'The card has expired', 'expired_card'))
      return E.right({
        card,
        view: {
          ...sessionPaymentMethod(deps.mac, card.number),
          expiration_date: card.expirationDate,
          country: null,
          currency: null,
          external_identifier: null,
        },
        method: null,
      })
    }
    const unusable = E.left(refusedInput(AT_STORED, 'No stored payment method with this id can pay', 'unknown_payment_method'))
    const audience = await audienceOf(deps.buyers, cmd.merchantAccountId, embedReach(cmd.embed))()
    if (E.isLeft(audience)) return audience.left._tag === 'Forbidden' ? unusable : E.left(audience.left)
    const found = await deps.paymentMethods.findById(cmd.merchantAccountId, tender.id.toLowerCase())()
    if (E.isLeft(found)) return found
    const vaulted = O.toNullable(found.right)
    if (vaulted === null || !sees(audience.right, vaulted.method) || vaulted.method.status !== 'succeeded') return unusable
    const { method } = vaulted
    const expirationDate = method.expiration_date ?? ''
    if (expiredAt(expirationDate, now)) return E.left(refusedInput(AT_STORED, 'The stored card has expired', 'expired_card'))
    const number = E.tryCatch(
      () => deps.box.open(vaulted.sealed_number),
      () => unavailable(new Error(`the number of payment method ${method.id} does not unseal`)),
    )
    if (E.isLeft(number)) return number
    return E.right({
      method,
      card: { number: number.right, expirationDate, securityCode: tender.securityCode },
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
