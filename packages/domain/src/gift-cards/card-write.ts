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
import { IdempotencyStore } from '../idempotency/idempotency.ports'
import { BuyerRepository } from '../buyers/buyers.ports'
import { Clock, IdGenerator } from '../shared/clock.ports'
import { Mac } from '../shared/crypto.ports'
import { Forbidden } from '../shared/errors'
import { CardReach, mayWriteFor } from './card-reach'
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
  readonly input: { readonly buyer_id?: string | null; readonly buyer_external_identifier?: string | null }
  readonly idempotencyKey: string | null
  /** Whose cards the caller may write (`cardReach(access, 'gift-cards.write')`): it bounds the buyer the card is stored for. */
  readonly reach: CardReach
}

/**
 * Runs a card-writing request: once, or, with an idempotency key, at most once per account,
 * operation and key (the fingerprint is a MAC of the canonical body), answering a repeat from
 * what was recorded. Whether the caller may write for the buyer the input names is checked
 * first, before any record is looked up (see `makeRunIdempotently`).
 */
export const makeCardWrite =
  (
    deps: { buyers: BuyerRepository; idempotency: IdempotencyStore; clock: Clock; ids: IdGenerator; mac: Mac; config: IdempotencyConfig },
    operation: string,
  ) =>
  <Cmd extends CardWriteCommand, Err>(
    attempt: (cmd: Cmd) => (reservation: Reservation | null) => Promise<Attempted<Err, GiftCard>>,
    codec: OutcomeCodec<Err, GiftCard>,
  ) => {
    const runIdempotently = makeRunIdempotently({ store: deps.idempotency, clock: deps.clock, ids: deps.ids, config: deps.config })
    return (cmd: Cmd): TE.TaskEither<Err | Forbidden | IdempotencyRefusal, CardWritten> => {
      const authorize = mayWriteFor(deps.buyers, cmd.merchantAccountId, cmd.reach, cmd.input)
      if (cmd.idempotencyKey === null)
        return pipe(
          authorize,
          TE.flatMap(() => async () => (await attempt(cmd)(null)).outcome),
          TE.map((card): CardWritten => ({ card, replayed: false })),
        )
      const request = {
        merchantAccountId: cmd.merchantAccountId,
        operation,
        key: cmd.idempotencyKey,
        fingerprint: deps.mac.mac('idempotency-fingerprint', canonicalJson(cmd.input)),
      }
      return pipe(
        runIdempotently(request, authorize, attempt(cmd), codec),
        TE.map(({ value, replayed }): CardWritten => ({ card: value, replayed })),
      )
    }
  }
