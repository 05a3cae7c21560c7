import { expect } from 'chai'
import { createHmac, hkdfSync } from 'node:crypto'
import { AesGcmSecretBox, HmacMac } from '../src'

describe('HmacMac', () => {
  const master = Buffer.alloc(32, 0x2a)

  it('is HMAC-SHA256 under an HKDF sub-key per purpose, in base64url', () => {
    const subKey = Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), 'orka/mac/card-fingerprint', 32))
    const expected = createHmac('sha256', subKey).update('6036280000001234').digest('base64url')
    expect(new HmacMac(master).mac('card-fingerprint', '6036280000001234')).to.equal(expected)
  })

  it('is not a plain HMAC under the master key', () => {
    const plain = createHmac('sha256', master).update('6036280000001234').digest('base64url')
    expect(new HmacMac(master).mac('card-fingerprint', '6036280000001234')).not.to.equal(plain)
  })

  it('refuses a master key shorter than 32 bytes', () => {
    expect(() => new HmacMac(Buffer.alloc(31))).to.throw('at least 32 bytes')
  })
})

describe('AesGcmSecretBox', () => {
  const box = new AesGcmSecretBox(Buffer.alloc(32, 0x17))
  const b64url = (s: string) => Buffer.from(s, 'base64url')

  it('seals as v1.<12-byte iv>.<16-byte tag>.<ciphertext>, all base64url', () => {
    const parts = box.seal('6036280000001234').split('.')
    expect(parts).to.have.length(4)
    expect(parts[0]).to.equal('v1')
    for (const p of parts.slice(1)) expect(p).to.match(/^[A-Za-z0-9_-]+$/)
    expect(b64url(parts[1]!)).to.have.length(12)
    expect(b64url(parts[2]!)).to.have.length(16)
    expect(b64url(parts[3]!)).to.have.length(16)
  })

  it('uses a fresh IV for every value', () => {
    const ivs = new Set(Array.from({ length: 50 }, () => box.seal('x').split('.')[1]))
    expect(ivs.size).to.equal(50)
  })

  it('rejects another version or a wrong shape', () => {
    const [, iv, tag, ct] = box.seal('secret').split('.')
    expect(() => box.open(['v2', iv, tag, ct].join('.'))).to.throw('not a sealed value')
    expect(() => box.open(['v1', iv, tag].join('.'))).to.throw('not a sealed value')
    expect(() => box.open(['v1', iv!.slice(0, 8), tag, ct].join('.'))).to.throw()
    expect(() => box.open(['v1', iv, `${tag}=`, ct].join('.'))).to.throw('canonical')
  })

  it('refuses a key that is not 32 bytes', () => {
    expect(() => new AesGcmSecretBox(Buffer.alloc(16))).to.throw('32-byte key')
    expect(() => new AesGcmSecretBox(Buffer.alloc(33))).to.throw('32-byte key')
  })
})
