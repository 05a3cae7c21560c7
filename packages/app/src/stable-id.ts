import { createHash } from 'node:crypto'

/**
 * A UUID derived from what a seeded record is (name-based, RFC 9562 version 8 layout), so
 * applying the same seed twice, or on another instance, names the same records.
 */
export const stableUuid = (...parts: string[]): string => {
  const h = createHash('sha256').update(parts.join('\u0000')).digest()
  h.writeUInt8((h.readUInt8(6) & 0x0f) | 0x80, 6)
  h.writeUInt8((h.readUInt8(8) & 0x3f) | 0x80, 8)
  const x = h.subarray(0, 16).toString('hex')
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`
}
