import { expect } from 'chai'
import { outboxEntryOf, WEBHOOK_EVENTS } from '../../src/webhooks/webhook-event'
import { aBuyer, aGiftCard } from '../../src/testing/fixtures'
import { decoded } from '../helpers'

describe('outboxEntryOf', () => {
  const at = new Date('2025-06-01T12:00:00.000Z')
  const deliveries = [{ id: '11111111-1111-4111-8111-111111111111', subscription_id: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa' }]

  it('serialises the buyer.created payload once, with the buyer exactly as the API returns it', () => {
    const buyer = aBuyer({ merchant_account_id: 'acme' })
    const entry = outboxEntryOf({
      name: 'buyer.created',
      merchantAccountId: 'acme',
      target: buyer,
      environment: 'sandbox',
      eventId: '0b9d2a47-5f0e-4c3a-9a8e-2d1f6b7c8e90',
      at,
      deliveries,
    })
    const { body, ...rest } = entry
    expect(rest).to.deep.equal({
      event_id: '0b9d2a47-5f0e-4c3a-9a8e-2d1f6b7c8e90',
      event_name: 'buyer.created',
      merchant_account_id: 'acme',
      target_id: buyer.id,
      created_at: '2025-06-01T12:00:00.000Z',
      deliveries,
    })
    expect(JSON.parse(body)).to.deep.equal({
      type: 'event',
      id: '0b9d2a47-5f0e-4c3a-9a8e-2d1f6b7c8e90',
      name: 'buyer.created',
      created_at: '2025-06-01T12:00:00.000Z',
      merchant_account_id: 'acme',
      environment: 'sandbox',
      target: buyer,
    })
    // `type` leads, as in every response.
    expect(body.startsWith('{"type":"event","id":')).to.equal(true)
    expect(body).to.include('"target":{"type":"buyer","id":')
  })

  it('carries a gift card with bin, sub-bin and last four only, valid against its event codec', () => {
    const card = aGiftCard({ bin: '603628', sub_bin: '120', last4: '0042' })
    const entry = outboxEntryOf({
      name: 'gift-card.created',
      merchantAccountId: card.merchant_account_id,
      target: card,
      environment: 'production',
      eventId: '0b9d2a47-5f0e-4c3a-9a8e-2d1f6b7c8e90',
      at,
      deliveries,
    })
    const payload = decoded(WEBHOOK_EVENTS['gift-card.created'], JSON.parse(entry.body))
    expect(payload.target).to.deep.equal(card)
    expect(payload.environment).to.equal('production')
    expect(Object.keys(payload.target)).not.to.include.members(['number', 'pin'])
  })
})
