import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { AuditActor } from '../audit/audit-entry'
import { sessionWitness } from '../audit/change-witness'
import { changeOf, RecordAudited } from '../audit/record-audited'
import { Clock, IdGenerator } from '../shared/clock.ports'
import { Mac } from '../shared/crypto.ports'
import { InvalidRequest, invalidRequest, NotFound, notFound, problem, Unavailable } from '../shared/errors'
import {
  CheckoutSession,
  CheckoutSessionCreate,
  CheckoutSessionRecord,
  CheckoutSessionUpdate,
  MIN_EXPIRES_IN_S,
  toCheckoutSession,
  UNSET_SESSION_FIELDS,
} from './checkout-session'
import { CheckoutSessionStore } from './checkout-session.ports'
import { unsupportedFields } from '../shared/codecs'

interface Deps {
  sessions: CheckoutSessionStore
  clock: Clock
}

const sessionResource = (id: string) => ({ type: 'checkout-session' as const, id, name: 'Checkout session' })

const ENTITY = 'CheckoutSession'

/** A 400 naming a property the schema accepts but Orka does not act on: refused, never silently ignored. */
export const notSupported = (path: readonly string[]) => problem('input', path, `\`${path.join('.')}\` is not supported`, 'not_supported')

/** The input's properties that hold something Orka does not offer (airline data, a buyer's shipping details). */
const refuseUnsupported = <A extends CheckoutSessionCreate>(input: A): E.Either<InvalidRequest, A> => {
  const paths = [
    ...unsupportedFields(input, { airline: null }),
    ...(input.buyer ? unsupportedFields(input.buyer, { shipping_details: null }, ['buyer']) : []),
  ]
  return paths.length === 0 ? E.right(input) : E.left(invalidRequest(...paths.map(notSupported)))
}

const at = (now: Date, plusS: number) => new Date(now.getTime() + plusS * 1000).toISOString()

const found = (id: string) =>
  O.match(
    () => TE.left<NotFound | Unavailable, CheckoutSessionRecord>(notFound(ENTITY, id)),
    (r: CheckoutSessionRecord) => TE.right(r),
  )

const SESSION_FIELDS = ['cart_items', 'metadata', 'buyer', 'amount', 'currency', 'payment_service_id'] as const
type SessionFields = Pick<CheckoutSessionRecord, (typeof SESSION_FIELDS)[number]>

/** The session's fields the input gives (null included: it clears); absent ones are left out. */
const given = (input: CheckoutSessionUpdate): Partial<SessionFields> =>
  Object.fromEntries(SESSION_FIELDS.filter((k) => input[k] !== undefined).map((k) => [k, input[k]]))

/** A new session: `expires_at` is now plus `expires_in` (default an hour). */
export const makeCreateCheckoutSession =
  (deps: Deps & { ids: IdGenerator; audited: RecordAudited }) =>
  (cmd: {
    merchantAccountId: string
    actor: AuditActor
    input: CheckoutSessionCreate
  }): TE.TaskEither<InvalidRequest | Unavailable, CheckoutSession> =>
    pipe(
      TE.fromEither(refuseUnsupported(cmd.input)),
      TE.map((input): CheckoutSessionRecord => {
        const now = deps.clock.now()
        return {
          id: deps.ids.uuid(),
          merchant_account_id: cmd.merchantAccountId,
          created_at: now.toISOString(),
          expires_at: at(now, input.expires_in ?? MIN_EXPIRES_IN_S),
          ...UNSET_SESSION_FIELDS,
          card: null,
          ...given(input),
          full_transaction_id: true,
        }
      }),
      TE.tap((record) =>
        deps.audited(changeOf(cmd, sessionResource(record.id), 'created', 'checkout-session-present'), deps.sessions.create(record)),
      ),
      TE.map(toCheckoutSession),
    )

export const makeGetCheckoutSession =
  (deps: Deps) =>
  (q: { merchantAccountId: string; id: string }): TE.TaskEither<NotFound | Unavailable, CheckoutSession> =>
    pipe(deps.sessions.find(q.merchantAccountId, q.id, deps.clock.now()), TE.flatMap(found(q.id)), TE.map(toCheckoutSession))

/**
 * `PUT` merges: the fields given replace the session's (null clears), the others stay; an
 * `expires_in` moves `expires_at` to now plus it, but never past the bound card data has
 * (`SESSION_CARD_TTL_MS` after receipt): an update does not keep a card longer.
 */
export const makeUpdateCheckoutSession =
  (deps: Deps & { audited: RecordAudited; mac: Mac }) =>
  (cmd: {
    merchantAccountId: string
    actor: AuditActor
    id: string
    input: CheckoutSessionUpdate
  }): TE.TaskEither<InvalidRequest | NotFound | Unavailable, CheckoutSession> =>
    pipe(
      TE.fromEither(refuseUnsupported(cmd.input)),
      TE.flatMap((input) =>
        pipe(
          deps.sessions.find(cmd.merchantAccountId, cmd.id, deps.clock.now()),
          TE.flatMap(found(cmd.id)),
          TE.map((current): CheckoutSessionRecord => {
            const moved = input.expires_in === undefined ? current.expires_at : at(deps.clock.now(), input.expires_in)
            const expiresAt = current.card !== null && Date.parse(moved) > Date.parse(current.expires_at) ? current.expires_at : moved
            return { ...current, ...given(input), expires_at: expiresAt }
          }),
        ),
      ),
      TE.tap((next) =>
        deps.audited(
          changeOf(cmd, sessionResource(next.id), 'updated', 'checkout-session-state', sessionWitness(deps.mac, next)),
          pipe(
            deps.sessions.update(next, deps.clock.now()),
            TE.flatMap((done) => (done ? TE.right(undefined) : TE.left(notFound(ENTITY, next.id)))),
          ),
        ),
      ),
      TE.map(toCheckoutSession),
    )

/** Removes the session and its card data for good; a second delete is a 404. */
export const makeDeleteCheckoutSession =
  (deps: Deps & { audited: RecordAudited }) =>
  (cmd: { merchantAccountId: string; actor: AuditActor; id: string }): TE.TaskEither<NotFound | Unavailable, void> =>
    deps.audited(
      changeOf(cmd, sessionResource(cmd.id), 'deleted', 'checkout-session-absent'),
      pipe(
        deps.sessions.delete(cmd.merchantAccountId, cmd.id, deps.clock.now()),
        TE.flatMap((done) => (done ? TE.right(undefined) : TE.left(notFound(ENTITY, cmd.id)))),
      ),
    )

/**
 * Purges expired sessions, card data and all. Idempotent: a sweep cut short (a crash, a
 * `kill -9`) leaves sessions that the next one deletes, and reads treat them as gone meanwhile.
 */
export const makeSweepCheckoutSessions = (deps: Deps) => (): TE.TaskEither<Unavailable, number> => deps.sessions.sweep(deps.clock.now())
