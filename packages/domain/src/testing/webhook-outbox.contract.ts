import { expect } from 'chai'
import { WebhookOutbox } from '../webhooks/webhook-delivery.ports'
import { OutboxEntry } from '../webhooks/webhook-event'
import { dateAt, isoAt, MERCHANT_A, uuidFor } from './fixtures'
import { Harness, right, teardownHarness } from './harness'

export const anOutboxEntry = (o: Partial<OutboxEntry> = {}): OutboxEntry => ({
  event_id: uuidFor(900),
  event_name: 'buyer.created',
  merchant_account_id: MERCHANT_A,
  target_id: uuidFor(901),
  created_at: isoAt(0),
  body: '{"type":"event"}',
  deliveries: [{ id: uuidFor(902), subscription_id: uuidFor(903) }],
  ...o,
})

export const webhookOutboxContract = (name: string, setup: () => Promise<Harness<WebhookOutbox>>) =>
  describe(`WebhookOutbox: ${name}`, () => {
    let h: Harness<WebhookOutbox>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    const at = (n: number) => anOutboxEntry({ event_id: uuidFor(n), created_at: isoAt(n * 1000) })

    it('returns entries created before the instant, oldest first, up to the limit', async () => {
      for (const n of [3, 1, 4, 2]) await right(h.port.add(at(n)))
      expect(await right(h.port.olderThan(dateAt(3500), 10))).to.deep.equal([at(1), at(2), at(3)])
      expect(await right(h.port.olderThan(dateAt(3500), 2))).to.deep.equal([at(1), at(2)])
      expect(await right(h.port.olderThan(dateAt(1000), 10))).to.deep.equal([])
    })

    it('keeps the entry exactly as added, deliveries and body included', async () => {
      const e = anOutboxEntry({
        body: '{"name":"gift-card.created","target":{"id":"x","é":"\\u2028"}}',
        deliveries: [
          { id: uuidFor(1), subscription_id: uuidFor(2) },
          { id: uuidFor(3), subscription_id: uuidFor(4) },
        ],
      })
      await right(h.port.add(e))
      expect(await right(h.port.olderThan(dateAt(1), 10))).to.deep.equal([e])
    })

    it('keeps an entry without deliveries', async () => {
      await right(h.port.add(anOutboxEntry({ deliveries: [] })))
      expect(await right(h.port.olderThan(dateAt(1), 10))).to.deep.equal([anOutboxEntry({ deliveries: [] })])
    })

    it('adding an entry twice stores it once', async () => {
      await right(h.port.add(at(1)))
      await right(h.port.add(at(1)))
      expect(await right(h.port.olderThan(dateAt(10_000), 10))).to.deep.equal([at(1)])
    })

    it('removes an entry, and removing an absent one is not an error', async () => {
      await right(h.port.add(at(1)))
      await right(h.port.add(at(2)))
      await right(h.port.remove(uuidFor(1)))
      await right(h.port.remove(uuidFor(1)))
      await right(h.port.remove(uuidFor(77)))
      expect(await right(h.port.olderThan(dateAt(10_000), 10))).to.deep.equal([at(2)])
    })
  })
