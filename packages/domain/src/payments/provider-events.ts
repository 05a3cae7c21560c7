import * as t from 'io-ts'
import { boundedString, nullable, oneOf } from '../shared/codecs'

/**
 * One thing a provider tells of a call Orka made to it: from a webhook it sent
 * (`CardConnector.readNotification`) or when asked (`CardConnector.lookup`, for `sync`). The
 * connector translates its provider's words into these; the use case applies them
 * (`applyProviderEvents`), each once.
 */
/**
 * Text a provider sent, as Orka keeps it: bounded, no NUL and no lone surrogate (what storage
 * could not keep, or a log could not show). An event with any other is not applied.
 */
const text = boundedString('ProviderText', { max: 1000 })

export const ProviderEvent = t.type({
  /** The provider's id of this event: the same event delivered twice carries the same id. */
  id: text,
  /** The provider's own name for it (`CAPTURE`, `refund.updated`), for the events log. */
  name: text,
  kind: oneOf('ProviderEventKind', ['authorization', 'capture', 'void', 'refund']),
  /** Orka's reference of the call it is about (its idempotency key there); null when the provider gave none. */
  reference: nullable(text),
  /** The provider's id of the authorization it concerns. */
  serviceTransactionId: nullable(text),
  /** The provider's id of the capture, cancel or refund itself. */
  serviceId: nullable(text),
  /** `pending`: the provider has it and has not settled it (a fact for the log, never a step back). */
  outcome: oneOf('ProviderEventOutcome', ['succeeded', 'failed', 'pending']),
  errorCode: nullable(text),
  rawResponseCode: nullable(text),
  rawResponseDescription: nullable(text),
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
