import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import {
  IdempotencyConfig,
  IdempotencyRefusal,
  makeRunIdempotently,
  OutcomeCodec,
  Attempted,
  Reservation,
} from '../idempotency/run-idempotently'
import { IdempotencyStore } from '../idempotency/idempotency'
import { Clock, IdGenerator } from '../shared/clock'
import { Mac } from '../shared/crypto.ports'
import { canonicalJson } from './gift-card'
import { GiftCard } from './gift-card.codecs'

/** A card written by a request, and whether it is the replay of an earlier answer. */
export interface CardWritten {
  readonly card: GiftCard
  readonly replayed: boolean
}

/** What a request that writes a card (activation, store) names. */
export interface CardWriteCommand {
  readonly merchantAccountId: string
  readonly input: unknown
  readonly idempotencyKey: string | null
}

/**
 * Runs a card-writing request: once, or, with an idempotency key, at most once per account,
 * operation and key (the fingerprint is a MAC of the canonical body), answering a repeat from
 * what was recorded.
 */
export const makeCardWrite =
  (deps: { idempotency: IdempotencyStore; clock: Clock; ids: IdGenerator; mac: Mac; config: IdempotencyConfig }, operation: string) =>
  <Cmd extends CardWriteCommand, Err>(
    attempt: (cmd: Cmd) => (reservation: Reservation | null) => Promise<Attempted<Err, GiftCard>>,
    codec: OutcomeCodec<Err, GiftCard>,
  ) => {
    const runIdempotently = makeRunIdempotently({ store: deps.idempotency, clock: deps.clock, ids: deps.ids, config: deps.config })
    return (cmd: Cmd): TE.TaskEither<Err | IdempotencyRefusal, CardWritten> => {
      if (cmd.idempotencyKey === null)
        return async () => E.map((card: GiftCard): CardWritten => ({ card, replayed: false }))((await attempt(cmd)(null)).outcome)
      const request = {
        merchantAccountId: cmd.merchantAccountId,
        operation,
        key: cmd.idempotencyKey,
        fingerprint: deps.mac.mac('idempotency-fingerprint', canonicalJson(cmd.input)),
      }
      return pipe(
        runIdempotently(request, attempt(cmd), codec),
        TE.map(({ value, replayed }): CardWritten => ({ card: value, replayed })),
      )
    }
  }
