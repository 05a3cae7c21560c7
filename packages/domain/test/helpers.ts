import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { Mac, MacPurpose } from '../src/shared/crypto.ports'
import { InputFault, inputFaults } from '../src/shared/input-faults'

/** The faults a codec finds in `u`; fails the test when `u` decodes. */
export const faultsOf = (codec: t.Decoder<unknown, unknown>, u: unknown): InputFault[] => {
  const r = codec.decode(u)
  if (E.isRight(r)) throw new Error(`expected ${JSON.stringify(u)} to be rejected, it decoded to ${JSON.stringify(r.right)}`)
  return inputFaults(r.left)
}

/** What a codec decodes `u` to; fails the test with the violations when it does not. */
export const decoded = <A>(codec: t.Decoder<unknown, A>, u: unknown): A => {
  const r = codec.decode(u)
  if (E.isLeft(r)) throw new Error(`expected ${JSON.stringify(u)} to decode: ${JSON.stringify(inputFaults(r.left))}`)
  return r.right
}

/** A deterministic stand-in for HMAC: FNV-1a over a secret, the purpose and the data, as hex. */
export const fakeMac = (secret = 'k1'): Mac => ({
  mac(purpose: MacPurpose, data: string): string {
    let h = 0x811c9dc5
    for (const ch of `${secret}\u0000${purpose}\u0000${data}`) {
      h ^= ch.codePointAt(0)!
      h = Math.imul(h, 0x01000193) >>> 0
    }
    return h.toString(16).padStart(8, '0')
  },
})

export const fixedClock = (iso: string) => {
  let now = new Date(iso)
  return {
    now: () => new Date(now.getTime()),
    set: (d: string) => {
      now = new Date(d)
    },
  }
}
