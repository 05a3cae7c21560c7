import pino from 'pino'
import { Config } from './config'
import { macOf, vaultBox } from './wiring/derived-keys'
import { provisionAtStart } from './provision'
import { resolveRootKey } from './root-key'
import { openStorage } from './storage'

/** The start-up lines about storage and keys: said once per start, by whoever prepared storage. */
export const announceStart = (config: Config, storage: string, rootKeySource: string, log: pino.Logger): void => {
  log.info({ storage, environment: config.environment }, `storage: ${storage}`)
  if (config.webhookAllowPrivateAddresses)
    log.warn(
      'WEBHOOK_ALLOW_PRIVATE_ADDRESSES is true: webhooks may be sent to loopback, private and link-local addresses (sandboxes and tests only)',
    )
  if (rootKeySource === 'process')
    log.warn('VAULT_KEY is not set: a key was generated for this process; stored cards will not survive a restart')
  else if (rootKeySource !== 'VAULT_KEY')
    log.warn({ file: rootKeySource }, `VAULT_KEY is not set: using the sandbox key kept in ${rootKeySource}`)
}

/**
 * What a cluster's primary does once before forking: indexes, the sandbox key files in
 * `DATA_DIR`, defaults, seed file and dev key. Workers then only read them, so nothing races:
 * the key files are created with `wx` (a second creator would fail), and a seeded buyer is a
 * read then an insert (two at once: one fails with a duplicate).
 */
export const prepareStorage = async (config: Config, log: pino.Logger): Promise<void> => {
  const storage = await openStorage(config)
  try {
    const rootKey = resolveRootKey(config, storage.persistent)
    announceStart(config, storage.description, rootKey.source, log)
    await provisionAtStart({ ...storage.ports, box: vaultBox(rootKey.key), mac: macOf(rootKey.key) }, new Date(), config, log)
  } finally {
    await storage.close()
  }
}
