import { CardDetails } from './card-details'

/**
 * What pays a payment's card part, as the request or its checkout session names it, before
 * anything is looked up or checked: card data, or a stored payment method by id with the
 * security code sent for it. A payment resolves it once into what it charges (`Charge`).
 */
export type Tender =
  | { readonly kind: 'card'; readonly card: CardDetails }
  | { readonly kind: 'stored-method'; readonly id: string; readonly securityCode: string | null }
