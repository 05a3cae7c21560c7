import { createHmac, generateKeyPairSync } from 'node:crypto'
import { AddressInfo } from 'node:net'
import { Server } from 'node:http'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { sign, SignOptions } from 'jsonwebtoken'
import { ApiKeyPair, ApiKeyPairRepository, Clock, Mac, unavailable } from '@orka/domain'
import { HttpLog, jwkThumbprint } from '../src'

export interface TestKey {
  readonly privateKeyPem: string
  readonly publicKeyPem: string
  readonly thumbprint: string
}

export const newP521Key = (): TestKey => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-521' })
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString()
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem,
    thumbprint: jwkThumbprint(publicKeyPem),
  }
}

/** 2027-01-15T08:00:00Z, in seconds: tokens carry explicit times against this clock. */
export const T0 = 1_800_000_000

export class FakeClock implements Clock {
  constructor(public nowS: number = T0) {}
  now(): Date {
    return new Date(this.nowS * 1000)
  }
}

/** Deterministic and visibly keyed, enough to tell a hash from a jti. */
export const fakeMac: Mac = { mac: (purpose, data) => createHmac('sha256', `test-${purpose}`).update(data).digest('base64url') }

export const keyPair = (k: TestKey, over: Partial<ApiKeyPair> = {}): ApiKeyPair => ({
  id: '7f0c8a52-2f5e-4c1e-9d53-3a1b2c4d5e6f',
  thumbprint: k.thumbprint,
  public_key_pem: k.publicKeyPem,
  merchant_account_id: null,
  roles: ['administrator'],
  revoked: false,
  created_at: new Date(T0 * 1000).toISOString(),
  ...over,
})

/** An in-test key store: enough of the port for the verifier, with a switch to make it fail. */
export class FakeKeys implements ApiKeyPairRepository {
  readonly byThumbprint = new Map<string, ApiKeyPair>()
  failing = false
  lookups = 0
  constructor(...keys: ApiKeyPair[]) {
    for (const k of keys) this.byThumbprint.set(k.thumbprint, k)
  }
  findByThumbprint(thumbprint: string) {
    this.lookups++
    return this.failing ? TE.left(unavailable(new Error('key store down'))) : TE.right(O.fromNullable(this.byThumbprint.get(thumbprint)))
  }
  upsert(key: ApiKeyPair) {
    this.byThumbprint.set(key.thumbprint, key)
    return TE.right(undefined)
  }
  list() {
    return TE.right([...this.byThumbprint.values()])
  }
  revoke(id: string) {
    const k = [...this.byThumbprint.values()].find((x) => x.id === id)
    if (k) this.byThumbprint.set(k.thumbprint, { ...k, revoked: true })
    return TE.right(k !== undefined)
  }
}

export const mint = (k: TestKey, payload: Record<string, unknown>, options: Partial<SignOptions> = {}): string =>
  sign(payload, k.privateKeyPem, { algorithm: 'ES512', keyid: k.thumbprint, noTimestamp: true, ...options })

export const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url')

/** A token assembled by hand, for shapes no well-behaved library would produce. */
export const handmade = (header: unknown, payload: unknown, signature = 'A'.repeat(176)) => `${b64(header)}.${b64(payload)}.${signature}`

export const hs512WithKey = (header: Record<string, unknown>, payload: unknown, secret: string) => {
  const input = `${b64(header)}.${b64(payload)}`
  return `${input}.${createHmac('sha512', secret).update(input).digest('base64url')}`
}

export interface LogLine {
  readonly level: 'info' | 'warn' | 'error'
  readonly o: Record<string, unknown>
  readonly msg: string | undefined
}
export class CaptureLog implements HttpLog {
  readonly lines: LogLine[] = []
  info(o: object, msg?: string) {
    this.lines.push({ level: 'info', o: o as Record<string, unknown>, msg })
  }
  warn(o: object, msg?: string) {
    this.lines.push({ level: 'warn', o: o as Record<string, unknown>, msg })
  }
  error(o: object, msg?: string) {
    this.lines.push({ level: 'error', o: o as Record<string, unknown>, msg })
  }
}

export const listen = async (app: { listen(port: number): Server }): Promise<{ url: string; close(): Promise<void> }> => {
  const server = app.listen(0)
  await new Promise<void>((resolve) => server.once('listening', () => resolve()))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((e) => (e ? reject(e) : resolve()))
      }),
  }
}
