import { generateKeyPairSync, createPrivateKey, createPublicKey } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'

export const DEV_KEY_FILE = 'dev-api-key.pem'

export const generateKeyPair = () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-521' })
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  }
}

export const publicKeyOf = (privateKeyPem: string): string =>
  createPublicKey(createPrivateKey(privateKeyPem)).export({ type: 'spki', format: 'pem' }).toString()

/**
 * The sandbox's API key: generated once, kept in `<dataDir>/dev-api-key.pem` (owner-only), and
 * reused on later starts so tokens minted from it keep working.
 */
export const ensureDevKey = (dataDir: string): { path: string; publicKeyPem: string; created: boolean } => {
  const path = join(dataDir, DEV_KEY_FILE)
  if (existsSync(path)) return { path, publicKeyPem: publicKeyOf(readFileSync(path, 'utf8')), created: false }
  const pair = generateKeyPair()
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  writeFileSync(path, pair.privateKeyPem, { mode: 0o600, flag: 'wx' })
  return { path, publicKeyPem: pair.publicKeyPem, created: true }
}
