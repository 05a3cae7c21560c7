import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { CursorPosition, decodeCursor, encodeCursor } from '../../src/pagination/cursor'
import { invalidRequest, problem } from '../../src/shared/errors'
import { fakeMac } from '../../src/testing/doubles'

const mac = fakeMac()
const SCOPE = 'roles\u0000acme'
const bad = E.left(
  invalidRequest(problem('cursor', [], 'The cursor is not valid for this list; use a cursor from the previous response', 'invalid_cursor')),
)
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64url')
/** A cursor whose MAC is right for `body`: only a holder of the key could make one. */
const signed = (body: string) => `${body}.${mac.mac('cursor', `${SCOPE}\u0000${body}`)}`

describe('cursors', () => {
  const positions: [string, CursorPosition][] = [
    ['a forward position', { direction: 'forward', key: ['administrator', '0b4f2a4e-5a0e-4a43-9a3e-2f3c1d9e7a01'] }],
    ['a backward position', { direction: 'backward', key: ['2025-01-01T00:00:00.000Z', 'fe26475d-ec3e-4884-9553-f7356683f7f9'] }],
    ['a key with quotes, dots and non-ASCII', { direction: 'forward', key: ['a."b".ç', 'ü.x'] }],
    ['empty key parts', { direction: 'backward', key: ['', ''] }],
  ]
  for (const [name, p] of positions)
    it(`round-trips ${name} through encode and decode`, () => {
      expect(decodeCursor(mac, SCOPE, encodeCursor(mac, SCOPE, p))).to.deep.equal(E.right(p))
    })

  it('encodes the same position to the same cursor', () => {
    const p: CursorPosition = { direction: 'forward', key: ['x', 'y'] }
    expect(encodeCursor(mac, SCOPE, p)).to.equal(encodeCursor(mac, SCOPE, p))
  })

  it('binds the MAC to the scope: the same position gives different cursors in two scopes', () => {
    const p: CursorPosition = { direction: 'forward', key: ['x', 'y'] }
    expect(encodeCursor(mac, SCOPE, p)).to.not.equal(encodeCursor(mac, 'roles\u0000globex', p))
  })

  const rejected: [string, string][] = [
    ['an empty cursor', ''],
    ['a cursor without a dot', 'abc'],
    ['a cursor with an empty body', `.${mac.mac('cursor', `${SCOPE}\u0000`)}`],
    ['a cursor from another scope', encodeCursor(mac, 'roles\u0000globex', { direction: 'forward', key: ['x', 'y'] })],
    ['a cursor with a truncated MAC', encodeCursor(mac, SCOPE, { direction: 'forward', key: ['x', 'y'] }).slice(0, -1)],
    ['a cursor with a lengthened MAC', `${encodeCursor(mac, SCOPE, { direction: 'forward', key: ['x', 'y'] })}0`],
    ['a correctly signed body that is not JSON', signed(b64('{not json'))],
    ['a correctly signed body that is not base64url JSON', signed('!!!')],
    ['a correctly signed body with an unknown direction', signed(b64(JSON.stringify(['x', 'a', 'b'])))],
    ['a correctly signed body with a numeric key part', signed(b64(JSON.stringify(['f', 1, 'b'])))],
    ['a correctly signed body with too few parts', signed(b64(JSON.stringify(['f', 'a'])))],
    ['a correctly signed body that is an object', signed(b64(JSON.stringify({ d: 'f', k: ['a', 'b'] })))],
  ]
  for (const [name, cursor] of rejected)
    it(`rejects ${name} as invalid_cursor at query /cursor`, () => {
      expect(decodeCursor(mac, SCOPE, cursor)).to.deep.equal(bad)
    })
})
