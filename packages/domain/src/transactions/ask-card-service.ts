import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import * as t from 'io-ts'
import { CardConnectorError } from '../payments/card-connector.ports'
import { serviceFailed, serviceTimeout } from '../shared/errors'

/**
 * A card connector is code the flow does not own: whether it throws, rejects, names an error we
 * do not know or answers in the wrong shape, the flow sees `ServiceFailed` (an outcome it does
 * not know, which it settles by voiding or repeating the call), never an exception. Nothing of
 * what the connector said is kept unless it decodes.
 */
export const askCardService =
  <A>(answer: t.Decoder<unknown, A>, call: () => TE.TaskEither<unknown, unknown>): TE.TaskEither<CardConnectorError, A> =>
  async () => {
    let result: E.Either<unknown, unknown>
    try {
      result = await call()()
    } catch {
      return E.left(serviceFailed('the card connector threw', 'card'))
    }
    if (E.isLeft(result)) {
      const tag = typeof result.left === 'object' && result.left !== null ? (result.left as { _tag?: unknown })._tag : undefined
      return E.left(tag === 'ServiceTimeout' ? serviceTimeout('card') : serviceFailed('the card connector failed', 'card'))
    }
    const decoded = answer.decode(result.right)
    return E.isRight(decoded) ? decoded : E.left(serviceFailed('the card service answered in an unexpected shape', 'card'))
  }
