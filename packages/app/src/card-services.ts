import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import {
  AuditActor,
  checkedSettings,
  Clock,
  Mac,
  makeProvisionPaymentService,
  makeRecordAudited,
  makeUpdatePaymentService,
  MerchantAccountOnboarding,
  MOCK_CARD,
  PaymentServiceCreate,
  PaymentServiceDeps,
  SecretBox,
  StoragePorts,
  unavailable,
} from '@orka/domain'
import { connectorCatalogue, RandomIds } from '@orka/adapters-node'
import { refusalOf, runTask } from './run-task'
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

const DEFAULT_SERVICE = { payment_service_definition_id: MOCK_CARD, display_name: 'Mock cards' }

export const defaultCardServiceId = (merchantAccountId: string): string =>
  cardServiceId({ merchant_account_id: merchantAccountId, ...DEFAULT_SERVICE })

/** The card service an account gets unless the seed names its own: the sandbox mock, first, for every currency. */
const defaultCardService = (merchantAccountId: string) => ({
  id: defaultCardServiceId(merchantAccountId),
  input: { ...DEFAULT_SERVICE, position: 0, active: true, accepted_currencies: [], accepted_countries: [], fields: [] },
})

/** Who a seed's changes are by, in the audit log. */
const SEED_ACTOR: AuditActor = { id: null, name: 'seed file' }

/** What provisioning manages card services with: the API's use cases, over storage itself, at `now`. */
export const provisioningDeps = (
  p: Pick<StoragePorts, 'cardServices' | 'audit'> & { readonly box: SecretBox; readonly mac: Mac },
  clock: Clock,
): PaymentServiceDeps => {
  const ids = new RandomIds()
  return {
    cardServices: p.cardServices,
    catalogue: connectorCatalogue(),
    box: p.box,
    mac: p.mac,
    clock,
    ids,
    audited: makeRecordAudited({ audit: p.audit, ids, clock }),
  }
}

/**
 * The services a seed's `payment_services` describe, as the API takes them: active unless it
 * says otherwise, in the seed's order within each account unless positions are given, for every
 * currency and country unless lists are.
 */
export const cardServicesOf = (entries: readonly SeedPaymentService[]) => {
  const seen = new Map<string, number>()
  return entries.map((s) => {
    const place = seen.get(s.merchant_account_id) ?? 0
    seen.set(s.merchant_account_id, place + 1)
    const input: PaymentServiceCreate = {
      payment_service_definition_id: s.payment_service_definition_id,
      display_name: s.display_name,
      position: s.position ?? place,
      active: s.active ?? true,
      accepted_currencies: s.accepted_currencies ?? [],
      accepted_countries: s.accepted_countries ?? [],
      fields: s.fields ?? [],
    }
    return { merchantAccountId: s.merchant_account_id, id: s.id ?? cardServiceId(s), input }
  })
}

/** Why the API would refuse a seeded service, if it would: the same checks, before anything is written. */
export const seededServiceProblem = (s: SeedPaymentService): string | undefined => {
  const checked = checkedSettings(connectorCatalogue(), s.payment_service_definition_id, { fields: s.fields ?? [] }, [])
  return E.isLeft(checked) ? `payment service ${s.display_name}: ${refusalOf(checked.left)}` : undefined
}

/** Creates or matches a seeded service through the API's provisioning use case (a deleted one stays deleted). */
export const provisionCardServices = async (deps: PaymentServiceDeps, entries: readonly SeedPaymentService[]): Promise<void> => {
  const provision = makeProvisionPaymentService(deps)
  for (const s of cardServicesOf(entries))
    await runTask(provision({ ...s, actor: SEED_ACTOR }), `seeding payment service ${s.input.display_name}`)
}

/**
 * The default set-up's card services: an account the seed names no card service for gets the
 * default one when it has none (so an account, or a deployment, from before card services gets
 * it too, and one changed through the API or the CLI is left as it is). For an account the seed
 * names card services for, the seed says what they are: a default one an earlier start made is
 * deactivated.
 */
export const applyDefaultCardServices = async (
  deps: PaymentServiceDeps,
  accounts: readonly string[],
  seeded: readonly SeedPaymentService[],
): Promise<void> => {
  const named = cardServicesOf(seeded)
  for (const account of new Set(accounts)) {
    const fallback = defaultCardService(account)
    const cmd = { merchantAccountId: account, actor: SEED_ACTOR }
    if (!named.some((s) => s.merchantAccountId === account)) {
      const existing = await runTask(deps.cardServices.listForAccount(account), 'reading payment services')
      if (existing.length === 0)
        await runTask(makeProvisionPaymentService(deps)({ ...cmd, ...fallback }), `seeding the default payment service of ${account}`)
      continue
    }
    const stored = O.toNullable(await runTask(deps.cardServices.findById(account, fallback.id), 'reading a payment service'))
    if (stored?.active === true && stored.deleted_at === undefined && !named.some((s) => s.id === fallback.id))
      await runTask(
        makeUpdatePaymentService(deps)({ ...cmd, id: fallback.id, input: { active: false } }),
        `deactivating the default payment service of ${account}`,
      )
  }
}

/** Who the services a new account starts with are made by, in the audit log. */
const ONBOARDING_ACTOR: AuditActor = { id: null, name: 'merchant account creation' }

/**
 * What an account created by API starts with, as the `default` account does: a primary mock gift
 * card service and an active mock card service, each only when the account has none of its kind
 * (so running it again, or for an existing account, changes nothing that is there).
 */
export const onboardMerchantAccount =
  (deps: PaymentServiceDeps & Pick<StoragePorts, 'giftCardServices'>): MerchantAccountOnboarding =>
  (account) =>
  async () => {
    const primary = await deps.giftCardServices.findPrimary(account)()
    if (E.isLeft(primary)) return primary
    if (O.isNone(primary.right)) {
      const service = { gift_card_service_definition_id: 'mock-gift-card' as const, display_name: 'Mock gift cards' }
      const stored = await deps.giftCardServices.upsert({
        merchant_account_id: account,
        primary: true,
        service: {
          type: 'gift-card-service',
          id: stableUuid('gift-card-service', account, service.gift_card_service_definition_id, service.display_name),
          ...service,
        },
      })()
      if (E.isLeft(stored)) return stored
    }
    const existing = await deps.cardServices.listForAccount(account)()
    if (E.isLeft(existing)) return existing
    if (existing.right.length > 0) return E.right(undefined)
    const made = await makeProvisionPaymentService(deps)({
      merchantAccountId: account,
      actor: ONBOARDING_ACTOR,
      ...defaultCardService(account),
    })()
    // The mock's own settings cannot be refused: anything but storage failing is a bug, answered as storage is.
    return E.isLeft(made)
      ? E.left(made.left._tag === 'Unavailable' ? made.left : unavailable(new Error(`onboarding ${account}: ${made.left._tag}`)))
      : E.right(undefined)
  }
