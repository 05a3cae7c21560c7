import { EmbedBuyer, EmbedPins, Principal } from '../auth/authorize'
import { EMBED, grants, Scope } from '../auth/scopes'

/**
 * Whether a token acts for the merchant's server on `scope`: its scopes other than `embed` grant
 * it. An `embed` token holding only `embed` (and what it implies) acts for a browser, within its
 * claim: its buyer's cards, its pinned values. The one rule behind every reach below, `serverOnly`
 * operations and a payment's embed checks.
 */
export const actsAsServer = (principal: Pick<Principal, 'scopes'>, scope: Scope): boolean =>
  grants(
    principal.scopes.filter((s) => s !== EMBED),
    scope,
  )

/** What an embed token's claim lets a browser do on a payment: the buyer it names and the values it pins. */
export interface EmbedClaim {
  readonly buyer: EmbedBuyer | null
  readonly pins: EmbedPins
}

/** The claim a request on `scope` acts within: null for a server's token. */
export const embedClaimOf = (principal: Principal, scope: Scope): EmbedClaim | null =>
  principal.scopes.includes(EMBED) && !actsAsServer(principal, scope)
    ? { buyer: principal.embedBuyer ?? null, pins: principal.embedPins ?? {} }
    : null

/** What a payment request names that an embed claim may pin. */
export interface PinnedPayment {
  readonly amount: number
  readonly currency: string
  readonly checkoutSessionId: string | undefined
  readonly buyer_id?: string | null
  readonly buyer_external_identifier?: string | null
}

/** Whether a payment stays within the claim's pins: each pinned value, and the claim's buyer when it names one. */
export const withinPins = (claim: EmbedClaim, payment: PinnedPayment): boolean => {
  const { buyer, pins } = claim
  return (
    (pins.amount === undefined || pins.amount === payment.amount) &&
    (pins.currency === undefined || pins.currency === payment.currency) &&
    (pins.checkoutSessionId === undefined || pins.checkoutSessionId.toLowerCase() === payment.checkoutSessionId) &&
    (buyer === null ||
      ((buyer.id === null || buyer.id.toLowerCase() === payment.buyer_id) &&
        (buyer.externalIdentifier === null || buyer.externalIdentifier === payment.buyer_external_identifier)))
  )
}
