import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { ProviderEvent, ProviderWebhook } from '../payments/provider-events'
import { CardConnectorError } from '../payments/card-connector.ports'
import { withSecrets } from '../payments/payment-service'
import { MerchantAccountId } from '../merchant-accounts/merchant-account'
import { uuid } from '../shared/codecs'
import {
  InvalidRequest,
  invalidRequest,
  NotFound,
  notFound,
  problem,
  Unauthenticated,
  unauthenticated,
  Unavailable,
  unavailable,
} from '../shared/errors'
import { isUnsettled, toTransaction, TransactionRecord } from './transaction'
import { Transaction } from './transaction.codecs'
import { connectorFor, stepContext, TransactionDeps } from './transaction-deps'
import { advance } from './transaction-versions'
import { applyProviderEvent } from './provider-event-steps'
import { OPERATION_ROUNDS } from './operation-runner'

/** The transaction id Orka's references start with (`<id>:<step>`); null for a reference not Orka's. */
const transactionIdOf = (reference: string | null): string | null =>
  /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):/.exec(reference ?? '')?.[1] ?? null

/** Whether the transaction went to this service: a service's word counts only for what was sent to it. */
const sentTo = (r: TransactionRecord, serviceId: string) => r.attempts.some((a) => a.payment_service.id === serviceId)

/**
 * Applies each event to the account's transaction its reference names, once: read, apply
 * (`applyProviderEvent`), write as the next version; a write lost to another writer reads and
 * applies again. Events of no transaction of the account, or of one not sent to this service,
 * are ignored. `Unavailable` when the store fails or the transaction kept changing: the
 * provider sends the webhook again, and what was applied is not applied twice.
 */
const applyEvents =
  (
    deps: TransactionDeps,
    merchantAccountId: string,
    serviceId: string,
    events: readonly ProviderEvent[],
    keep: 'every' | 'settling',
  ): TE.TaskEither<Unavailable, void> =>
  async () => {
    const put = advance(deps)
    for (const e of events) {
      const id = transactionIdOf(e.reference)
      // An event Orka could not keep as it is (a NUL, a huge text) is no event of Orka's.
      if (id === null || !ProviderEvent.is(e)) continue
      for (let round = 0; ; round++) {
        if (round === OPERATION_ROUNDS)
          return E.left(unavailable(new Error('the transaction kept changing while a notification was applied')))
        const found = await deps.transactions.find(merchantAccountId, id)()
        if (E.isLeft(found)) return found
        if (O.isNone(found.right) || !sentTo(found.right.value, serviceId)) break
        const step = applyProviderEvent(found.right.value, stepContext(deps), e, keep)
        if (step === null) break
        const written = await put(step)()
        if (E.isLeft(written)) return written
        if (O.isSome(written.right)) break
      }
    }
    return E.right(undefined)
  }

export interface ProviderWebhookCommand {
  readonly merchantAccountId: string
  readonly paymentServiceId: string
  readonly webhook: ProviderWebhook
}

/** One answer for every request not signed with a known service's secret: nothing tells which part was wrong. */
const unsigned = unauthenticated("The request does not carry this payment service's signature")

/**
 * A provider's webhook to one of the account's services (`webhook_url`, unauthenticated): read
 * by the service's connector with its secrets, each event applied once. Answers what the
 * provider expects to hear. A deleted service's webhooks are still taken: its transactions
 * still settle there.
 */
export const makeReceiveProviderWebhook =
  (deps: TransactionDeps) =>
  (
    cmd: ProviderWebhookCommand,
  ): TE.TaskEither<Unauthenticated | InvalidRequest | Unavailable, { readonly contentType: string; readonly body: string }> =>
  async () => {
    // Ids no account or service could have (a fuzzer's NUL, a lone surrogate, a huge one) are refused as any unsigned request.
    if (!MerchantAccountId.is(cmd.merchantAccountId) || !uuid.is(cmd.paymentServiceId)) return E.left(unsigned)
    const found = await connectorFor(deps, cmd.merchantAccountId, cmd.paymentServiceId.toLowerCase())()
    if (E.isLeft(found)) return found
    if (O.isNone(found.right)) return E.left(unsigned)
    const { connector, service } = found.right.value
    const read = connector.readNotification(withSecrets(deps.box, service).fields, cmd.webhook, deps.clock.now())
    if (E.isLeft(read))
      return E.left(
        read.left.reason === 'malformed'
          ? invalidRequest(problem('input', [], 'The body is not a notification this payment service sends'))
          : unsigned,
      )
    const applied = await applyEvents(deps, cmd.merchantAccountId, service.id, read.right.events, 'every')()
    return E.map(() => read.right.reply)(applied)
  }

/**
 * `POST /transactions/{id}/sync`: asks the service that holds the authorization what it says
 * now of it and of every capture, void and refund Orka awaits, and settles what it says, as
 * its notifications would. Calls still open are left to their flow (or recovery): asking again
 * here could race a live call. A service that cannot be asked answers why (`502`/`504`).
 */
export const makeSyncTransaction =
  (deps: TransactionDeps) =>
  (q: {
    readonly merchantAccountId: string
    readonly transactionId: string
  }): TE.TaskEither<NotFound | Unavailable | CardConnectorError, Transaction> =>
  async () => {
    const read = () => deps.transactions.find(q.merchantAccountId, q.transactionId)()
    const found = await read()
    if (E.isLeft(found)) return found
    if (O.isNone(found.right)) return E.left(notFound('Transaction', q.transactionId))
    const r = found.right.value
    const auth = r.authorization
    if (auth === null) return E.right(toTransaction(r))
    const at = await connectorFor(deps, r.merchant_account_id, auth.payment_service.id)()
    if (E.isLeft(at)) return at
    if (O.isNone(at.right)) return E.right(toTransaction(r))
    const awaited = [...r.captures, ...(r.void === null ? [] : [r.void]), ...r.refunds.filter((x) => x.redemption_id === undefined)]
      .filter(isUnsettled)
      .map((x) => x.reference)
    const told = await at.right.value.connector.lookup({
      service: at.right.value.service,
      authorization: auth.reference,
      serviceTransactionId: auth.service_transaction_id,
      awaited,
    })()
    if (E.isLeft(told)) return told
    const applied = await applyEvents(deps, r.merchant_account_id, auth.payment_service.id, told.right, 'settling')()
    if (E.isLeft(applied)) return applied
    const after = await read()
    return E.map(O.match(() => toTransaction(r), toTransaction))(after)
  }
