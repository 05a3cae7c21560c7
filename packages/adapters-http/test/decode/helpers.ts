import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { InputRoot, Violation, violationsOfErrors } from '../../src/decode/violations'

/** The 422 `detail[]` a codec gives for `u`; fails the test when `u` decodes. */
export const violationsOf = (codec: t.Decoder<unknown, unknown>, u: unknown, root: InputRoot = 'body'): Violation[] => {
  const r = codec.decode(u)
  if (E.isRight(r)) throw new Error(`expected ${JSON.stringify(u)} to be rejected, it decoded to ${JSON.stringify(r.right)}`)
  return violationsOfErrors(root, r.left)
}

/** What a codec decodes `u` to; fails the test with the violations when it does not. */
export const decoded = <A>(codec: t.Decoder<unknown, A>, u: unknown): A => {
  const r = codec.decode(u)
  if (E.isLeft(r)) throw new Error(`expected ${JSON.stringify(u)} to decode: ${JSON.stringify(violationsOfErrors('body', r.left))}`)
  return r.right
}
