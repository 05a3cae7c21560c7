import { randomUUID } from 'node:crypto'
import jwt from 'jsonwebtoken'
import { jwkThumbprint } from '@orka/adapters-http'
import { publicKeyOf } from './dev-key'

export interface MintOptions {
  readonly scopes: readonly string[]
  readonly embed?: boolean
  /** The original API's `embed` claim; its `buyer_id` or `buyer_external_identifier` names the only buyer whose stored cards the token reads. */
  readonly embedClaim?: Readonly<Record<string, string | number>>
  readonly expiresInS?: number
  /** Token issue time; defaults to now. */
  readonly now?: Date
}

/** Mints the token the original API's SDKs send: ES512, `kid` = the key's JWK thumbprint, short-lived. */
export const mintToken = (privateKeyPem: string, o: MintOptions): string => {
  const iat = Math.floor((o.now ?? new Date()).getTime() / 1000)
  const scopes = o.embed && !o.scopes.includes('embed') ? [...o.scopes, 'embed'] : [...o.scopes]
  const claims = {
    scopes,
    iat,
    nbf: iat,
    exp: iat + (o.expiresInS ?? 30),
    jti: randomUUID(),
    ...(o.embedClaim ? { embed: o.embedClaim } : {}),
  }
  return jwt.sign(claims, privateKeyPem, {
    algorithm: 'ES512',
    keyid: jwkThumbprint(publicKeyOf(privateKeyPem)),
  })
}
