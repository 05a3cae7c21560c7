import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import * as t from 'io-ts'
import { Filter, MongoBulkWriteError } from 'mongodb'
import { Seek, Unavailable, unavailable } from '@orka/domain'
import { BoundedCollection } from './mongo-collection'

/** A stored document as the adapters see it: a string `_id` and fields still to be decoded. */
export interface Doc {
  _id: string
  [field: string]: unknown
}

/**
 * A storage call that did not finish within its bound. It becomes the cause of an `Unavailable`;
 * the work itself is abandoned, not undone: a write may still complete after it.
 */
export class StorageTimeout extends Error {
  override readonly name = 'StorageTimeout'
  constructor(readonly timeoutMs: number) {
    super(`storage call timed out after ${timeoutMs} ms`)
  }
}

/**
 * `work(signal)`, or a `StorageTimeout` rejection once `timeoutMs` have passed, whichever comes
 * first (no bound when `timeoutMs` is undefined). At the bound `signal` aborts (its reason is
 * the `StorageTimeout`), so that the abandoned work stops: a `BoundedCollection` issues no
 * command after it, and the driver drops what it still queued for it. The timer is cleared as
 * soon as the work settles, and the work's own late outcome is consumed, so an abandoned call
 * never surfaces as an unhandled rejection.
 */
export const withinBound = <A>(work: (signal: AbortSignal) => Promise<A>, timeoutMs: number | undefined): Promise<A> => {
  const abort = new AbortController()
  // A `work` that throws instead of returning a rejected promise rejects `running` the same way.
  const running = new Promise<A>((resolve) => {
    resolve(work(abort.signal))
  })
  if (timeoutMs === undefined) return running
  return new Promise<A>((resolve, reject) => {
    const timer = setTimeout(() => {
      const timeout = new StorageTimeout(timeoutMs)
      abort.abort(timeout)
      reject(timeout)
    }, timeoutMs)
    // Settles as the work did, unless the timeout came first (then this is a no-op).
    const settle = () => {
      clearTimeout(timer)
      resolve(running)
    }
    running.then(settle, settle)
  })
}

/** How an adapter runs its driver interactions: within its store's bound, failures as `Unavailable`. */
export interface StorageCalls {
  /**
   * Runs a driver interaction: whatever it throws (driver error, undecodable document) is
   * `Unavailable`, and so is taking longer than the store's bound (cause `StorageTimeout`):
   * a frozen server costs a request that bound, not the driver's own timeouts. The interaction
   * reaches its collections through the signal it is given (`StoredCollection.within`), so
   * nothing it would still do after the bound is done.
   */
  attempt<A>(f: (signal: AbortSignal) => Promise<A>): TE.TaskEither<Unavailable, A>
  /** The same, for an interaction that can also end in an expected failure. */
  attemptEither<L, A>(f: (signal: AbortSignal) => Promise<E.Either<L, A>>): TE.TaskEither<L | Unavailable, A>
  /** The bounded interaction as a promise (rejected with what it threw, or the `StorageTimeout`): for housekeeping such as sweeps. */
  run<A>(f: (signal: AbortSignal) => Promise<A>): Promise<A>
}

/** The calls of a store with this bound (`operationTimeoutMs`; none for stores opened without one). */
export const storageCalls = (store: { readonly operationTimeoutMs: number | undefined }): StorageCalls => {
  const attempt = <A>(f: (signal: AbortSignal) => Promise<A>): TE.TaskEither<Unavailable, A> =>
    TE.tryCatch(() => withinBound(f, store.operationTimeoutMs), unavailable)
  return {
    attempt,
    run: (f) => withinBound(f, store.operationTimeoutMs),
    attemptEither: <L, A>(f: (signal: AbortSignal) => Promise<E.Either<L, A>>): TE.TaskEither<L | Unavailable, A> =>
      pipe(
        attempt(f),
        TE.flatMap((r): TE.TaskEither<L | Unavailable, A> => TE.fromEither(r)),
      ),
  }
}

const DUPLICATE_KEY_CODES = new Set([11000, 11001, 12582])

/**
 * A unique-index violation. FerretDB 1.24 reports one raised by an update (not an insert) as an
 * InternalError, code 1, carrying PostgreSQL's message, where MongoDB says 11000.
 */
export const isDuplicateKey = (e: unknown): boolean => {
  if (typeof e !== 'object' || e === null) return false
  const { code, message } = e as { code?: unknown; message?: unknown }
  if (typeof code === 'number' && DUPLICATE_KEY_CODES.has(code)) return true
  return code === 1 && typeof message === 'string' && /duplicate key|unique constraint|SQLSTATE 23505/i.test(message)
}

/**
 * An unordered bulk insert that failed only because some documents' keys exist already: every
 * other document was inserted, and no write concern error came with it.
 */
export const onlyDuplicateKeys = (e: unknown): boolean => {
  if (!(e instanceof MongoBulkWriteError)) return false
  const errors = e.result.getWriteErrors()
  return (
    errors.length > 0 &&
    errors.every((w) => isDuplicateKey({ code: w.code, message: w.errmsg })) &&
    e.result.getWriteConcernError() === undefined
  )
}

