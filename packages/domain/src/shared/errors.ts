import type { RuleViolation } from './codecs'

/**
 * The field of a use case's command a problem is about: `input` (what the client sent to
 * create or change something), `cursor` of a page query, `idempotencyKey`, or an id naming
 * the resource. Where each arrives in a request is the HTTP adapter's business.
 */
export type CommandField = 'input' | 'query' | 'cursor' | 'idempotencyKey' | 'subscriptionId' | 'deliveryId'

/** One thing wrong with a request: the spec's ErrorDetail, before HTTP names where it lies. */
export interface Problem {
  /** `null` when the problem is no input's but the state the request meets (no gift card service). */
  readonly field: CommandField | null
  /** Where inside the field, e.g. `['buyer_id']` inside `input`. */
  readonly path: readonly string[]
  readonly message: string
  readonly type: string
}

/** `embed_buyer`: an embed token reading stored cards without naming a buyer (see `cardReach`). */
export type ForbiddenReason = 'missing_scope' | 'restricted_api_key' | 'merchant_account' | 'locked' | 'embed_buyer' | 'embed_pin'

export interface Unauthenticated {
  readonly _tag: 'Unauthenticated'
  readonly reason: string
}
export interface Forbidden {
  readonly _tag: 'Forbidden'
  readonly reason: ForbiddenReason
}
export interface NotFound {
  readonly _tag: 'NotFound'
  readonly entity: string
  readonly id: string
  /** Set when the missing resource is named by the request's input (a `buyer_id`), not by its path. */
  readonly problem?: Problem
}
/** A well-formed request that is wrong given the current state (unknown buyer, bad cursor, ...). */
export interface InvalidRequest {
  readonly _tag: 'InvalidRequest'
  readonly problems: readonly Problem[]
  /** The message, when not the spec's default: the original API says "Request failed validation" for a payment's input. */
  readonly message?: string
}
/**
 * Input that matches its schema but breaks a rule the codec cannot know (one that depends on
 * configuration, such as where webhooks may be sent). `path` lies inside the request body.
 */
export interface InvalidInput {
  readonly _tag: 'InvalidInput'
  readonly violations: readonly RuleViolation[]
}
/** The request conflicts with the state of an existing resource, which `resourceId` names. */
export interface Conflict {
  readonly _tag: 'Conflict'
  readonly resourceId: string
  readonly problem: Problem
}
export interface CardDeclined {
  readonly _tag: 'CardDeclined'
  readonly reason: string
}
export interface Duplicate {
  readonly _tag: 'Duplicate'
  readonly entity: string
  readonly existingId: string
}
export interface InFlight {
  readonly _tag: 'InFlight'
  readonly retryAfterS: number
}
/** The state of one rate-limit quota, for the RateLimit-Policy / RateLimit headers. */
export interface Quota {
  readonly policy: string
  readonly limit: number
  readonly windowS: number
  readonly remaining: number
  /** Seconds until the oldest counted request leaves the window. */
  readonly resetS: number
}
export interface RateLimited {
  readonly _tag: 'RateLimited'
  readonly retryAfterS: number
  readonly quota: Quota
}
/** Replay of a recorded failure for a reused idempotency key. */
export interface Replayed {
  readonly _tag: 'Replayed'
  readonly error: CardDeclined | Duplicate
}
/** Which kind of service Orka called: what a log line or a metric names when one fails. */
export type ServiceKind = 'card' | 'gift-card'
export interface ServiceFailed {
  readonly _tag: 'ServiceFailed'
  readonly service: ServiceKind
  readonly reason: string
}
export interface ServiceTimeout {
  readonly _tag: 'ServiceTimeout'
  readonly service: ServiceKind
}
/** Storage or another dependency of ours failed: a 500, with the cause kept for the log. */
export interface Unavailable {
  readonly _tag: 'Unavailable'
  readonly cause: unknown
}

/**
 * The closed union of everything a use case can report. Plain tagged values, no HTTP:
 * adapters-http maps each variant to the spec's error body in one exhaustive switch.
 */
export type DomainError =
  | Unauthenticated
  | Forbidden
  | NotFound
  | InvalidRequest
  | InvalidInput
  | Conflict
  | CardDeclined
  | Duplicate
  | InFlight
  | RateLimited
  | Replayed
  | ServiceFailed
  | ServiceTimeout
  | Unavailable

export const unauthenticated = (reason: string): Unauthenticated => ({ _tag: 'Unauthenticated', reason })
export const forbidden = (reason: ForbiddenReason): Forbidden => ({ _tag: 'Forbidden', reason })
export const notFound = (entity: string, id: string, named?: Problem): NotFound =>
  named === undefined ? { _tag: 'NotFound', entity, id } : { _tag: 'NotFound', entity, id, problem: named }
export const invalidRequest = (...problems: Problem[]): InvalidRequest => ({ _tag: 'InvalidRequest', problems })
/** A 400 for input a payment cannot be made with, worded as the original API words it. */
export const failedValidation = (...problems: Problem[]): InvalidRequest => ({
  _tag: 'InvalidRequest',
  problems,
  message: 'Request failed validation',
})
export const problem = (field: CommandField | null, path: readonly string[], message: string, type = 'value_error'): Problem => ({
  field,
  path,
  message,
  type,
})
export const invalidInput = (...violations: RuleViolation[]): InvalidInput => ({ _tag: 'InvalidInput', violations })
export const conflict = (resourceId: string, p: Problem): Conflict => ({ _tag: 'Conflict', resourceId, problem: p })
export const cardDeclined = (reason: string): CardDeclined => ({ _tag: 'CardDeclined', reason })
export const duplicate = (entity: string, existingId: string): Duplicate => ({ _tag: 'Duplicate', entity, existingId })
export const inFlight = (retryAfterS: number): InFlight => ({ _tag: 'InFlight', retryAfterS })
export const rateLimited = (retryAfterS: number, quota: Quota): RateLimited => ({ _tag: 'RateLimited', retryAfterS, quota })
export const replayed = (error: CardDeclined | Duplicate): Replayed => ({ _tag: 'Replayed', error })
export const serviceFailed = (reason: string, service: ServiceKind): ServiceFailed => ({ _tag: 'ServiceFailed', service, reason })
export const serviceTimeout = (service: ServiceKind): ServiceTimeout => ({ _tag: 'ServiceTimeout', service })
export const unavailable = (cause: unknown): Unavailable => ({ _tag: 'Unavailable', cause })

/** A 400 naming what in the input cannot be acted on, and why ("Request failed validation"). */
export const refusedInput = (path: readonly string[], message: string, type = 'invalid'): InvalidRequest =>
  failedValidation(problem('input', [...path], message, type))
