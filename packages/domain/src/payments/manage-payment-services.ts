import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { flow, pipe } from 'fp-ts/function'
import { AuditActor } from '../audit/audit-entry'
import { paymentServiceWitness } from '../audit/change-witness'
import { AuditedChange, auditedOutcome, changeOf, RecordAudited } from '../audit/record-audited'
import { Page, SortKey } from '../pagination/page'
import { paginate, PageQuery } from '../pagination/paginate'
import { seekIn } from '../pagination/seek-in'
import { Clock, IdGenerator } from '../shared/clock.ports'
import { Mac, SecretBox } from '../shared/crypto.ports'
import { Conflict, conflict, InvalidRequest, NotFound, notFound, problem, refusedInput, Unavailable } from '../shared/errors'
import { ConnectorCatalogue } from './connector-catalogue.ports'
import { ConnectorDefinition } from './connector-definition'
import { PaymentServiceField, PaymentServiceRecord, revisionOf, withSecrets } from './payment-service'
import { MAX_POSITION, PaymentService, PaymentServiceCreate, PaymentServiceUpdate } from './payment-service.codecs'
import { changedFields, changedNames, checkedSettings, noSessions, presentPaymentService, storedFields } from './payment-service-rules'
import { PaymentServiceRepository } from './payment-service.ports'

export interface PaymentServiceDeps {
  readonly cardServices: PaymentServiceRepository
  readonly catalogue: ConnectorCatalogue
  readonly box: SecretBox
  readonly mac: Mac
  readonly clock: Clock
  readonly ids: IdGenerator
  readonly audited: RecordAudited
  /** Where a service's provider sends its webhooks (Orka's public URL and the service); unset: unknown, none shown. */
  readonly webhookUrl?: (service: Pick<PaymentServiceRecord, 'merchant_account_id' | 'id'>) => string
}

/** How the API shows a service: with its `webhook_url` when its connector takes webhooks and Orka's public URL is known. */
const shown =
  (deps: Pick<PaymentServiceDeps, 'catalogue' | 'webhookUrl'>) =>
  (r: PaymentServiceRecord): PaymentService => {
    const takesWebhooks = deps.catalogue.cardDefinitions.some((d) => d.id === r.payment_service_definition_id && d.webhooks === true)
    return presentPaymentService(r, takesWebhooks && deps.webhookUrl !== undefined ? deps.webhookUrl(r) : null)
  }

/** Who asks for a change to which account's services. */
export interface PaymentServiceCommand {
  readonly merchantAccountId: string
  readonly actor: AuditActor
}

const resourceOf = (r: Pick<PaymentServiceRecord, 'id' | 'display_name'>) => ({
  type: 'payment-service' as const,
  id: r.id,
  name: r.display_name,
})

/** The account's service with this id, not deleted; anything else (unknown, another account's, deleted) is a `404`. */
export const liveService = (
  deps: Pick<PaymentServiceDeps, 'cardServices'>,
  merchantAccountId: string,
  id: string,
): TE.TaskEither<NotFound | Unavailable, PaymentServiceRecord> =>
  pipe(
    deps.cardServices.findById(merchantAccountId, id),
    TE.flatMap(
      flow(
        O.filter((r) => r.deleted_at === undefined),
        TE.fromOption(() => notFound('PaymentService', id)),
      ),
    ),
  )

/** How many times a change is made again on a service that another writer changed first, before a `409`. */
export const REVISION_ROUNDS = 4

const keptChanging = (id: string): Conflict =>
  conflict(
    id,
    problem(
      null,
      [],
      `The payment service ${id} kept changing while this change was made to it: send the change again`,
      'concurrent_update',
    ),
  )

/**
 * Stores `next` as the revision after `before`'s (none: revision 0), its settings checked and its
 * secrets sealed, with its audit entry: `created` when there was none before, else `updated`
 * naming what changed (`before` with its secrets opened). Null, with no entry left, when another
 * writer stored that revision first.
 */
