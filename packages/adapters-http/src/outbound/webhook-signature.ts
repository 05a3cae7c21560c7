import { createHmac } from 'node:crypto'

/**
 * The original API's webhook signature: lower-case hex HMAC-SHA256, keyed with the secret as
 * UTF-8 text, over `<timestamp>.<body>` (the exact bytes sent).
 */
export const signWebhook = (secret: string, timestamp: number, body: string): string =>
  createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.${body}`, 'utf8').digest('hex')

/** One signature per secret, newest first, comma-separated without spaces. */
export const signatureHeader = (secrets: readonly string[], timestamp: number, body: string): string =>
  secrets.map((s) => signWebhook(s, timestamp, body)).join(',')
