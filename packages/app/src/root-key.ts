import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Config } from './config'

export const VAULT_KEY_FILE = 'vault.key'

/**
 * The root of the vault key and every MAC key. Production always has `VAULT_KEY` (config
 * enforces it). A sandbox without it gets a key per process on the memory store, and on a
 * persistent store one kept in `DATA_DIR`, so that restarts can still open stored cards and
 * honour old cursors. `source` is `'VAULT_KEY'`, `'process'`, or the key file's path.
 */
export const resolveRootKey = (config: Config, persistent: boolean): { key: Buffer; source: string } => {
  if (config.vaultKey !== undefined) return { key: config.vaultKey, source: 'VAULT_KEY' }
  if (!persistent) return { key: randomBytes(32), source: 'process' }
  const path = join(config.dataDir, VAULT_KEY_FILE)
  if (!existsSync(path)) {
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 })
    writeFileSync(path, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' })
  }
  return { key: Buffer.from(readFileSync(path, 'utf8').trim(), 'hex'), source: path }
}
