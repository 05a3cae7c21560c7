import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'

export interface GeneratedKeyPair {
  readonly privateKeyPem: string
  readonly publicKeyPem: string
}

/** A public key as tokens name it: its RFC 7638 thumbprint, and its PEM as Orka writes it. */
export interface InspectedPublicKey {
  readonly thumbprint: string
  readonly publicKeyPem: string
}

/** ES512 API keys: made for a client, or brought by one. */
export interface ApiKeyCrypto {
  /** A new ECDSA P-521 key pair (off the event loop: it costs milliseconds). */
  generate(): TE.TaskEither<Unavailable, GeneratedKeyPair>
  /** A PEM-encoded P-521 public key, read; none for anything else, a private key included. */
  inspect(publicKeyPem: string): O.Option<InspectedPublicKey>
}
export const ApiKeyCrypto = token<ApiKeyCrypto>('ApiKeyCrypto')