const stored = (
  deps: PaymentServiceDeps,
  cmd: PaymentServiceCommand,
  before: PaymentServiceRecord | null,
  next: PaymentServiceRecord,
  checked: { readonly definition: ConnectorDefinition; readonly fields: readonly PaymentServiceField[] },
): TE.TaskEither<Unavailable, PaymentServiceRecord | null> => {
  const record = {
    ...next,
    ...storedFields(deps.box, checked.definition, checked.fields),
    revision: before === null ? 0 : revisionOf(before) + 1,
  }
  const change =
    before === null
      ? changeOf(cmd, resourceOf(record), 'created', 'payment-service-present')
      : {
          ...changeOf(cmd, resourceOf(record), 'updated', 'payment-service-state', paymentServiceWitness(deps.mac, record)),
          changes: changedNames(before, { ...record, fields: checked.fields }),
        }
  return written(deps, change, record)
}

/** `record` written with its audit entry: null, the entry dropped, when another writer stored that revision first. */
const written = (
  deps: Pick<PaymentServiceDeps, 'cardServices' | 'audited'>,
  change: AuditedChange,
  record: PaymentServiceRecord,
): TE.TaskEither<Unavailable, PaymentServiceRecord | null> =>
  TE.map((won: boolean) => (won ? record : null))(
    auditedOutcome(deps.audited, change, deps.cardServices.write(record), (won) => (won ? 'happened' : 'not-happened')),
  )

/**
 * `change` made to the account's live service as stored now, again on a fresh read while another
 * writer stores a revision first (`change` answers null), at most `REVISION_ROUNDS` times: two
 * partial changes sent at once both take effect, one after the other, and neither undoes the other.
 */
const onLatest = <E>(
  deps: Pick<PaymentServiceDeps, 'cardServices'>,
  q: { readonly merchantAccountId: string; readonly id: string },
  change: (current: PaymentServiceRecord) => TE.TaskEither<E | Unavailable, PaymentServiceRecord | null>,
  round = 1,
): TE.TaskEither<E | NotFound | Conflict | Unavailable, PaymentServiceRecord> =>
  pipe(
    liveService(deps, q.merchantAccountId, q.id),
    TE.flatMap((current): TE.TaskEither<E | NotFound | Conflict | Unavailable, PaymentServiceRecord | null> => change(current)),
    TE.flatMap((r) =>
      r !== null ? TE.right(r) : round < REVISION_ROUNDS ? onLatest(deps, q, change, round + 1) : TE.left(keptChanging(q.id)),
    ),
  )

/** A new service of the account, with this id, after the account's others unless `position` says where (null: the id is taken). */
const created = (
  deps: PaymentServiceDeps,
  cmd: PaymentServiceCommand & { readonly input: PaymentServiceCreate },
  id: string,
): TE.TaskEither<InvalidRequest | Unavailable, PaymentServiceRecord | null> =>
  pipe(
    TE.fromEither(checkedSettings(deps.catalogue, cmd.input.payment_service_definition_id, cmd.input, [])),
    TE.flatMap((checked) =>
      pipe(
        deps.cardServices.listForAccount(cmd.merchantAccountId),
        TE.flatMap((others) => {
          const { input } = cmd
          const now = deps.clock.now().toISOString()
          const last = Math.max(-1, ...others.filter((s) => s.deleted_at === undefined).map((s) => s.position))
          const record: PaymentServiceRecord = {
            id,
            merchant_account_id: cmd.merchantAccountId,
            payment_service_definition_id: checked.definition.id,
            display_name: input.display_name,
            position: input.position ?? Math.min(last + 1, MAX_POSITION),
            active: input.active ?? true,
            accepted_currencies: input.accepted_currencies,
            accepted_countries: input.accepted_countries,
            fields: [],
            created_at: now,
            updated_at: now,
          }
          return stored(deps, cmd, null, record, checked)
        }),
      ),
    ),
  )

/**
 * Adds a card service to the account (`POST /payment-services`): its definition one Orka has a
 * connector for, its fields checked against that definition (secrets sealed), at `position` or
 * after the account's others. Routed to from the next payment on.
 */
