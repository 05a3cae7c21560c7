import type * as t from 'io-ts'
import type * as TE from 'fp-ts/TaskEither'
import { EMBED, grants } from '@orka/domain'
import type { Access, Answered, DomainError, RateLimitPolicy, RuleViolation, Scope } from '@orka/domain'
import type { UseCases } from '../types'

/** A path or query parameter: its codec checks it and documents it. */
export interface ParameterDoc<C extends t.Mixed = t.Mixed> {
  readonly codec: C
  readonly description: string
  readonly default?: unknown
  /** Query values arrive as strings: how to read one before its codec checks it (default: as sent). */
  readonly parse?: (raw: string | string[] | undefined) => unknown
}
export type ParameterDocs = Readonly<Record<string, ParameterDoc>>
type Values<P extends ParameterDocs> = { readonly [K in keyof P]: t.TypeOf<P[K]['codec']> }

export interface QueryRule<A> {
  readonly description: string
  readonly check: (query: A) => RuleViolation | undefined
}

export interface Tag {
  readonly name: string
  readonly description: string
}

/**
 * What the handler of an operation receives: the caller's access and every part of the request,
 * decoded. `T`: the operation answers requests without a token, whose access is null.
 */
export interface OperationRequest<P extends ParameterDocs, Q extends ParameterDocs, B, T extends boolean = false> {
  readonly access: T extends true ? Access | null : Access
  readonly params: Values<P>
  /** Only the query parameters that were sent. */
  readonly query: Partial<Values<Q>>
  readonly body: B
  /** The `idempotency-key` header of an `idempotent` operation; null when absent. */
  readonly idempotencyKey: string | null
  /** The `Prefer` header (RFC 7240), which picks a representation on some operations; null when absent. */
  readonly prefer: string | null
}

/**
 * One operation of the API, declared once: the router, the OpenAPI document, the `405`/`Allow`
 * table and the rate limiter all read it. Every request is authenticated, drawn from its rate
 * limit, authorized for `scope`, decoded (path, then query, then headers and body: a `422`),
 * and only then handled; the handler's value is encoded with `success.codec`.
 */
export interface OperationSpec<P extends ParameterDocs, Q extends ParameterDocs, B, S, I extends boolean, T extends boolean = false> {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  /** OpenAPI path template (`{subscription_id}`). */
  readonly path: string
  readonly scope: Scope
  /**
   * Requests without a token are served too: something in the path the caller holds (an
   * unguessable id) is the capability. A token sent anyway is verified and authorized for
   * `scope` as usual (401, 403).
   */
  readonly tokenOptional?: T
  /**
   * Only the merchant's servers may call it: an `embed` token is refused (`403`, once the request
   * is decoded) even though its scopes grant `scope`, and browsers get no CORS for it.
   */
  readonly serverOnly?: true
  /** The reference OpenAPI document's operationId. */
  readonly operationId: string
  /** The quota the operation draws on, for `embed` tokens. */
  readonly rateLimit?: RateLimitPolicy
  readonly doc: { readonly tag: Tag; readonly summary: string; readonly description: string }
  readonly params?: P
  readonly query?: Q
  /**
   * Query parameters of the original API that Orka does not offer: one sent is a `400` naming it,
   * never ignored (a filter ignored would answer an unfiltered list as if it were filtered).
   */
  readonly refusedQuery?: readonly string[]
  /** Rules across query parameters (one of two filters required): a broken one is a `422` on the query. */
  readonly queryRules?: readonly QueryRule<Partial<Values<Q>>>[]
  readonly body?: t.Type<B, unknown>
  /** The body may be left out: then it decodes as `{}`. */
  readonly optionalBody?: boolean
  /** Takes the `idempotency-key` header; the handler answers `Answered`, whose `replayed` sets `Idempotent-Replayed`. */
  readonly idempotent?: I
  /** Answers only errors (an operation of the original API that no connected service offers): no success is documented. */
  readonly errorsOnly?: true
  /** A `204` has no codec and no body. */
  readonly success: { readonly status: 200 | 201 | 202 | 204; readonly codec?: t.Type<S, unknown>; readonly description: string }
  readonly handle: (
    useCases: UseCases,
  ) => (req: OperationRequest<P, Q, B, T>) => TE.TaskEither<DomainError, I extends true ? Answered<S> : S>
}

export type ServedOperation = OperationSpec<ParameterDocs, ParameterDocs, unknown, unknown, boolean, boolean> & {
  readonly unserved?: false
}

/**
 * A rate-limited route of the original API that this service does not implement. It still
 * authenticates and draws on the caller's quota, so a browser cannot iterate over card numbers
 * through it unnoticed, and then answers 404. It is not documented, and never answers 405.
 */
export interface UnservedOperation {
  readonly method: 'POST'
  readonly path: string
  readonly rateLimit: RateLimitPolicy
  readonly unserved: true
}

export type Operation = ServedOperation | UnservedOperation

/** Checks the handler against the declared codecs, then forgets their types: the list holds every operation alike. */
export const defineOperation = <
  P extends ParameterDocs = Record<string, never>,
  Q extends ParameterDocs = Record<string, never>,
  B = undefined,
  S = void,
  I extends boolean = false,
  T extends boolean = false,
>(
  spec: OperationSpec<P, Q, B, S, I, T>,
): ServedOperation => spec as unknown as ServedOperation

export const isServed = (op: Operation): op is ServedOperation => op.unserved !== true

/**
 * A browser may call it: the `embed` scope grants its scope (what a checkout page's token holds)
 * and it is not `serverOnly`, or it needs no token at all (Secure Fields). CORS applies to exactly these operations.
 */
export const isBrowserOperation = (op: Operation): op is ServedOperation =>
  isServed(op) && op.serverOnly !== true && (op.tokenOptional === true || grants([EMBED], op.scope))
