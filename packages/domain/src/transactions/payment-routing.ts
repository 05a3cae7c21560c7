import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { AuthorizeResult, CardConnectorError, OperationResult } from '../payments/card-connector.ports'
import { CardDetails } from '../cards/card-details'
import { isRoutable, PaymentServiceRecord, takes, withSecrets } from '../payments/payment-service'
import { InvalidRequest, refusedInput, serviceFailed, Unavailable } from '../shared/errors'
import { askCardService } from './ask-card-service'
import { AuthorizeResult as AuthorizeAnswer, OperationResult as OperationAnswer } from '../payments/card-connector.ports'
import { cardPart, redemptionsOf, TransactionRecord } from './transaction'
import { connectorFor, noPaymentService, serviceView, stepContext, TransactionDeps } from './transaction-deps'
import { attemptAnswered, attemptVoided, routedTo } from './transaction-steps'
import { advance, collapse, reread } from './transaction-versions'

/**
 * The services to try, in order: the one the request names (no routing), else the account's
 * active ones (not deleted) that take the currency and country, as stored now: a service
 * created, changed or deleted through the API is routed to (or not) from the next payment on.
 */
export const servicesFor =
  (
    deps: Pick<TransactionDeps, 'cardServices'>,
    merchantAccountId: string,
    request: { readonly payment_service_id?: string | null; readonly currency: string; readonly country?: string | null },
  ): TE.TaskEither<InvalidRequest | Unavailable, readonly PaymentServiceRecord[]> =>
  async () => {
    const { payment_service_id: named, currency } = request
    const country = request.country ?? null
    if (named != null) {
      const found = await deps.cardServices.findById(merchantAccountId, named)()
      if (E.isLeft(found)) return found
      if (O.isNone(found.right) || !isRoutable(found.right.value))
        return E.left(
          refusedInput(
            ['payment_service_id'],
            'No active card service with this id exists in this merchant account',
            'unknown_payment_service',
          ),
        )
      if (!takes(found.right.value, currency, null))
        return E.left(refusedInput(['currency'], 'The card service does not take this currency', 'unsupported_currency'))
      if (!takes(found.right.value, currency, country))
        return E.left(refusedInput(['country'], 'The card service does not take this country', 'unsupported_country'))
      return E.right([found.right.value])
    }
    const all = await deps.cardServices.listForAccount(merchantAccountId)()
    return E.isLeft(all) ? all : E.right(all.right.filter((s) => isRoutable(s) && takes(s, currency, country)))
  }

/**
 * Why a card payment has no service to go to: no routable service takes its currency, or (a
 * `country` given) some take the currency but none the country. Read only once routing found none.
 */
export const noServiceFault = (
  deps: Pick<TransactionDeps, 'cardServices'>,
  merchantAccountId: string,
  request: { readonly currency: string; readonly country?: string | null },
): TE.TaskEither<Unavailable, InvalidRequest> =>
  TE.map((all: readonly PaymentServiceRecord[]) =>
    request.country != null && all.some((s) => isRoutable(s) && takes(s, request.currency, null))
      ? refusedInput(['country'], 'No card service of this merchant account takes this country', 'no_payment_service')
      : noPaymentService,
  )(deps.cardServices.listForAccount(merchantAccountId))

/** The services a transaction is routed through, in order, with what the authorization needs. */
export interface Route {
  readonly services: readonly PaymentServiceRecord[]
  readonly card: CardDetails
  readonly billingPostalCode: string | null
}

/** The reference of attempt `n` (1-based): the service deduplicates on it, capture, void and refund name the authorization by it. */
export const attemptReference = (transactionId: string, n: number): string => `${transactionId}:authorize:${n}`

