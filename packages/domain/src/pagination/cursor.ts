import * as E from 'fp-ts/Either'
import { Mac } from '../shared/crypto.ports'
import { InvalidRequest, invalidRequest, problem } from '../shared/errors'
import { Seek, SortKey } from './page'

/**
 * Cursors are opaque: base64url JSON of where to seek from, followed by a MAC over that and
 * the list's scope (list name, merchant account, filter). A cursor edited by hand, or replayed
 * against another merchant account or filter, fails its MAC and is a 400.
 */
export interface CursorPosition {
  readonly direction: Seek['direction']
  readonly key: SortKey
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url')
const unb64 = (s: string) => Buffer.from(s, 'base64url').toString('utf8')

export const encodeCursor = (mac: Mac, scope: string, p: CursorPosition): string => {
  const body = b64(JSON.stringify([p.direction === 'forward' ? 'f' : 'b', p.key[0], p.key[1]]))
  return `${body}.${mac.mac('cursor', `${scope}\u0000${body}`)}`
}

const badCursor = (): InvalidRequest =>
  invalidRequest(problem('cursor', [], 'The cursor is not valid for this list; use a cursor from the previous response', 'invalid_cursor'))

/** Compares in time independent of where the strings differ. */
const sameMac = (a: string, b: string) => {
  let diff = a.length ^ b.length
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0)
  return diff === 0
}

export const decodeCursor = (mac: Mac, scope: string, cursor: string): E.Either<InvalidRequest, CursorPosition> => {
  const dot = cursor.indexOf('.')
  if (dot <= 0) return E.left(badCursor())
  const body = cursor.slice(0, dot)
  if (!sameMac(cursor.slice(dot + 1), mac.mac('cursor', `${scope}\u0000${body}`))) return E.left(badCursor())
  try {
    const v: unknown = JSON.parse(unb64(body))
    if (Array.isArray(v) && v.length === 3 && (v[0] === 'f' || v[0] === 'b') && typeof v[1] === 'string' && typeof v[2] === 'string')
      return E.right({ direction: v[0] === 'f' ? 'forward' : 'backward', key: [v[1], v[2]] })
  } catch {
    // a MAC'd body that does not parse can only come from a key change: treat as tampered
  }
  return E.left(badCursor())
}
