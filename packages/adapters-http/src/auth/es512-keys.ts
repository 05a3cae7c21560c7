import { createPublicKey, generateKeyPair } from 'node:crypto'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { ApiKeyCrypto, GeneratedKeyPair, InspectedPublicKey, Unavailable, unavailable } from '@orka/domain'
import { jwkThumbprint } from './jwk-thumbprint'

const PUBLIC_KEY_PEM = /^\s*-----BEGIN PUBLIC KEY-----\r?\n[A-Za-z0-9+/=\r\n]+-----END PUBLIC KEY-----\s*$/

/** The keys tokens are verified with (see `verify-token`): made on the thread pool, read from a PEM the client sends. */
export class Es512Keys implements ApiKeyCrypto {
  generate(): TE.TaskEither<Unavailable, GeneratedKeyPair> {
    return () =>
      new Promise((resolve) => {
        generateKeyPair(
          'ec',
          { namedCurve: 'P-521', privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } },
          (err, publicKeyPem, privateKeyPem) => {
            resolve(err === null ? E.right({ privateKeyPem, publicKeyPem }) : E.left(unavailable(err)))
          },
        )
      })
  }

  /**
   * Only a `PUBLIC KEY` block, and nothing around it: Node would read a private key (or a
   * certificate) as its public half, and a client that sent its private key must be told so.
   */
  inspect(pem: string): O.Option<InspectedPublicKey> {
    if (!PUBLIC_KEY_PEM.test(pem)) return O.none
    try {
      const key = createPublicKey({ key: pem, format: 'pem' })
      if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'secp521r1') return O.none
      const publicKeyPem = key.export({ type: 'spki', format: 'pem' }).toString()
      return O.some({ thumbprint: jwkThumbprint(publicKeyPem), publicKeyPem })
    } catch {
      return O.none
    }
  }
}
