import * as t from 'io-ts'
import { nullable, oneOf, str } from '../shared/codecs'

/**
 * One thing a provider tells of a call Orka made to it: from a webhook it sent
 * (`CardConnector.readNotification`) or when asked (`CardConnector.lookup`, for `sync`). The
 * connector translates its provider's words into these; the use case applies them
 * (`applyProviderEvents`), each once.
 */
export const ProviderEvent = t.type({
  /** The provider's id of this event: the same event delivered twice carries the same id. */
  id: str,
  /** The provider's own name for it (`CAPTURE`, `refund.updated`), for the events log. */
  name: str,
  kind: oneOf('ProviderEventKind', ['authorization', 'capture', 'void', 'refund']),
  /** Orka's reference of the call it is about (its idempotency key there); null when the provider gave none. */
  reference: nullable(str),
  /** The provider's id of the authorization it concerns. */
  serviceTransactionId: nullable(str),
  /** The provider's id of the capture, cancel or refund itself. */
  serviceId: nullable(str),
  /** `pending`: the provider has it and has not settled it (a fact for the log, never a step back). */
  outcome: oneOf('ProviderEventOutcome', ['succeeded', 'failed', 'pending']),
  errorCode: nullable(str),
  rawResponseCode: nullable(str),
  rawResponseDescription: nullable(str),
})
export type ProviderEvent = t.TypeOf<typeof ProviderEvent>

/** A request a provider sent to a service's `webhook_url`, as received: the body's exact text, for its signature. */
export interface ProviderWebhook {
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>
  readonly body: string
}

/** What a signed webhook says, and what the provider expects to be answered once it is taken. */
export interface ProviderNotification {
  readonly events: readonly ProviderEvent[]
  readonly reply: { readonly contentType: string; readonly body: string }
}

/** A webhook not signed with the service's secret (or with none configured), or not one the provider sends: nothing in it is read. */
export interface WebhookRefused {
  readonly _tag: 'WebhookRefused'
  readonly reason: 'signature' | 'malformed' | 'not-configured'
}
