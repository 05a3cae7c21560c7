import { WEBHOOK_EVENTS } from '@orka/domain'
import { codecToSchema, JsonSchema, SchemaRegistry } from './codec-to-schema'

const SUMMARIES: Record<keyof typeof WEBHOOK_EVENTS, string> = {
  'buyer.created': 'A buyer was added',
  'buyer.updated': 'A buyer was changed',
  'buyer.deleted': 'A buyer was deleted (the payload is the buyer as it was)',
  'gift-card.created': 'A gift card was stored in the vault',
  'gift-card.deleted': 'A stored gift card was deleted (its number and PIN are destroyed)',
  'payment-method.created': 'A card was stored as a payment method (never its number or security code)',
  'payment-method.deleted': 'A stored payment method was deleted (its sealed number is destroyed)',
  'transaction.authorized': 'A transaction was authorized',
  'transaction.captured': 'A transaction was captured (at authorization with `intent: capture`, or later)',
  'transaction.declined': 'A transaction was declined by the card service',
  'transaction.failed': 'A transaction failed: no card service could process it',
  'transaction.voided': 'An authorization was voided',
  'refund.succeeded': 'A refund went through',
  'refund.declined': 'A refund was declined by the card service',
  'refund.failed': 'A refund failed at the card service',
}

/**
 * The OpenAPI 3.1 `webhooks` section: one entry per event Orka sends, its payload from the
 * same codec that encodes it, and the signature headers under the configured prefix.
 */
export const webhookEvents = (headerPrefix: string, registry: SchemaRegistry): Record<string, unknown> => {
  const header = (description: string, schema: JsonSchema) => ({ description, required: true, schema })
  const headers = {
    [`${headerPrefix}-Webhook-ID`]: header('The event id: the same on every attempt, so receivers can drop duplicates.', {
      type: 'string',
      format: 'uuid',
    }),
    [`${headerPrefix}-Webhook-Timestamp`]: header('Unix seconds at which the attempt was signed.', { type: 'string', pattern: '^[0-9]+$' }),
    [`${headerPrefix}-Webhook-Signatures`]: header(
      'Comma-separated lower-case hex HMAC-SHA256 signatures of `<timestamp>.<body>` (the exact bytes received), one per live signing ' +
        'secret, newest first. Accept the event when any one matches a secret you hold and the timestamp is recent.',
      { type: 'string', pattern: '^[0-9a-f]{64}(,[0-9a-f]{64})*$' },
    ),
  }
  return Object.fromEntries(
    Object.entries(WEBHOOK_EVENTS).map(([name, codec]) => [
      name,
      {
        post: {
          summary: SUMMARIES[name as keyof typeof WEBHOOK_EVENTS],
          description:
            `Sent to every active subscription of the event's merchant account and every active instance-wide one. Answer any ` +
            `\`2xx\` within the timeout; anything else is retried on the schedule.`,
          operationId: `${name.replace(/[.-]/g, '_')}_event`,
          tags: ['Webhook subscriptions'],
          security: [],
          parameters: Object.entries(headers).map(([n, h]) => ({ name: n, in: 'header', ...h })),
          requestBody: { required: true, content: { 'application/json': { schema: codecToSchema(codec, registry) } } },
          responses: { '200': { description: 'Any `2xx` acknowledges the event.' } },
        },
      },
    ]),
  )
}
