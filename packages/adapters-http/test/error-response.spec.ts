import { expect } from 'chai'
import {
  cardDeclined,
  DomainError,
  duplicate,
  forbidden,
  inFlight,
  invalidRequest,
  notFound,
  problem,
  Quota,
  rateLimited,
  replayed,
  serviceFailed,
  serviceTimeout,
  unauthenticated,
  unavailable,
} from '@orka/domain'
import { toErrorResponse } from '../src'
import { ErrorDetail, errorBody, errorBodyJson, serverErrorResponse } from '../src/error-response'
import { Violation } from '../src/decode/violations'

const body = (status: number, code: string, message: string, details: unknown[] = []) => ({ type: 'error', code, status, message, details })

describe('toErrorResponse', () => {
  const quota: Quota = { policy: 'embed', limit: 50, windowS: 60, remaining: 0, resetS: 17 }

  const cases: readonly [string, DomainError, { status: number; body: unknown; headers: Record<string, string> }][] = [
    [
      'Unauthenticated is a 401 that does not say why',
      unauthenticated('bad signature'),
      { status: 401, body: body(401, 'unauthorized', 'No valid API authentication found'), headers: { 'WWW-Authenticate': 'Bearer' } },
    ],
    ...(['missing_scope', 'restricted_api_key', 'merchant_account', 'locked'] as const).map(
      (reason): [string, DomainError, { status: number; body: unknown; headers: Record<string, string> }] => [
        `Forbidden (${reason}) is the same 403 whatever the reason`,
        forbidden(reason),
        { status: 403, body: body(403, 'forbidden', 'Generic error'), headers: {} },
      ],
    ),
    [
      'NotFound is a 404',
      notFound('WebhookSubscription', 'x'),
      { status: 404, body: body(404, 'not_found', 'The resource could not be found'), headers: {} },
    ],
    [
      'InvalidRequest is a 400 listing its problems',
      invalidRequest(problem('cursor', [], 'bad cursor', 'invalid_cursor'), problem('input', ['buyer_id'], 'no such buyer')),
      {
        status: 400,
        body: body(400, 'bad_request', 'Generic error', [
          { location: 'query', pointer: '/cursor', message: 'bad cursor', type: 'invalid_cursor' },
          { location: 'body', pointer: '/buyer_id', message: 'no such buyer', type: 'value_error' },
        ]),
        headers: {},
      },
    ],
    [
      'CardDeclined is a 400 pointing at the number',
      cardDeclined('The gift card was declined'),
      {
        status: 400,
        body: body(400, 'bad_request', 'Generic error', [
          { location: 'body', pointer: '/number', message: 'The gift card was declined', type: 'card_declined' },
        ]),
        headers: {},
      },
    ],
    [
      'Duplicate is a 409 naming the existing resource',
      duplicate('GiftCard', '4c3b6f1e-8a55-4c39-9b1e-2a7d8c9e0f11'),
      {
        status: 409,
        body: { ...body(409, 'duplicate_record', 'Generic error'), resource_id: '4c3b6f1e-8a55-4c39-9b1e-2a7d8c9e0f11' },
        headers: {},
      },
    ],
    [
      'InFlight is a 425 with Retry-After',
      inFlight(2),
      { status: 425, body: body(425, 'too_early', 'Generic error'), headers: { 'Retry-After': '2' } },
    ],
    [
      'RateLimited is a 429 with Retry-After and the RateLimit headers',
      rateLimited(17, quota),
      {
        status: 429,
        body: body(429, 'too_many_requests', 'Generic error'),
        headers: { 'Retry-After': '17', 'RateLimit-Policy': '"embed";q=50;w=60', RateLimit: '"embed";r=0;t=17' },
      },
    ],
    [
      'a replayed CardDeclined is the same 400, marked as a replay',
      replayed(cardDeclined('declined')),
      {
        status: 400,
        body: body(400, 'bad_request', 'Generic error', [
          { location: 'body', pointer: '/number', message: 'declined', type: 'card_declined' },
        ]),
        headers: { 'Idempotent-Replayed': 'true' },
      },
    ],
    [
      'a replayed Duplicate is the same 409, marked as a replay',
      replayed(duplicate('GiftCard', 'abc')),
      {
        status: 409,
        body: { ...body(409, 'duplicate_record', 'Generic error'), resource_id: 'abc' },
        headers: { 'Idempotent-Replayed': 'true' },
      },
    ],
    [
      'ServiceFailed is a 502 that does not say why',
      serviceFailed('provider said 500', 'gift-card'),
      { status: 502, body: body(502, 'bad_gateway', 'Request could not be processed'), headers: {} },
    ],
    [
      'ServiceTimeout is a 504',
      serviceTimeout('card'),
      { status: 504, body: body(504, 'gateway_timeout', 'Request could not be processed'), headers: {} },
    ],
    [
      'Unavailable is a 500 that leaks nothing of its cause, with Retry-After: 1',
      unavailable(new Error('mongo: connection refused at 10.0.0.3')),
      { status: 500, body: body(500, 'server_error', 'Request could not be processed'), headers: { 'Retry-After': '1' } },
    ],
    [
      'Unavailable because storage timed out is the same 500 with Retry-After: 1',
      unavailable(Object.assign(new Error('storage call timed out after 5000 ms'), { name: 'StorageTimeout' })),
      { status: 500, body: body(500, 'server_error', 'Request could not be processed'), headers: { 'Retry-After': '1' } },
    ],
  ]

  for (const [name, error, expected] of cases)
    it(name, () => {
      const r = toErrorResponse(error)
      expect(r).to.deep.equal(expected)
      if (r.status !== 409) expect(r.body, 'only a 409 has resource_id').not.to.have.property('resource_id')
    })

  it('gives an unexpected exception the same 500 body, without Retry-After (retrying a bug does not help)', () => {
    expect(serverErrorResponse()).to.deep.equal({
      status: 500,
      body: body(500, 'server_error', 'Request could not be processed'),
      headers: {},
    })
  })

  it('maps every variant of DomainError (a missing one would not compile; this guards the list above)', () => {
    const tags = new Set(cases.map(([, e]) => e._tag))
    expect([...tags].sort()).to.deep.equal(
      [
        'CardDeclined',
        'Duplicate',
        'Forbidden',
        'InFlight',
        'InvalidRequest',
        'NotFound',
        'RateLimited',
        'Replayed',
        'ServiceFailed',
        'ServiceTimeout',
        'Unauthenticated',
        'Unavailable',
      ].sort(),
    )
  })
})

