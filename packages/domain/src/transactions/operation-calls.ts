import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { CardConnector, CardConnectorError, OperationResult } from '../payments/card-connector.ports'
import { PaymentServiceRecord } from '../payments/payment-service'
import { serviceFailed, Unavailable } from '../shared/errors'
import { askCardService } from './ask-card-service'
import { CaptureRecord, RefundRecord, TransactionRecord } from './transaction'
import { connectorFor, TransactionDeps } from './transaction-deps'

/** The service's answer, or what stood for one (an unknown outcome); `Unavailable`: our storage failed first. */
type Outcome = TE.TaskEither<Unavailable, OperationResult | CardConnectorError>

/** Asks the service that authorized `r` through `call`; a service that is gone, or no authorization, is an unknown outcome. */
const atService =
  (
    deps: TransactionDeps,
    r: TransactionRecord,
    call: (
      c: CardConnector,
      service: PaymentServiceRecord,
      authorization: { readonly authorization: string; readonly serviceTransactionId: string },
    ) => ReturnType<CardConnector['capture']>,
  ): Outcome =>
  async () => {
    const auth = r.authorization
    if (auth === null) return E.right(serviceFailed('the transaction holds no authorization', 'card'))
    const found = await connectorFor(deps, r.merchant_account_id, auth.payment_service.id)()
    if (E.isLeft(found)) return found
    if (O.isNone(found.right)) return E.right(serviceFailed('the card service is gone', 'card'))
    const { connector, service } = found.right.value
    const held = { authorization: auth.reference, serviceTransactionId: auth.service_transaction_id }
    const answer = await askCardService(OperationResult, () => call(connector, service, held))()
    return E.right(E.isLeft(answer) ? answer.left : answer.right)
  }

/** Every call repeats with the reference it was recorded with: the service does it once. */
export const callCapture = (deps: TransactionDeps, r: TransactionRecord, c: CaptureRecord): Outcome =>
  atService(deps, r, (connector, service, authorization) =>
    connector.capture({ service, reference: c.reference, ...authorization, amount: c.amount, currency: r.currency }),
  )

export const callVoid = (deps: TransactionDeps, r: TransactionRecord, reference: string): Outcome =>
  atService(deps, r, (connector, service, authorization) => connector.void({ service, reference, ...authorization }))

export const callRefund = (deps: TransactionDeps, r: TransactionRecord, x: RefundRecord): Outcome =>
  atService(deps, r, (connector, service, authorization) =>
    connector.refund({ service, reference: x.reference, ...authorization, amount: x.amount, currency: r.currency }),
  )
