/** Key derivation: every key the servers and the seed command use, derived from VAULT_KEY. */
import { hkdfSync } from 'node:crypto'
import { Mac, SecretBox } from '@orka/domain'
import { AesGcmSecretBox, HmacMac } from '@orka/adapters-node'

/** Separate keys per use, all derived from VAULT_KEY, so instances sharing it agree on every MAC. */
export const deriveKey = (root: Buffer, info: string) => Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), `orka/${info}`, 32))

/** Seals webhook secrets (and opens them): the seed command needs the servers' box. */
export const vaultBox = (rootKey: Buffer): SecretBox => new AesGcmSecretBox(deriveKey(rootKey, 'vault'))

/** Signs cursors, fingerprints and every other MAC the servers check. */
export const macOf = (rootKey: Buffer): Mac => new HmacMac(deriveKey(rootKey, 'mac'))
