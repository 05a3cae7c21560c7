import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
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
