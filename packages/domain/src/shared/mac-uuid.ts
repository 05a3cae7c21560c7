import { Mac, MacPurpose } from './crypto.ports'

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/** The hex of the first `bytes` bytes of a base64url string (the `Mac` port's output). */
const hexOf = (base64url: string, bytes: number): string => {
  let bits = 0
  let acc = 0
  let hex = ''
  for (const c of base64url) {
    const v = BASE64URL.indexOf(c)
    if (v < 0) throw new Error('not base64url')
    acc = ((acc << 6) | v) & 0xfff
    bits += 6
    if (bits >= 8) {
      bits -= 8
      hex += ((acc >> bits) & 0xff).toString(16).padStart(2, '0')
      if (hex.length === bytes * 2) return hex
    }
  }
  throw new Error(`a MAC of fewer than ${bytes} bytes`)
}

/**
 * A version 4 UUID whose 122 random bits are the first bytes of the MAC of `text` for `purpose`:
 * the same inputs name the same record in every process, and two inputs collide as rarely as two
 * random UUIDs.
 */
export const macUuid = (m: Mac, purpose: MacPurpose, text: string): string => {
  const h = hexOf(m.mac(purpose, text), 16)
  const variant = ((parseInt(h.charAt(16), 16) & 0x3) | 0x8).toString(16)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`
}