/**
 * The routing loop, from a version whose last attempt is requested and written: ask that
 * service; an authorization or a decline ends it; a technical failure moves to the next
 * service; an outcome the flow does not know (a timeout, a connector that failed) is written,
 * then voided at its service before routing goes on, so no authorization is ever left behind
 * by a transaction that does not show it. A void that does not go through ends the routing:
 * the transaction fails and stays pending until recovery gets the void through.
 */
export const route =
  (deps: TransactionDeps) =>
  (start: TransactionRecord, plan: Route): TE.TaskEither<Unavailable, TransactionRecord> =>
  async () => {
    const put = advance(deps)
    let r = start
    for (let n = r.attempts.length; ; n++) {
      const service = plan.services[n - 1]
      const attempt = r.attempts.at(-1)
      if (service === undefined || attempt === undefined) return E.right(r)
      const connector = deps.cardConnectors.forDefinition(service.payment_service_definition_id)
      const answer: E.Either<CardConnectorError, AuthorizeResult> = O.isNone(connector)
        ? E.right({ _tag: 'Failed', errorCode: 'invalid_service_configuration', rawResponseCode: null, rawResponseDescription: null })
        : await askCardService(AuthorizeAnswer, () =>
            connector.value.authorize({
              service: withSecrets(deps.box, service),
              reference: attempt.reference,
              amount: cardPart(r),
              currency: r.currency,
              // With gift cards, the card part is captured once they are all redeemed (`splitStep`).
              capture: r.intent === 'capture' && redemptionsOf(r).length === 0,
              card: plan.card,
              billingPostalCode: plan.billingPostalCode,
            }),
          )()
      const ctx = stepContext(deps)
      const answered = attemptAnswered(r, ctx, E.isLeft(answer) ? answer.left : answer.right, cardPart(r))
      const following = plan.services[n]
      const onward = (from: TransactionRecord) =>
        routedTo(from, ctx, following === undefined ? null : serviceView(following), attemptReference(r.id, n + 1))
      let nextVersion: TransactionRecord
      if (E.isRight(answer) && answer.right._tag !== 'Failed') nextVersion = answered
      else if (E.isRight(answer)) nextVersion = collapse(r, answered, onward(answered))
      else {
        // The outcome is unknown: write that first, then void the attempt before moving on.
        const unknown = await put(answered)()
        if (E.isLeft(unknown)) return unknown
        if (O.isNone(unknown.right)) return reread(deps, r)()
        const recorded = unknown.right.value
        const voided = await voidAttempt(deps, recorded)()
        if (E.isLeft(voided)) return voided
        const after = attemptVoided(recorded, stepContext(deps), voided.right)
        const then = after.attempts.at(-1)?.voided === true ? onward(after) : routedTo(after, ctx, null, '')
        nextVersion = collapse(recorded, after, then)
        r = recorded
      }
      const written = await put(nextVersion)()
      if (E.isLeft(written)) return written
      if (O.isNone(written.right)) return reread(deps, r)()
      r = written.right.value
      if (r.status !== 'processing' || r.authorization !== null) return E.right(r)
    }
  }

/** Voids the last attempt by its reference at its service: the answer, or an unknown outcome. */
export const voidAttempt =
  (deps: TransactionDeps, r: TransactionRecord): TE.TaskEither<Unavailable, OperationResult | CardConnectorError> =>
  async () => {
    const attempt = r.attempts.at(-1)
    if (attempt === undefined) return E.right({ _tag: 'Succeeded', serviceId: null, rawResponseCode: null, rawResponseDescription: null })
    const found = await connectorFor(deps, r.merchant_account_id, attempt.payment_service.id)()
    if (E.isLeft(found)) return found
    if (O.isNone(found.right)) return E.right(serviceFailed('the card service is gone', 'card'))
    const { service, connector } = found.right.value
    const answer = await askCardService(OperationAnswer, () =>
      connector.void({ service, reference: `${attempt.reference}:void`, authorization: attempt.reference, serviceTransactionId: null }),
    )()
    return E.right(E.isLeft(answer) ? answer.left : answer.right)
  }
