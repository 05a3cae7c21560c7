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
import { serverErrorResponse } from '../src/error-response'

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
      serviceFailed('provider said 500'),
      { status: 502, body: body(502, 'bad_gateway', 'Request could not be processed'), headers: {} },
    ],
    [
      'ServiceTimeout is a 504',
      serviceTimeout(),
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