describe('errorBodyJson: no error body outgrows its bounds', () => {
  const extra = (i: number): Violation => ({ loc: ['body', `k${i}`], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' })
  const violations = (n: number, at = extra) => Array.from({ length: n }, (_, i) => at(i))
  const parse = (json: string) => JSON.parse(json) as { detail: Violation[] }

  it('sends a body within its bounds exactly as built', () => {
    const body = { detail: violations(50) }
    expect(errorBodyJson(body)).to.equal(JSON.stringify(body))
    expect(errorBodyJson(errorBody(404))).to.equal(JSON.stringify(errorBody(404)))
  })

  it('lists the first 49 of 51 violations, then one saying how many there were, rooted where the next one was', () => {
    const detail = [...violations(50), { loc: ['header', 'idempotency-key'], msg: 'x', type: 'string_too_long' }]
    expect(parse(errorBodyJson({ detail }))).to.deep.equal({
      detail: [...violations(49), { loc: ['body'], msg: '... and 2 more errors (51 in all)', type: 'too_many_errors', ctx: { total: 51 } }],
    })
  })

  it('caps the details of any other error body the same way', () => {
    const detail = (i: number): ErrorDetail => ({ location: 'query', pointer: `/p${i}`, message: 'm', type: 't' })
    const sent = JSON.parse(
      errorBodyJson(
        errorBody(
          400,
          Array.from({ length: 1000 }, (_, i) => detail(i)),
        ),
      ),
    ) as { details: ErrorDetail[] }
    expect(sent).to.deep.equal(
      errorBody(400, [
        ...Array.from({ length: 49 }, (_, i) => detail(i)),
        { location: 'query', pointer: '', message: '... and 951 more errors (1000 in all)', type: 'too_many_errors' },
      ]),
    )
  })

  it('keeps to 64 KiB, escapes counted, dropping entries until it fits and counting them in the last', () => {
    // 2,000 control characters: 12,000 bytes of JSON each, five entries fit.
    const big = (i: number): Violation => ({ ...extra(i), input: '\u0001'.repeat(2000) })
    const json = errorBodyJson({ detail: violations(20, big) })
    expect(Buffer.byteLength(json)).to.be.at.most(64 * 1024)
    const sent = parse(json)
    expect(sent.detail.slice(0, -1)).to.deep.equal(violations(5, big))
    expect(sent.detail.at(-1)).to.deep.equal({
      loc: ['body'],
      msg: '... and 15 more errors (20 in all)',
      type: 'too_many_errors',
      ctx: { total: 20 },
    })
  })

  it('stands a single entry over 64 KiB for itself with the count alone', () => {
    const json = errorBodyJson({ detail: [{ ...extra(0), input: 'x'.repeat(70_000) }] })
    expect(parse(json)).to.deep.equal({
      detail: [{ loc: ['body'], msg: '... and 1 more error (1 in all)', type: 'too_many_errors', ctx: { total: 1 } }],
    })
  })

  it('counts a hundred thousand entries without serialising them all', () => {
    const json = errorBodyJson({ detail: violations(100_000) })
    expect(parse(json).detail).to.have.length(50)
    expect(parse(json).detail.at(-1)).to.deep.include({ msg: '... and 99951 more errors (100000 in all)' })
  })
})
