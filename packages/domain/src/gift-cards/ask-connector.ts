import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import * as t from 'io-ts'
import { cardDeclined, serviceFailed, serviceTimeout } from '../shared/errors'
import { ConnectorError } from './gift-card.ports'

const MAX_REASON = 300

/**
 * A connector is code the use case does not own (an embedder's, or one relaying a remote
 * service's answer): whether it throws, rejects, names an error we do not know or answers in
 * the wrong shape, the use case sees a `ServiceFailed`, never an exception. A reason is shown
 * to the client (declines) or logged (failures), so one that quotes the card's number or PIN,
 * or is not a short string, is replaced by a generic one.
 */
export const askConnector =
  <A>(
    answer: t.Decoder<unknown, A>,
    secrets: readonly string[],
    call: () => TE.TaskEither<unknown, unknown>,
  ): TE.TaskEither<ConnectorError, A> =>
  async () => {
    let result: E.Either<unknown, unknown>
    try {
      result = await call()()
    } catch {
      return E.left(serviceFailed('the gift card connector threw', 'gift-card'))
    }
    if (E.isLeft(result)) return E.left(knownError(result.left, secrets))
    const decoded = answer.decode(result.right)
    return E.isRight(decoded) ? decoded : E.left(serviceFailed('the gift card service answered in an unexpected shape', 'gift-card'))
  }

const knownError = (e: unknown, secrets: readonly string[]): ConnectorError => {
  const tag = typeof e === 'object' && e !== null ? (e as { _tag?: unknown })._tag : undefined
  const reason = typeof e === 'object' && e !== null ? (e as { reason?: unknown }).reason : undefined
  const safe = (fallback: string) => (isSafeReason(reason, secrets) ? reason : fallback)
  switch (tag) {
    case 'CardDeclined':
      return cardDeclined(safe('The gift card was declined'))
    case 'ServiceTimeout':
      return serviceTimeout('gift-card')
    case 'ServiceFailed':
      return serviceFailed(safe('the gift card service failed'), 'gift-card')
    default:
      return serviceFailed('the gift card connector answered an unknown error', 'gift-card')
  }
}

// PINs shorter than 4 characters cannot be told from ordinary text, so only longer ones are looked for.
const isSafeReason = (reason: unknown, secrets: readonly string[]): reason is string =>
  typeof reason === 'string' &&
  reason.trim() !== '' &&
  reason.length <= MAX_REASON &&
  secrets.every((s) => s.length < 4 || !reason.includes(s))
