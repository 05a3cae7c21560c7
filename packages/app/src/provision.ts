import * as O from 'fp-ts/Option'
import { ApiKeyPair, Mac, reconciliationId, ROLE_CATALOGUE, SecretBox, StoragePorts } from '@orka/domain'
import { jwkThumbprint } from '@orka/adapters-http'
import { randomBytes } from 'node:crypto'
import pino from 'pino'
import { applyDefaultCardServices, provisionCardServices, provisioningDeps, seededServiceProblem } from './card-services'
import { Config } from './config'
import { ensureDevKey } from './dev-key'
import { runTask } from './run-task'
import { readSeedFile, SeedFile } from './seed-file'
import { stableUuid } from './stable-id'

export type ProvisioningPorts = Pick<
  StoragePorts,
  'merchantAccounts' | 'keys' | 'roles' | 'giftCardServices' | 'cardServices' | 'buyers' | 'webhooks' | 'audit'
> & {
  readonly box: SecretBox
  readonly mac: Mac
}

export const DEFAULT_MERCHANT_ACCOUNT_ID = 'default'

type SeedKey = NonNullable<SeedFile['api_key_pairs']>[number]
/** The stored form of a provisioned key: named by its thumbprint unless an id is given. */
export const apiKeyPairOf = (k: SeedKey, createdAt: string): ApiKeyPair => {
  const thumbprint = jwkThumbprint(k.public_key_pem)
  return {
    id: k.id ?? stableUuid('api-key-pair', thumbprint),
    thumbprint,
    public_key_pem: k.public_key_pem,
    merchant_account_id: k.merchant_account_id ?? null,
    roles: k.roles ?? ['administrator'],
    revoked: false,
    created_at: createdAt,
  }
}

/** Refuses a seed naming a role outside the catalogue or a card service Orka has no connector for. */
const checkSeed = (seed: SeedFile): void => {
  const known = new Map(ROLE_CATALOGUE.map((r) => [r.slug, r]))
  for (const k of seed.api_key_pairs ?? []) {
    const roles = k.roles ?? []
    for (const r of roles) if (!known.has(r)) throw new Error(`seed: api key pair role '${r}' is not in the role catalogue`)
    // An add-on role (not standalone-assignable) needs one of the roles it applies to beside it.
    for (const r of roles) {
      const role = known.get(r)
      if (role === undefined || role.is_standalone_assignable) continue
      if (!role.applies_to.some((base) => roles.includes(base)))
        throw new Error(
          `seed: api key pair role '${r}' cannot stand alone; give the key one of: ${role.applies_to.map((b) => `'${b}'`).join(', ')}`,
        )
    }
  }
  for (const s of seed.payment_services ?? []) {
    const problem = seededServiceProblem(s)
    if (problem !== undefined) throw new Error(`seed: ${problem}`)
  }
}

/** The role catalogue, stored (ids kept): also what the CLI does before it makes the first key, as no server may have started yet. */
export const seedRoleCatalogue = async (p: Pick<ProvisioningPorts, 'roles'>): Promise<void> => {
  for (const role of ROLE_CATALOGUE) await runTask(p.roles.upsert(role), `seeding role ${role.slug}`)
}

/**
 * What every instance starts with: the role catalogue, a `default` account with a mock gift
 * card service, and a mock card service for `default` and each account `seed` names, unless
 * `seed` names that account's card services.
 */
export const applyDefaults = async (p: ProvisioningPorts, now: Date, seed: SeedFile = {}): Promise<void> => {
  checkSeed(seed)
  await seedRoleCatalogue(p)
  const accounts = [DEFAULT_MERCHANT_ACCOUNT_ID, ...(seed.merchant_accounts ?? []).map((m) => m.id)]
  await applyDefaultCardServices(provisioningDeps(p, { now: () => now }), accounts, seed.payment_services ?? [])
  const existing = await runTask(p.merchantAccounts.find(DEFAULT_MERCHANT_ACCOUNT_ID), 'reading the default merchant account')
  if (O.isSome(existing)) return
  await applySeed(p, now, {
    merchant_accounts: [{ id: DEFAULT_MERCHANT_ACCOUNT_ID, display_name: 'Default' }],
    gift_card_services: [
      {
        merchant_account_id: DEFAULT_MERCHANT_ACCOUNT_ID,
        gift_card_service_definition_id: 'mock-gift-card',
        display_name: 'Mock gift cards',
        primary: true,
      },
    ],
  })
}

/**
 * Applies a seed idempotently: records are named by their given id or by a stable id derived
 * from what they are, so applying it again (or on another instance) creates nothing twice.
 * Unknown roles and card services Orka has no connector for are refused before anything is written.
 */
