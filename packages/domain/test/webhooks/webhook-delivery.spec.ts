import { expect } from 'chai'
import { afterAttempt, cancelled, deliveriesOf, isSuccess, presentDelivery, WebhookDelivery } from '../../src/webhooks/webhook-delivery'
import { OutboxEntry } from '../../src/webhooks/webhook-event'
import { decoded } from '../helpers'

const NOW = new Date('2025-06-01T12:00:00.000Z')
const schedule = { delaysS: [5, 60, 3600], jitter: 0.1 }

describe('afterAttempt', () => {
  it('ends a delivery whose attempt succeeded', () => {
    expect(afterAttempt({ retries_used: 1 }, true, NOW, schedule, 0.5)).to.deep.equal({
      status: 'delivered',
      next_attempt_at: null,
      retries_used: 1,
    })
  })

  it('schedules the next retry of the schedule after a failure', () => {
    expect(afterAttempt({ retries_used: 0 }, false, NOW, schedule, 0)).to.deep.equal({
      status: 'pending',
      next_attempt_at: '2025-06-01T12:00:05.000Z',
      retries_used: 1,
    })
    expect(afterAttempt({ retries_used: 2 }, false, NOW, schedule, 0).next_attempt_at).to.equal('2025-06-01T13:00:00.000Z')
  })

  it('adds at most the jitter fraction to a delay, never less than the delay', () => {
    expect(afterAttempt({ retries_used: 1 }, false, NOW, schedule, 0.999999).next_attempt_at).to.equal('2025-06-01T12:01:06.000Z')
    expect(afterAttempt({ retries_used: 1 }, false, NOW, schedule, 0.5).next_attempt_at).to.equal('2025-06-01T12:01:03.000Z')
  })

  it('fails a delivery once the schedule is spent', () => {
    expect(afterAttempt({ retries_used: 3 }, false, NOW, schedule, 0)).to.deep.equal({
      status: 'failed',
      next_attempt_at: null,
      retries_used: 3,
    })
  })

  it('cancels without touching the retries spent', () => {
    expect(cancelled({ retries_used: 2 })).to.deep.equal({ status: 'cancelled', next_attempt_at: null, retries_used: 2 })
  })
})

describe('isSuccess', () => {
  it('counts any 2xx without an error, and nothing else', () => {
    expect([200, 201, 204, 299].map((s) => isSuccess({ response_status: s, error: null }))).to.deep.equal([true, true, true, true])
    expect([199, 301, 400, 500].map((s) => isSuccess({ response_status: s, error: null }))).to.deep.equal([false, false, false, false])
    expect(isSuccess({ response_status: null, error: 'timeout' })).to.equal(false)
    expect(isSuccess({ response_status: 200, error: 'timeout' })).to.equal(false)
  })
})

describe('deliveriesOf and presentDelivery', () => {
  const entry: OutboxEntry = {
    event_id: '0b9d2a47-5f0e-4c3a-9a8e-2d1f6b7c8e90',
    event_name: 'buyer.created',
    merchant_account_id: 'acme',
    target_id: '5d1e9c2a-7b3f-4e8d-a6c1-0f2e3d4c5b6a',
    created_at: '2025-06-01T12:00:00.000Z',
    body: '{"type":"event"}',
    deliveries: [
      { id: '11111111-1111-4111-8111-111111111111', subscription_id: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa' },
      { id: '22222222-2222-4222-8222-222222222222', subscription_id: 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb' },
    ],
  }

  it('fans an entry out into pending deliveries due at once, the same every time', () => {
    const ds = deliveriesOf(entry)
    expect(ds).to.deep.equal(deliveriesOf(entry))
    expect(ds[1]).to.deep.equal({
      id: '22222222-2222-4222-8222-222222222222',
      subscription_id: 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb',
      merchant_account_id: 'acme',
      event_id: entry.event_id,
      event_name: 'buyer.created',
      body: '{"type":"event"}',
      status: 'pending',
      attempts: [],
      next_attempt_at: '2025-06-01T12:00:00.000Z',
      retries_used: 0,
      created_at: '2025-06-01T12:00:00.000Z',
      updated_at: '2025-06-01T12:00:00.000Z',
    })
  })

  it('shows a delivery without its body or account, in a shape its wire codec accepts', () => {
    const shown = presentDelivery({
      ...deliveriesOf(entry)[0]!,
      status: 'failed',
      next_attempt_at: null,
      attempts: [
        {
          attempted_at: '2025-06-01T12:00:00.100Z',
          response_status: 503,
          duration_ms: 12,
          error: 'unexpected_status',
          response_excerpt: 'busy',
        },
      ],
    })
    expect(shown).to.deep.equal({
      type: 'webhook-delivery',
      id: '11111111-1111-4111-8111-111111111111',
      subscription_id: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa',
      event_id: entry.event_id,
      event_name: 'buyer.created',
      status: 'failed',
      attempts: [
        {
          attempted_at: '2025-06-01T12:00:00.100Z',
          response_status: 503,
          duration_ms: 12,
          error: 'unexpected_status',
          response_excerpt: 'busy',
        },
      ],
      next_attempt_at: null,
      created_at: '2025-06-01T12:00:00.000Z',
    })
    expect(decoded(WebhookDelivery, shown)).to.deep.equal(shown)
  })
})
