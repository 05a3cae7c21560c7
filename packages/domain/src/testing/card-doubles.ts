import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  AuthorizeRequest,
  AuthorizeResult,
  CaptureRequest,
  CardConnector,
  CardConnectorError,
  CardConnectors,
  CredentialsRefused,
  LookupRequest,
  OperationResult,
  RefundRequest,
  VoidRequest,
} from '../payments/card-connector.ports'
import { serviceTimeout } from '../shared/errors'
import { ProviderEvent, ProviderNotification, ProviderWebhook, WebhookRefused } from '../payments/provider-events'
import { PaymentServiceField } from '../payments/payment-service'

type Op = 'authorize' | 'capture' | 'void' | 'refund'
type Answer<A> = A | CardConnectorError
/** What a scripted call does: answer, or act and lose its answer on the way back (the caller sees a timeout). */
export type Scripted<A> = Answer<A> | { readonly lost: A }

const raw = { rawResponseCode: null, rawResponseDescription: null }
export const AUTHORIZED = (captured = false): AuthorizeResult => ({
  _tag: 'Authorized',
  serviceTransactionId: 'svc-auth',
  captured,
  authCode: '123456',
  avs: null,
  cvv: null,
  cardType: null,
  ...raw,
})
export const DECLINED = (errorCode = 'insufficient_funds'): AuthorizeResult => ({
  _tag: 'Declined',
  errorCode,
  avs: null,
  cvv: null,
  ...raw,
})
export const FAILED = (errorCode = 'service_error'): AuthorizeResult => ({ _tag: 'Failed', errorCode, ...raw })
export const SUCCEEDED: OperationResult = { _tag: 'Succeeded', serviceId: 'svc-op', ...raw }
export const OPERATION_DECLINED: OperationResult = { _tag: 'Declined', errorCode: 'declined', ...raw }

/**
 * A card service for use-case tests, scripted per call and honouring references as a real one
 * must: a call repeated with a reference it acted on answers as it did, and acts no more. It
 * records every call, and every effect (what it did once per reference), so a test can check
 * that nothing was done twice or left behind.
 */
export class ScriptedCardConnector implements CardConnector {
  readonly calls: { readonly op: Op; readonly reference: string; readonly amount?: number }[] = []
  /** What the service did, once per reference: authorizations, captures, voids and refunds it holds. */
  readonly effects: { readonly op: Op; readonly reference: string; readonly authorization?: string; readonly amount?: number }[] = []
  private readonly done = new Map<string, AuthorizeResult | OperationResult>()
  private readonly gates = new Map<Op, { readonly open: Promise<void>; readonly arrived: () => void }>()

  constructor(
    private readonly script: {
      readonly authorize?: (req: AuthorizeRequest) => Scripted<AuthorizeResult>
      readonly capture?: (req: CaptureRequest) => Scripted<OperationResult>
      readonly void?: (req: VoidRequest) => Scripted<OperationResult>
      readonly refund?: (req: RefundRequest) => Scripted<OperationResult>
      readonly verify?: (fields: readonly PaymentServiceField[]) => CredentialsRefused | CardConnectorError | null
      /** What a webhook reads as (default: refused, none configured). */
      readonly notification?: (webhook: ProviderWebhook) => E.Either<WebhookRefused, ProviderNotification>
      /** What the service says when asked (`sync`); default: nothing. */
      readonly lookup?: (req: LookupRequest) => readonly ProviderEvent[] | CardConnectorError
    } = {},
  ) {}

  private run<A extends AuthorizeResult | OperationResult>(
    op: Op,
    reference: string,
    scripted: Scripted<A>,
    effect: { authorization?: string; amount?: number },
  ): TE.TaskEither<CardConnectorError, A> {
    return async () => {
      const gate = this.gates.get(op)
      if (gate !== undefined) {
        gate.arrived()
        await gate.open
      }
      const before = this.done.get(reference)
      if (before !== undefined) return E.right(before as A)
      const outcome = 'lost' in scripted ? scripted.lost : scripted
      if (outcome._tag === 'ServiceFailed' || outcome._tag === 'ServiceTimeout') return E.left(outcome)
      this.done.set(reference, outcome)
      if (outcome._tag === 'Authorized' || outcome._tag === 'Succeeded' || outcome._tag === 'Received')
        this.effects.push({ op, reference, ...effect })
      return 'lost' in scripted ? E.left(serviceTimeout('card')) : E.right(outcome)
    }
  }

  /**
   * Holds every call of `op` at the service until `release`: a call in flight, for race tests.
   * `arrived` settles once a call of `op` is being held. The call is in `calls` from the start;
   * it acts (and is in `effects`) only once released.
   */
  hold(op: Op): { readonly arrived: Promise<void>; readonly release: () => void } {
    let release: (() => void) | undefined
    let arrived: (() => void) | undefined
    const open = new Promise<void>((r) => (release = r))
    const came = new Promise<void>((r) => (arrived = r))
    this.gates.set(op, { open, arrived: () => arrived?.() })
    return {
      arrived: came,
      release: () => {
        this.gates.delete(op)
        release?.()
      },
    }
  }

  authorize(req: AuthorizeRequest) {
    this.calls.push({ op: 'authorize', reference: req.reference, amount: req.amount })
    return this.run('authorize', req.reference, this.script.authorize?.(req) ?? AUTHORIZED(req.capture), { amount: req.amount })
  }
  capture(req: CaptureRequest) {
    this.calls.push({ op: 'capture', reference: req.reference, amount: req.amount })
    return this.run('capture', req.reference, this.script.capture?.(req) ?? SUCCEEDED, {
      authorization: req.authorization,
      amount: req.amount,
    })
  }
  void(req: VoidRequest) {
    this.calls.push({ op: 'void', reference: req.reference })
    return this.run('void', req.reference, this.script.void?.(req) ?? SUCCEEDED, { authorization: req.authorization })
  }
  refund(req: RefundRequest) {
    this.calls.push({ op: 'refund', reference: req.reference, amount: req.amount })
    return this.run('refund', req.reference, this.script.refund?.(req) ?? SUCCEEDED, {
      authorization: req.authorization,
      amount: req.amount,
    })
  }

  readNotification(_fields: readonly PaymentServiceField[], webhook: ProviderWebhook): E.Either<WebhookRefused, ProviderNotification> {
    return this.script.notification?.(webhook) ?? E.left({ _tag: 'WebhookRefused', reason: 'not-configured' })
  }
  lookup(req: LookupRequest): TE.TaskEither<CardConnectorError, readonly ProviderEvent[]> {
    const answer = this.script.lookup?.(req) ?? []
    return 'length' in answer ? TE.right(answer) : TE.left(answer)
  }

  /** Accepts any settings unless scripted to refuse them; changes nothing. */
  verify(fields: readonly PaymentServiceField[]): TE.TaskEither<CredentialsRefused | CardConnectorError, void> {
    const refused = this.script.verify?.(fields) ?? null
    return refused === null ? TE.right(undefined) : TE.left(refused)
  }

  /** Authorizations the service holds that no void released: what a transaction must show or have voided. */
  heldAuthorizations(): string[] {
    const voided = new Set(this.effects.filter((e) => e.op === 'void').map((e) => e.authorization))
    return this.effects.filter((e) => e.op === 'authorize' && !voided.has(e.reference)).map((e) => e.reference)
  }
}

/** Connectors by definition id. */
export const cardConnectorsOf = (byDefinition: Readonly<Record<string, CardConnector>>): CardConnectors => ({
  forDefinition: (id) => O.fromNullable(byDefinition[id]),
})