/** A document read back that its codec rejects: never passed on, reported with where it is. */
export class UndecodableDocument extends Error {
  override readonly name = 'UndecodableDocument'
  constructor(
    readonly collection: string,
    readonly id: unknown,
    readonly paths: readonly string[],
  ) {
    super(`${collection} document ${JSON.stringify(id)} does not decode (at ${paths.join(', ')})`)
  }
}

// Paths only, never values: a stored document may hold sealed card data.
const failedPaths = (errors: t.Errors): string[] => {
  const paths = errors.map((e) =>
    e.context
      .map((c) => c.key)
      .filter((k) => k !== '')
      .join('.'),
  )
  const unique = [...new Set(paths.map((p) => (p === '' ? '(document)' : p)))]
  return unique.length > 5 ? [...unique.slice(0, 5), `${unique.length - 5} more`] : unique
}

/**
 * A document's decoder: `toValue` picks the fields the codec knows (so a field added by a later
 * version is ignored, not passed on) and the domain codec checks them; a failure throws
 * `UndecodableDocument`, which `attempt` turns into `Unavailable`.
 */
export const decoder =
  <A>(collection: string, codec: t.Decoder<unknown, A>, toValue: (doc: Doc) => unknown) =>
  (doc: Doc): A => {
    const r = codec.decode(toValue(doc))
    if (E.isLeft(r)) throw new UndecodableDocument(collection, doc._id, failedPaths(r.left))
    return r.right
  }

/** The listed fields of `doc` that are present. */
export const pick = (doc: Doc, fields: readonly string[]): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const f of fields) if (doc[f] !== undefined) out[f] = doc[f]
  return out
}

/** The property names a domain codec knows: `t.type` props, or a closed codec's required and optional ones. */
export const fieldsOf = (codec: t.Mixed): string[] => {
  const c = codec as unknown as { props?: object; required?: object; optional?: object }
  if (c.props !== undefined) return Object.keys(c.props)
  if (c.required !== undefined && c.optional !== undefined) return [...Object.keys(c.required), ...Object.keys(c.optional)]
  throw new Error(`cannot list the fields of codec ${codec.name}`)
}

/**
 * PostgreSQL, under FerretDB, cannot store U+0000 in a string (SQLSTATE 22P05), while the
 * domain joins key parts with it. Strings the adapters build or must store verbatim are
 * escaped: `%`, `|` and U+0000 become `%25`, `%7C`, `%00`. The mapping is reversible, and no
 * escaped part contains `|`, so `compositeId` is injective.
 */
export const escapeText = (s: string): string =>
  s
    .replace(/[%|]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)
    .split('\u0000')
    .join('%00')
export const unescapeText = (s: string): string => s.replace(/%(25|7C|00)/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))

/** One `_id` for several key parts, e.g. (merchant account, idempotency key). */
export const compositeId = (...parts: readonly string[]): string => parts.map(escapeText).join('|')

/** A query's filter, sort and limit. */
export interface ReadPlan {
  readonly filter: Record<string, unknown>
  readonly sort: Record<string, 1 | -1>
  readonly limit: number
}

/**
 * One keyset read over (`field`, `_id`) as `Seek` defines it, for a list in `order`. Strictly
 * after a key in a descending list is `field < v OR (field = v AND _id < id)`, read in
 * descending order; backward is the mirror image, read in the other direction so the nearest
 * items come first. With an index on (..., field, _id) in either direction, MongoDB starts the
 * index scan at the key and reads about `limit` entries whatever the key's depth.
 */
export const keysetRead = (field: string, order: 'ascending' | 'descending', seek: Seek, tiebreak = '_id'): ReadPlan => {
  const dir: 1 | -1 = (order === 'ascending') === (seek.direction === 'forward') ? 1 : -1
  const [op, bound] = dir === 1 ? ['$gt', '$gte'] : ['$lt', '$lte']
  const filter = O.isSome(seek.from)
    ? {
        // Implied by the $or; stated so that the planner has a range on `field` to start the index scan at.
        [field]: { [bound]: seek.from.value[0] },
        $or: [{ [field]: { [op]: seek.from.value[0] } }, { [field]: seek.from.value[0], [tiebreak]: { [op]: seek.from.value[1] } }],
      }
    : {}
  return { filter, sort: { [field]: dir, [tiebreak]: dir }, limit: seek.limit }
}

/** A BSON date as the driver returns it. */
export const BsonDate = new t.Type<Date, Date, unknown>(
  'Date',
  (u): u is Date => u instanceof Date && !Number.isNaN(u.getTime()),
  (u, c) => (u instanceof Date && !Number.isNaN(u.getTime()) ? t.success(u) : t.failure(u, c)),
  (d) => d,
)

/**
 * Creates or replaces the document with this `_id`. An upsert is not atomic on FerretDB: two
 * racing ones may both try the insert, and the loser sees a duplicate `_id`; by then the
 * document exists, so replacing again settles it.
 */
export const replaceById = async <D extends Doc>(col: BoundedCollection<D>, doc: D, attempts = 5): Promise<void> => {
  for (let i = 1; ; i++) {
    try {
      await col.replaceOne({ _id: doc._id } as Filter<D>, doc, { upsert: true })
      return
    } catch (e) {
      if (!isDuplicateKey(e) || i >= attempts) throw e
    }
  }
}
