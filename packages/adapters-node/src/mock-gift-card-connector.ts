import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  ActivationRequest,
  ActivationResult,
  BalanceRequest,
  BalanceResult,
  CardDeclined,
  cardDeclined,
  Clock,
  GiftCardConnector,
  GiftCardConnectors,
  ServiceFailed,
  serviceFailed,
  ServiceTimeout,
  serviceTimeout,
} from '@orka/domain'
import { delay, hang, withTimeout } from './with-timeout'

export const MOCK_GIFT_CARD_DEFINITION = 'mock-gift-card'

export interface MockGiftCardConnectorOptions {
  /** Source of `now` for the expiration date of activated cards. */
  readonly clock: Clock
  /** Any activation not settled within this many ms is a ServiceTimeout. Default 10000. */
  readonly timeoutMs?: number
  /** How long the slow test number (ending 0009) takes to answer. Default 2000. */
  readonly slowMs?: number
}

type Outcome = E.Either<CardDeclined | ServiceFailed | ServiceTimeout, ActivationResult>

const threeYearsAfter = (d: Date) => {
  const out = new Date(d.getTime())
  out.setUTCFullYear(out.getUTCFullYear() + 3)
  return out
}

/** The balance of every mock card that has one, in minor units of `MOCK_BALANCE_CURRENCY`. */
export const MOCK_BALANCE = 10_000
export const MOCK_BALANCE_CURRENCY = 'USD'

/**
 * The sandbox provider. Test numbers by their last four digits: 0002 declined, 0502 provider
 * failure, 0504 no answer (times out), 0009 slow success; any other number activates.
 * Balance checks: 0002 `invalid_gift_card`, 0003 `expired_card`, 0004 a balance of 0, 0502
 * provider failure, 0504 no answer, 0009 slow; any other number 10000 USD, expiring in 3 years.
 */
export class MockGiftCardConnector implements GiftCardConnector {
  private readonly timeoutMs: number
  private readonly slowMs: number

  constructor(private readonly options: MockGiftCardConnectorOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000
    this.slowMs = options.slowMs ?? 2_000
  }

  activate(req: ActivationRequest): TE.TaskEither<CardDeclined | ServiceFailed | ServiceTimeout, ActivationResult> {
    return withTimeout(this.timeoutMs, serviceTimeout, (signal) => this.answer(req.number, signal))
  }

  balance(req: BalanceRequest): TE.TaskEither<ServiceFailed | ServiceTimeout, BalanceResult> {
    return withTimeout(this.timeoutMs, serviceTimeout, (signal) => this.balanceOf(req.number, signal))
  }

  private async balanceOf(number: string, signal: AbortSignal): Promise<E.Either<ServiceFailed | ServiceTimeout, BalanceResult>> {
    if (number.endsWith('0002')) return E.right({ _tag: 'Refused', errorCode: 'invalid_gift_card' })
    if (number.endsWith('0003')) return E.right({ _tag: 'Refused', errorCode: 'expired_card' })
    if (number.endsWith('0502')) return E.left(serviceFailed('The gift card service could not check the balance'))
    if (number.endsWith('0504')) await hang(signal)
    if (number.endsWith('0009')) await delay(this.slowMs, signal)
    return E.right({
      _tag: 'Balance',
      balance: number.endsWith('0004') ? 0 : MOCK_BALANCE,
      currency: MOCK_BALANCE_CURRENCY,
      expirationDate: threeYearsAfter(this.options.clock.now()).toISOString(),
    })
  }

  private async answer(number: string, signal: AbortSignal): Promise<Outcome> {
    if (number.endsWith('0002')) return E.left(cardDeclined('The gift card was declined'))
    if (number.endsWith('0502')) return E.left(serviceFailed('The gift card service could not process the activation'))
    if (number.endsWith('0504')) await hang(signal)
    if (number.endsWith('0009')) await delay(this.slowMs, signal)
    return E.right({ expirationDate: threeYearsAfter(this.options.clock.now()).toISOString() })
  }
}

export class MockGiftCardConnectors implements GiftCardConnectors {
  readonly mock: MockGiftCardConnector

  constructor(options: MockGiftCardConnectorOptions) {
    this.mock = new MockGiftCardConnector(options)
  }

  forDefinition(definitionId: string): O.Option<GiftCardConnector> {
    return definitionId === MOCK_GIFT_CARD_DEFINITION ? O.some(this.mock) : O.none
  }
}
