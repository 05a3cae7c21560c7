import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { AssertionError } from 'chai'

/**
 * What a contract suite gets for each test: a fresh port instance (a fresh database for a
 * persistent adapter) and a way to dispose of it.
 */
export type Harness<P, Extra = {}> = { readonly port: P; teardown(): Promise<void> } & Extra

const show = (u: unknown) => {
  try {
    return JSON.stringify(u)
  } catch {
    return String(u)
  }
}

/** Runs the task and returns its success value; a failure fails the test with the error shown. */
export const right = async <A>(te: TE.TaskEither<unknown, A>): Promise<A> => {
  const r = await te()
  if (E.isLeft(r)) throw new AssertionError(`expected Right, got Left ${show(r.left)}`)
  return r.right
}

/** Runs the task and returns its failure; a success fails the test. */
export const left = async <L>(te: TE.TaskEither<L, unknown>): Promise<L> => {
  const r = await te()
  if (E.isRight(r)) throw new AssertionError(`expected Left, got Right ${show(r.right)}`)
  return r.left
}

/** Ascending by the given string, for comparing sets whose order the port leaves open. */
export const sortedBy =
  <A>(key: (a: A) => string) =>
  (as: readonly A[]): A[] =>
    [...as].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))
