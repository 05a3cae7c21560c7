import 'reflect-metadata'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { AddressInfo } from 'node:net'
import { Server } from 'node:http'
import * as E from 'fp-ts/Either'
import { DependencyContainer } from 'tsyringe'
import pino from 'pino'
import {
  ApiKeyPairRepository,
  BuyerRepository,
  Clock,
  GiftCardServiceRepository,
  Mac,
  MerchantAccountRepository,
  RoleRepository,
  SecretBox,
  toViolations,
  WebhookSubscriptionRepository,
} from '@orka/domain'
import { createHttpApp } from '@orka/adapters-http'
import { Config } from './config'
import { buildContainer, get, Overrides, UseCases } from './container'
import { ensureDevKey } from './dev-key'
import { createLogger } from './logger'
import { applyDefaults, applySeed, ProvisioningPorts } from './provision'
import { SeedFile } from './seed-file'

export interface RunningServer {
  readonly url: string
  readonly container: DependencyContainer
  close(): Promise<void>
}

export interface StartOptions extends Overrides {
  readonly logger?: pino.Logger
  /** Last word on the wiring, for tests that need a failing or instrumented adapter. */
  readonly configure?: (c: DependencyContainer) => void
}

const provisioningPorts = (c: DependencyContainer): ProvisioningPorts => ({
  merchantAccounts: get(c, MerchantAccountRepository),
  keys: get(c, ApiKeyPairRepository),
  roles: get(c, RoleRepository),
  services: get(c, GiftCardServiceRepository),
  buyers: get(c, BuyerRepository),
  webhooks: get(c, WebhookSubscriptionRepository),
  box: get(c, SecretBox),
})

export const readSeedFile = (path: string): SeedFile => {
  let json: unknown
  try {
    json = JSON.parse(readFileSync(path, 'utf8'))
  } catch (e) {
    throw new Error(`SEED_FILE ${path}: ${(e as Error).message}`)
  }
  const seed = SeedFile.decode(json)
  if (E.isLeft(seed))
    throw new Error(`SEED_FILE ${path}: ${toViolations('body', seed.left).map((v) => `${v.loc.slice(1).join('.') || '(root)'}: ${v.msg}`).join('; ')}`)
  return seed.right
}

/** Defaults, then the seed file, then (sandbox, when the seed names no keys) the dev key. */
const provision = async (c: DependencyContainer, config: Config, log: pino.Logger) => {
  const ports = provisioningPorts(c)
  const now = get(c, Clock).now()
  await applyDefaults(ports, now)
  const seed = config.seedFile === undefined ? undefined : readSeedFile(config.seedFile)
  if (seed) {
    await applySeed(ports, now, seed)
    log.info({ seedFile: config.seedFile }, 'seed file applied')
  }
  if ((seed?.api_key_pairs ?? []).length > 0) return
  if (config.environment === 'production') {
    log.warn('production: no dev API key is generated; provision API key pairs with SEED_FILE')
    return
  }
  const dev = ensureDevKey(config.dataDir)
  await applySeed(ports, now, { api_key_pairs: [{ public_key_pem: dev.publicKeyPem, roles: ['administrator'] }] })
  log.info(
    { privateKeyFile: dev.path, created: dev.created, mint: `pnpm orka token --key ${dev.path} --scopes '*.read,*.write'` },
    `sandbox dev API key pair ${dev.created ? 'generated' : 'loaded'}: its private key is ${dev.path}; mint a token with: pnpm orka token --key ${dev.path} --scopes '*.read,*.write'`,
  )
}

export const startServer = async (config: Config, o: StartOptions = {}): Promise<RunningServer> => {
  const log = o.logger ?? createLogger(config.logLevel)
  const c = buildContainer(config, o)
  o.configure?.(c)
  log.info({ storage: 'memory', environment: config.environment }, 'storage: embedded in-memory adapters (data is lost on exit)')
  if (config.vaultKey === undefined) log.warn('VAULT_KEY is not set: a key was generated for this process; stored cards will not survive a restart')
  await provision(c, config, log)
  const app = createHttpApp({
    keys: get(c, ApiKeyPairRepository),
    clock: get(c, Clock),
    mac: get(c, Mac),
    log,
    config: {
      merchantAccountHeader: config.merchantAccountHeader.toLowerCase(),
      defaultMerchantAccountId: 'default',
      maxBodyBytes: config.maxBodyBytes,
      tokenCacheSize: config.tokenCacheSize,
    },
    useCases: get(c, UseCases),
  })
  const server: Server = app.listen(config.port, config.host)
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host
  const url = `http://${host}:${port}`
  log.info({ url }, `Orka listening on ${url}`)
  return {
    url,
    container: c,
    close: async () => {
      server.close()
      server.closeIdleConnections()
      await once(server, 'close')
    },
  }
}
