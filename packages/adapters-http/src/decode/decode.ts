import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { toViolations, Violation } from '@orka/domain'

export type Decoded<A> = E.Either<ReadonlyArray<Violation>, A>

/** Decodes with a domain codec and explains failures in the 422 vocabulary, rooted at `root`. */
export const decodeWith =
  <C extends t.Mixed>(codec: C, root: 'body' | 'query' | 'path' | 'header') =>
  (u: unknown): Decoded<t.TypeOf<C>> =>
    E.mapLeft((errors: t.Errors): ReadonlyArray<Violation> => toViolations(root, errors))(codec.decode(u))

/** Query parameters arrive as strings: integer ones are parsed here, their limits stay in the codec. */
export const integerParam = (v: string | string[] | undefined): unknown =>
  typeof v === 'string' && /^[+-]?\d{1,15}$/.test(v) ? Number(v) : v

/** Violations of every part of a request together, or all the parts' values. */
export const violationsOf = (...parts: ReadonlyArray<Decoded<unknown>>): ReadonlyArray<Violation> =>
  parts.flatMap((p) => (E.isLeft(p) ? p.left : []))
