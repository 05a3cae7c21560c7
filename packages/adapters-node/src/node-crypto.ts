import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto'
import { Mac, MacPurpose, SecretBox } from '@orka/domain'

/**
 * HMAC-SHA256 under one sub-key per purpose, derived from the master key with HKDF, so a MAC
 * made for one purpose is worthless for another even over the same data.
 */
export class HmacMac implements Mac {
  private readonly keys = new Map<MacPurpose, Buffer>()

  /** `masterKey`: at least 32 random bytes. */
  constructor(private readonly masterKey: Buffer) {
    if (masterKey.length < 32) throw new Error('HmacMac needs a master key of at least 32 bytes')
  }

  mac(purpose: MacPurpose, data: string): string {
    return createHmac('sha256', this.keyFor(purpose)).update(data, 'utf8').digest('base64url')
  }

  private keyFor(purpose: MacPurpose): Buffer {
    let key = this.keys.get(purpose)
    if (key === undefined) {
      key = Buffer.from(hkdfSync('sha256', this.masterKey, Buffer.alloc(0), `orka/mac/${purpose}`, 32))
      this.keys.set(purpose, key)
    }
    return key
  }
}

const VERSION = 'v1'
const IV_BYTES = 12
const TAG_BYTES = 16
/** Binds sealed values to this format, so a value of some other GCM use never opens here. */
const AAD = Buffer.from('orka/secret-box/v1', 'utf8')
const B64URL = /^[A-Za-z0-9_-]*$/

/** Node's decoder skips characters it does not know; only a canonical encoding is accepted. */
const strictBase64url = (s: string): Buffer => {
  const b = Buffer.from(s, 'base64url')
  if (!B64URL.test(s) || b.toString('base64url') !== s) throw new Error('sealed value is not canonical base64url')
  return b
}

/** AES-256-GCM with a random 96-bit IV per value: `v1.<iv>.<tag>.<ciphertext>`, each part base64url. */
export class AesGcmSecretBox implements SecretBox {
  /** `key`: exactly 32 random bytes. */
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('AesGcmSecretBox needs a 32-byte key')
  }

  seal(plaintext: string): string {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES }).setAAD(AAD)
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
    return [VERSION, iv, cipher.getAuthTag(), ciphertext].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.')
  }

  open(sealed: string): string {
    const parts = sealed.split('.')
    if (parts.length !== 4 || parts[0] !== VERSION) throw new Error('not a sealed value of this box')
    const [iv, tag, ciphertext] = parts.slice(1).map(strictBase64url) as [Buffer, Buffer, Buffer]
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error('not a sealed value of this box')
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES }).setAAD(AAD)
    decipher.setAuthTag(tag)
    // `final` throws when the tag does not match: tampering or another key.
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8')
  }
}