export const makeCreatePaymentService =
  (deps: PaymentServiceDeps) =>
  (
    cmd: PaymentServiceCommand & { readonly input: PaymentServiceCreate },
  ): TE.TaskEither<InvalidRequest | Conflict | Unavailable, PaymentService> => {
    const id = deps.ids.uuid()
    // A random id another service has: never in practice, and then a 409 rather than a replaced service.
    return pipe(
      created(deps, cmd, id),
      TE.flatMap((r) => (r === null ? TE.left(keptChanging(id)) : TE.right(shown(deps)(r)))),
    )
  }

/** Routing order as a sort key: position, then oldest first, then id (positions are at most 3 digits). */
const routingKey = (r: PaymentServiceRecord): SortKey => [`${String(r.position).padStart(4, '0')} ${r.created_at}`, r.id]

export interface PaymentServiceFilter {
  /** Only services of this method (every service Orka has is `card`). */
  readonly method?: string
  /** True: only the deleted ones; otherwise only those that are not. */
  readonly deleted?: boolean
}

/** The account's card services in routing order, a page at a time: the live ones, or (`deleted`) those deleted. */
export const makeListPaymentServices =
  (deps: Pick<PaymentServiceDeps, 'cardServices' | 'mac' | 'catalogue' | 'webhookUrl'>) =>
  (
    q: PageQuery & { readonly merchantAccountId: string; readonly filter: PaymentServiceFilter },
  ): TE.TaskEither<InvalidRequest | Unavailable, Page<PaymentService>> =>
    pipe(
      paginate(
        deps,
        `payment-services\u0000${q.merchantAccountId}\u0000${JSON.stringify([q.filter.method ?? null, q.filter.deleted === true])}`,
        routingKey,
        (seek) =>
          TE.map((all: readonly PaymentServiceRecord[]) =>
            seekIn(
              all.filter(
                (s) =>
                  (s.deleted_at !== undefined) === (q.filter.deleted === true) &&
                  (q.filter.method === undefined || q.filter.method === 'card'),
              ),
              routingKey,
              'ascending',
              seek,
            ),
          )(deps.cardServices.listForAccount(q.merchantAccountId)),
      )(q),
      TE.map((page) => ({ ...page, items: page.items.map(shown(deps)) })),
    )

export const makeGetPaymentService =
  (deps: Pick<PaymentServiceDeps, 'cardServices' | 'catalogue' | 'webhookUrl'>) =>
  (q: { readonly merchantAccountId: string; readonly id: string }): TE.TaskEither<NotFound | Unavailable, PaymentService> =>
    TE.map(shown(deps))(liveService(deps, q.merchantAccountId, q.id))

/**
 * Changes what is sent (`PUT /payment-services/{id}`): display name, `active`, `position`,
 * accepted currencies and countries, fields (an empty value removes one; a secret not sent is
 * kept, one sent is replaced). Used by this instance from the next payment on, by others within
 * their lookup cache's bound.
 */
export const makeUpdatePaymentService =
  (deps: PaymentServiceDeps) =>
  (
    cmd: PaymentServiceCommand & { readonly id: string; readonly input: PaymentServiceUpdate },
  ): TE.TaskEither<NotFound | InvalidRequest | Conflict | Unavailable, PaymentService> =>
    TE.map(shown(deps))(onLatest(deps, cmd, (r) => updated(deps, cmd, withSecrets(deps.box, r), cmd.input)))

/** `before` (secrets opened) with `input`'s changes, checked and stored (null: another writer moved first). */
const updated = (
  deps: PaymentServiceDeps,
  cmd: PaymentServiceCommand,
  before: PaymentServiceRecord,
  input: PaymentServiceUpdate,
): TE.TaskEither<InvalidRequest | Unavailable, PaymentServiceRecord | null> =>
  pipe(
    TE.fromEither(checkedSettings(deps.catalogue, before.payment_service_definition_id, input, before.fields)),
    TE.flatMap((checked) =>
      stored(
        deps,
        cmd,
        before,
        {
          ...before,
          display_name: input.display_name ?? before.display_name,
          position: input.position ?? before.position,
          active: input.active ?? before.active,
          accepted_currencies: input.accepted_currencies ?? before.accepted_currencies,
          accepted_countries: input.accepted_countries ?? before.accepted_countries,
          updated_at: deps.clock.now().toISOString(),
        },
        checked,
      ),
    ),
  )

