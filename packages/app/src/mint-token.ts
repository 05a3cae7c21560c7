import { randomUUID } from 'node:crypto'
import jwt from 'jsonwebtoken'
import { jwkThumbprint } from '@orka/adapters-http'
import { publicKeyOf } from './dev-key'

export interface MintOptions {
  readonly scopes: readonly string[]
  readonly embed?: boolean
  readonly expiresInS?: number
  /** Token issue time; defaults to now. */
  readonly now?: Date
}

/** Mints the token the original API's SDKs send: ES512, `kid` = the key's JWK thumbprint, short-lived. */
export const mintToken = (privateKeyPem: string, o: MintOptions): string => {
  const iat = Math.floor((o.now ?? new Date()).getTime() / 1000)
  const scopes = o.embed && !o.scopes.includes('embed') ? [...o.scopes, 'embed'] : [...o.scopes]
  return jwt.sign({ scopes, iat, nbf: iat, exp: iat + (o.expiresInS ?? 30), jti: randomUUID() }, privateKeyPem, {
    algorithm: 'ES512',
    keyid: jwkThumbprint(publicKeyOf(privateKeyPem)),
  })
}
