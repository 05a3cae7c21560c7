import { createHash, createPublicKey } from 'node:crypto'

/**
 * RFC 7638 SHA-256 JWK thumbprint (base64url) of an EC public key: the required members
 * `crv`, `kty`, `x`, `y` in lexicographic order, no whitespace. Tokens name their key by it (`kid`).
 */
export function jwkThumbprint(publicKeyPem: string): string {
  const key = createPublicKey(publicKeyPem)
  if (key.asymmetricKeyType !== 'ec') throw new Error(`expected an EC public key, got ${key.asymmetricKeyType ?? 'a symmetric key'}`)
  const jwk = key.export({ format: 'jwk' })
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y })
  return createHash('sha256').update(canonical, 'utf8').digest('base64url')
}
