import { createHash } from 'node:crypto'
import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import {
  AuthorizeRequest,
  AuthorizeResult,
  CaptureRequest,
  CardConnector,
  CardConnectorError,
  CredentialsRefused,
  fieldOf,
  ProviderEvent,
  ProviderNotification,
  WebhookRefused,
  OperationResult,
  PaymentServiceField,
  PaymentServiceRecord,
  RefundRequest,
  serviceFailed,
  serviceTimeout,
  VoidRequest,
} from '@orka/domain'
import { MOCK_CARD_REFUSED_KEY } from './definition'
import { amountRule, avsOf, cvvOf, DECLINED_CARDS } from './simulator'
import { delay, hang, withTimeout } from '../../with-timeout'

export interface MockCardConnectorOptions {
  /** Any call not settled within this many ms is a ServiceTimeout. Default 10000. */
  readonly timeoutMs?: number
  /** How long the slow amount takes to answer. Default 2000. */
  readonly slowMs?: number
}

type Operation = 'authorize' | 'capture' | 'void' | 'refund'

/**
 * The service's id for what a reference did: a hash of the reference, so a call repeated with
 * the same reference gets the same id from any instance, with nothing remembered.
 */
const digestOf = (op: Operation, service: PaymentServiceRecord, reference: string) =>
  createHash('sha256').update(`${op}\u0000${service.id}\u0000${reference}`).digest()
const idOf = (op: Operation, service: PaymentServiceRecord, reference: string) => {
  const x = digestOf(op, service, reference).toString('hex')
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`
}
const authCodeOf = (service: PaymentServiceRecord, reference: string) =>
  String(digestOf('authorize', service, reference).readUInt32BE(0) % 1_000_000).padStart(6, '0')

const downResult = {
  _tag: 'Failed',
  errorCode: 'service_error',
  rawResponseCode: 'down',
  rawResponseDescription: 'The service is down',
} as const
const failed = (errorCode: string, amount: number) =>
  ({ _tag: 'Failed', errorCode, rawResponseCode: errorCode, rawResponseDescription: `Simulated failure (amount ${amount})` }) as const

/**
 * The sandbox card service (`mock-card`), the original API's card simulator: its answer is a
 * function of the request alone (`simulator.ts`), and its ids of the reference, so
 * instances share nothing and a repeated call answers as the first did. It keeps nothing, card
 * data least of all, and logs nothing.
 */
export class MockCardConnector implements CardConnector {
  private readonly timeoutMs: number
  private readonly slowMs: number

  constructor(options: MockCardConnectorOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 10_000
    this.slowMs = options.slowMs ?? 2_000
  }

  authorize(req: AuthorizeRequest): TE.TaskEither<CardConnectorError, AuthorizeResult> {
    return this.bounded(req.service, async (signal): Promise<AuthorizeResult> => {
      const rule = amountRule(req.amount)
      if (rule.kind === 'fail') return failed(rule.errorCode, req.amount)
      await this.wait(rule.kind, signal)
      const avs = avsOf(req.billingPostalCode)
      const cvv = cvvOf(req.card.securityCode)
      const declined = rule.kind === 'decline' ? rule.errorCode : DECLINED_CARDS.get(req.card.number)
      if (declined !== undefined)
        return { _tag: 'Declined', errorCode: declined, avs, cvv, rawResponseCode: declined, rawResponseDescription: 'Simulated decline' }
      return {
        _tag: 'Authorized',
        serviceTransactionId: idOf('authorize', req.service, req.reference),
        captured: req.capture,
        authCode: authCodeOf(req.service, req.reference),
        avs,
        cvv,
        // The simulator knows nothing of funding: as the original API's sandbox, no card type.
        cardType: null,
        rawResponseCode: '00',
        rawResponseDescription: 'Approved',
      }
    })
  }

  capture(req: CaptureRequest): TE.TaskEither<CardConnectorError, OperationResult> {
    return this.bounded(req.service, (signal) => this.byAmount('capture', req, signal))
  }

  refund(req: RefundRequest): TE.TaskEither<CardConnectorError, OperationResult> {
    return this.bounded(req.service, (signal) => this.byAmount('refund', req, signal))
  }

  /** Always answers, unless down: a timed-out authorization can always be released. */
  void(req: VoidRequest): TE.TaskEither<CardConnectorError, OperationResult> {
    if (fieldOf(req.service, 'mode') === 'down') return TE.right(downResult)
    return TE.right({
      _tag: 'Succeeded',
      serviceId: idOf('void', req.service, req.reference),
      rawResponseCode: '00',
      rawResponseDescription: 'Voided',
    })
  }

  /**
   * Accepts every setting but the API key `MOCK_CARD_REFUSED_KEY`; `mode` behaves as on a
   * payment (`down` fails, `timeout` never answers), so that a verification's failures can be tried.
   */
  verify(fields: readonly PaymentServiceField[]): TE.TaskEither<CredentialsRefused | CardConnectorError, void> {
    const service = { fields }
    const refused: CredentialsRefused = { _tag: 'CredentialsRefused', field: 'api_key', reason: 'The service refused the API key' }
    return TE.flatMap((answer: typeof downResult | undefined): TE.TaskEither<CredentialsRefused | CardConnectorError, void> => {
      if (answer !== undefined) return TE.left(serviceFailed(answer.rawResponseDescription, 'card'))
      return fieldOf(service, 'api_key') === MOCK_CARD_REFUSED_KEY ? TE.left(refused) : TE.right(undefined)
    })(this.bounded(service, () => Promise.resolve(undefined)))
  }

  /** The sandbox sends no webhooks: there is nothing it could sign. */
  readNotification(): E.Either<WebhookRefused, ProviderNotification> {
    return E.left({ _tag: 'WebhookRefused', reason: 'not-configured' })
  }

  /** It settles every call in its answer: there is never anything more to tell. */
  lookup(): TE.TaskEither<CardConnectorError, readonly ProviderEvent[]> {
    return TE.right([])
  }

  private async byAmount(op: 'capture' | 'refund', req: CaptureRequest | RefundRequest, signal: AbortSignal): Promise<OperationResult> {
    const rule = amountRule(req.amount)
    if (rule.kind === 'fail') return failed(rule.errorCode, req.amount)
    await this.wait(rule.kind, signal)
    if (rule.kind === 'decline')
      return { _tag: 'Declined', errorCode: rule.errorCode, rawResponseCode: rule.errorCode, rawResponseDescription: 'Simulated decline' }
    return { _tag: 'Succeeded', serviceId: idOf(op, req.service, req.reference), rawResponseCode: '00', rawResponseDescription: 'Approved' }
  }

  private async wait(kind: ReturnType<typeof amountRule>['kind'], signal: AbortSignal): Promise<void> {
    if (kind === 'unanswered') await hang(signal)
    if (kind === 'slow') await delay(this.slowMs, signal)
  }

  /** Within the timeout, after the service's `mode`: `down` fails at once, `timeout` never answers. */
  private bounded<A>(service: Pick<PaymentServiceRecord, 'fields'>, work: (signal: AbortSignal) => Promise<A | typeof downResult>) {
    return withTimeout<CardConnectorError, A | typeof downResult>(
      this.timeoutMs,
      () => serviceTimeout('card'),
      async (signal) => {
        const mode = fieldOf(service, 'mode')
        if (mode === 'down') return E.right(downResult)
        if (mode === 'timeout') await hang(signal)
        return E.right(await work(signal))
      },
    )
  }
}
