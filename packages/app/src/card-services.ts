import * as O from 'fp-ts/Option'
import {
  ConnectorDefinition,
  fieldsProblem,
  MOCK_CARD,
  PaymentServiceField,
  PaymentServiceRecord,
  PaymentServiceRepository,
} from '@orka/domain'
import { CARD_CONNECTORS, definitionOf } from '@orka/adapters-node'
import { runTask } from './run-task'
import { SeedFile } from './seed-file'
import { stableUuid } from './stable-id'

type SeedPaymentService = NonNullable<SeedFile['payment_services']>[number]

/** What names a card service when no id is given. */
export interface CardServiceName {
  readonly merchant_account_id: string
  readonly payment_service_definition_id: string
  readonly display_name: string
}

/** A service named without an id gets one derived from what it is, as the other seeded records do. */
export const cardServiceId = (s: CardServiceName): string =>
  stableUuid('payment-service', s.merchant_account_id, s.payment_service_definition_id, s.display_name)

/** The card service an account gets unless the seed names its own: the sandbox mock, first, for every currency. */
export const defaultCardService = (merchantAccountId: string, at: string): PaymentServiceRecord => {
  const name = { merchant_account_id: merchantAccountId, payment_service_definition_id: MOCK_CARD, display_name: 'Mock cards' }
  return {
    ...name,
    id: cardServiceId(name),
    position: 0,
    active: true,
    accepted_currencies: [],
    accepted_countries: [],
    fields: [],
    created_at: at,
    updated_at: at,
  }
}

/**
 * The records a seed's `payment_services` describe: the original API's PaymentServiceCreate,
 * active unless it says otherwise, in the seed's order within each account unless positions
 * are given, for every currency and country unless lists are.
 */
export const cardServicesOf = (entries: readonly SeedPaymentService[], at: string): PaymentServiceRecord[] => {
  const seen = new Map<string, number>()
  return entries.map((s) => {
    const place = seen.get(s.merchant_account_id) ?? 0
    seen.set(s.merchant_account_id, place + 1)
    return {
      id: s.id ?? cardServiceId(s),
      merchant_account_id: s.merchant_account_id,
      payment_service_definition_id: s.payment_service_definition_id,
      display_name: s.display_name,
      position: s.position ?? place,
      active: s.active ?? true,
      accepted_currencies: s.accepted_currencies ?? [],
      accepted_countries: s.accepted_countries ?? [],
      fields: s.fields ?? [],
      created_at: at,
      updated_at: at,
    }
  })
}

/** Why Orka cannot run a service so configured, if it cannot: a definition without a connector, or fields its definition refuses. */
export const cardServiceProblem = (definitionId: string, fields: readonly PaymentServiceField[]): string | undefined =>
  O.match(
    () =>
      `payment service definition '${definitionId}' has no connector (Orka has: ${CARD_CONNECTORS.map((m) => m.definition.id).join(', ')})`,
    (definition: ConnectorDefinition) => fieldsProblem(definition, fields),
  )(definitionOf(CARD_CONNECTORS, definitionId))

/** What a service is, but for when it was first stored and last changed (whatever order a store gives its keys in). */
const settingsOf = (r: PaymentServiceRecord) =>
  JSON.stringify([
    r.id,
    r.merchant_account_id,
    r.payment_service_definition_id,
    r.display_name,
    r.position,
    r.active,
    r.accepted_currencies,
    r.accepted_countries,
    r.fields.map((f) => [f.key, f.value]),
  ])

/** Stores a provisioned service, keeping when it was first stored (routing breaks ties by it); an unchanged one is left alone. */
export const provisionCardService = async (services: PaymentServiceRepository, record: PaymentServiceRecord): Promise<void> => {
  const stored = O.toNullable(await runTask(services.findById(record.merchant_account_id, record.id), 'reading a payment service'))
  if (stored !== null && settingsOf(stored) === settingsOf(record)) return
  const kept = stored === null ? record : { ...record, created_at: stored.created_at }
  await runTask(services.upsert(kept), `seeding payment service ${record.display_name}`)
}

/**
 * The default set-up's card services: an account the seed names no card service for gets the
 * default one when it has none (so an account, or a deployment, from before card services gets
 * it too, and one changed with the CLI is left as it is). For an account the seed names card
 * services for, the seed says what they are: a default one an earlier start made is deactivated.
 */
export const applyDefaultCardServices = async (
  services: PaymentServiceRepository,
  accounts: readonly string[],
  seeded: readonly PaymentServiceRecord[],
  at: string,
): Promise<void> => {
  for (const account of new Set(accounts)) {
    const byseed = seeded.filter((s) => s.merchant_account_id === account)
    const fallback = defaultCardService(account, at)
    if (byseed.length === 0) {
      const existing = await runTask(services.listForAccount(account), 'reading payment services')
      if (existing.length === 0) await runTask(services.upsert(fallback), `seeding the default payment service of ${account}`)
      continue
    }
    const stored = O.toNullable(await runTask(services.findById(account, fallback.id), 'reading a payment service'))
    if (stored?.active === true && !byseed.some((s) => s.id === fallback.id))
      await runTask(services.upsert({ ...stored, active: false, updated_at: at }), `deactivating the default payment service of ${account}`)
  }
}