/**
 * A service as a seed file describes it, by its id (`SEED_FILE`, `orka seed`): created when
 * absent, made to match when it differs (its fields exactly those given), left alone when it
 * matches, and left deleted when it was deleted (as a revoked key stays revoked). The same
 * checks and audit as the API's.
 */
export type Provisioned = 'created' | 'updated' | 'unchanged' | 'deleted'
export const makeProvisionPaymentService = (deps: PaymentServiceDeps) => {
  type Provisioning = TE.TaskEither<InvalidRequest | Conflict | Unavailable, Provisioned>
  /** Provisions again, on a fresh read, when another writer (an instance starting at once) moved first. */
  const landed = (cmd: { readonly id: string }, round: number, outcome: Provisioned, again: () => Provisioning) =>
    TE.flatMap((r: PaymentServiceRecord | null): Provisioning =>
      r !== null ? TE.right(outcome) : round < REVISION_ROUNDS ? again() : TE.left(keptChanging(cmd.id)),
    )
  const provision = (
    cmd: PaymentServiceCommand & { readonly id: string; readonly input: PaymentServiceCreate },
    round: number,
  ): Provisioning =>
    pipe(
      deps.cardServices.findById(cmd.merchantAccountId, cmd.id),
      TE.flatMap(
        O.match(
          (): Provisioning => landed(cmd, round, 'created', () => provision(cmd, round + 1))(created(deps, cmd, cmd.id)),
          (r): Provisioning => {
            if (r.deleted_at !== undefined) return TE.right('deleted')
            const { payment_service_definition_id: definitionId, ...input } = cmd.input
            if (definitionId !== r.payment_service_definition_id)
              return TE.left(
                refusedInput(
                  ['payment_service_definition_id'],
                  `The payment service ${r.id} is of ${r.payment_service_definition_id}`,
                  'immutable',
                ),
              )
            const before = withSecrets(deps.box, r)
            const fields = changedFields([], input.fields)
            const target = {
              ...before,
              ...input,
              position: input.position ?? before.position,
              active: input.active ?? before.active,
              fields,
            }
            if (changedNames(before, target).length === 0) return TE.right('unchanged')
            // The fields are those of the seed: an empty value removes each other one.
            const removed = before.fields.filter((f) => !fields.some((g) => g.key === f.key)).map((f) => ({ key: f.key, value: '' }))
            const change = updated(deps, cmd, before, { ...input, fields: [...input.fields, ...removed] })
            return landed(cmd, round, 'updated', () => provision(cmd, round + 1))(change)
          },
        ),
      ),
    )
  return (cmd: PaymentServiceCommand & { readonly id: string; readonly input: PaymentServiceCreate }): Provisioning => provision(cmd, 1)
}

/**
 * Deletes a card service (`DELETE /payment-services/{id}`): it is routed to no more and reads
 * as a `404`; it is kept, so that the transactions routed to it still show it and their
 * captures, voids and refunds still reach it.
 */
export const makeDeletePaymentService =
  (deps: PaymentServiceDeps) =>
  (cmd: PaymentServiceCommand & { readonly id: string }): TE.TaskEither<NotFound | Conflict | Unavailable, void> =>
    pipe(
      onLatest(deps, cmd, (r) => {
        const now = deps.clock.now().toISOString()
        const deleted = { ...r, deleted_at: now, updated_at: now, revision: revisionOf(r) + 1 }
        return written(deps, changeOf(cmd, resourceOf(r), 'deleted', 'payment-service-absent'), deleted)
      }),
      TE.map(() => undefined),
    )

/** `POST /payment-services/{id}/sessions`: a wallet's session, which no connector Orka has opens (a `404` for no such service). */
export const makePaymentServiceSession =
  (deps: Pick<PaymentServiceDeps, 'cardServices'>) =>
  (q: { readonly merchantAccountId: string; readonly id: string }): TE.TaskEither<NotFound | InvalidRequest | Unavailable, never> =>
    TE.flatMap((r: PaymentServiceRecord) => TE.left<InvalidRequest>(noSessions(r.payment_service_definition_id)))(
      liveService(deps, q.merchantAccountId, q.id),
    )