export const applySeed = async (p: ProvisioningPorts, now: Date, seed: SeedFile): Promise<void> => {
  checkSeed(seed)
  const at = now.toISOString()

  for (const m of seed.merchant_accounts ?? []) {
    // The seed sets the name and the lock; what the API set (its settings, its creation time) stays.
    const stored = O.toNullable(await runTask(p.merchantAccounts.find(m.id), `reading merchant account ${m.id}`))
    await runTask(
      p.merchantAccounts.upsert({ created_at: at, ...stored, id: m.id, display_name: m.display_name, locked: m.locked ?? false }),
      `seeding merchant account ${m.id}`,
    )
  }

  for (const k of seed.api_key_pairs ?? []) {
    const key = apiKeyPairOf(k, at)
    const stored = O.toNullable(await runTask(p.keys.findByThumbprint(key.thumbprint), 'reading an api key pair'))
    // Revocation is final: a seed that still lists a revoked key does not bring it back at the next start.
    // What the API set on it (its name, a suspension, its last use) stays; the seed sets its account and roles.
    const kept = stored === null ? key : { ...stored, ...key, revoked: stored.revoked, created_at: stored.created_at }
    await runTask(p.keys.upsert(kept), 'seeding an api key pair')
  }

  for (const s of seed.gift_card_services ?? [])
    await runTask(
      p.giftCardServices.upsert({
        merchant_account_id: s.merchant_account_id,
        primary: s.primary ?? false,
        service: {
          type: 'gift-card-service',
          id: s.id ?? stableUuid('gift-card-service', s.merchant_account_id, s.gift_card_service_definition_id, s.display_name),
          gift_card_service_definition_id: s.gift_card_service_definition_id,
          display_name: s.display_name,
        },
      }),
      `seeding gift card service ${s.display_name}`,
    )

  await provisionCardServices(provisioningDeps(p, { now: () => now }), seed.payment_services ?? [])

  for (const b of seed.buyers ?? []) {
    const id = b.id ?? stableUuid('buyer', b.merchant_account_id, b.external_identifier ?? '', b.display_name ?? '')
    const found = await runTask(p.buyers.findById(b.merchant_account_id, id), 'reading a seeded buyer')
    if (O.isSome(found)) continue
    await runTask(
      p.buyers.create({
        type: 'buyer',
        id,
        reconciliation_id: reconciliationId(id),
        merchant_account_id: b.merchant_account_id,
        display_name: b.display_name ?? null,
        external_identifier: b.external_identifier ?? null,
        billing_details: null,
        account_number: null,
        created_at: at,
        updated_at: at,
      }),
      `seeding buyer ${id}`,
    )
  }

  for (const w of seed.webhook_subscriptions ?? [])
    await runTask(
      p.webhooks.ensure({
        id: w.id ?? stableUuid('webhook-subscription', w.merchant_account_id ?? '', w.url),
        merchant_account_id: w.merchant_account_id,
        active: w.active ?? true,
        url: w.url,
        authentication: null,
        sealed_secret: p.box.seal(randomBytes(32).toString('hex')),
        previous_sealed_secret: null,
        previous_secret_expires_at: null,
        created_at: at,
      }),
      `seeding webhook subscription ${w.url}`,
    )
}

/** The sandbox signs with the dev key unless the seed file names key pairs; production never does. */
export const usesDevKey = (config: Config, seed: SeedFile | undefined): boolean =>
  config.environment !== 'production' && (seed?.api_key_pairs ?? []).length === 0

/** At start: defaults, then the seed file, then (sandbox, when the seed names no keys) the dev key. */
export const provisionAtStart = async (ports: ProvisioningPorts, now: Date, config: Config, log: pino.Logger): Promise<void> => {
  const seed = config.seedFile === undefined ? undefined : readSeedFile(config.seedFile)
  await applyDefaults(ports, now, seed)
  if (seed) {
    await applySeed(ports, now, seed)
    log.info({ seedFile: config.seedFile }, 'seed file applied')
  }
  if (!usesDevKey(config, seed)) {
    if (config.environment === 'production' && (seed?.api_key_pairs ?? []).length === 0)
      log.warn('production: no dev API key is generated; provision API key pairs with SEED_FILE')
    return
  }
  const dev = ensureDevKey(config.dataDir)
  await applySeed(ports, now, { api_key_pairs: [{ public_key_pem: dev.publicKeyPem, roles: ['administrator'] }] })
  log.info(
    { privateKeyFile: dev.path, created: dev.created, mint: `pnpm orka token --key ${dev.path} --scopes '*.read,*.write'` },
    `sandbox dev API key pair ${dev.created ? 'generated' : 'loaded'}: its private key is ${dev.path}; ` +
      `mint a token with: pnpm orka token --key ${dev.path} --scopes '*.read,*.write'`,
  )
}
