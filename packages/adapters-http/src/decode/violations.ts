import * as t from 'io-ts'
import { codePointLength, InputFault, inputFaults, INVALID_CHARACTER_TYPES, UNNAMED_PROPERTY } from '@orka/domain'
import { messageOf } from './messages'

/** Where a request's input came from: the root of a 422 `loc`. */
export type InputRoot = 'body' | 'query' | 'path' | 'header'

/** One entry of the 422 body's `detail[]`. */
export interface Violation {
  readonly loc: readonly (string | number)[]
  readonly msg: string
  readonly type: string
  readonly input?: unknown
  readonly ctx?: Record<string, unknown>
}

/** Properties whose values are never echoed back, whatever went wrong with them. */
export const SENSITIVE_KEYS: ReadonlySet<string> = new Set([
  'number',
  'pin',
  'password',
  'client_secret',
  'secret',
  'security_code',
  'expiration_date',
])

const isScalar = (u: unknown) => u === null || ['string', 'number', 'boolean'].includes(typeof u)

/** The longest JSON form of an `input` that is echoed, in characters: a longer one would make the answer outgrow the request. */
export const MAX_ECHOED_INPUT = 256
// Measured as sent, escapes included (a control character is six). A string with more than twice
// as many code units has more code points than that: it is not serialised to learn it.
const short = (u: unknown): boolean =>
  (typeof u !== 'string' || u.length <= 2 * MAX_ECHOED_INPUT) && codePointLength(JSON.stringify(u)) <= MAX_ECHOED_INPUT

/**
 * Whether a fault's value may be shown: only a short scalar of a non-sensitive property. A card
 * number or PIN never comes back, whatever shape it was sent in, nor does a value below a name
 * that is not echoed (`{"<card number>": "<pin>"}`), nor the whole input (a body that is a bare
 * string may be a card number).
 */
const echoes = (f: InputFault): boolean =>
  f.path.length > 0 &&
  f.type !== 'missing' &&
  f.type !== 'extra_forbidden' &&
  !INVALID_CHARACTER_TYPES.has(f.type) &&
  !f.path.some((step) => typeof step === 'string' && (SENSITIVE_KEYS.has(step) || step === UNNAMED_PROPERTY)) &&
  isScalar(f.value) &&
  short(f.value)

/**
 * Faults inside an input as the API's 422 `detail[]`, prefixed with where the input came from,
 * each worded by `messageOf`.
 */
export const toViolations = (root: InputRoot, faults: readonly InputFault[]): Violation[] =>
  faults.map((f) => ({
    loc: [root, ...f.path],
    msg: messageOf(f),
    type: f.type,
    ...(echoes(f) ? { input: f.value } : {}),
    ...(f.ctx ? { ctx: f.ctx } : {}),
  }))

/** io-ts errors of a domain codec as the 422 `detail[]` (see `inputFaults`). */
export const violationsOfErrors = (root: InputRoot, errors: t.Errors): Violation[] => toViolations(root, inputFaults(errors))
