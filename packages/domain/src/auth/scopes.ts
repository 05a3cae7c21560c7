/**
 * Scopes are `<area>.read|write`, the wildcards `*.read` / `*.write`, and `embed`: shorthand
 * for what a browser may do. A set of scopes grants a required scope by any of these routes.
 */
export type Scope = string

export const EMBED = 'embed'
/**
 * The scopes an `embed` token holds: enough for a checkout page, nothing that administers. The
 * gift card and payment method scopes are narrowed further by `cardReach`: an embed token reaches only the stored
 * cards of the buyer its `embed` claim names (none without one), and stores cards only for that
 * buyer or none; by number it may activate, store and check any card, rate limited.
 */
export const EMBED_SCOPES: ReadonlySet<Scope> = new Set([
  'gift-cards.read',
  'gift-cards.write',
  'payment-methods.read',
  'payment-methods.write',
  'checkout-sessions.write',
  'transactions.write',
  'payment-options.read',
  'buyers.shipping-details.read',
  'buyers.shipping-details.write',
])

const SCOPE_RE = /^(\*|[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)*)\.(read|write)$/
export const isScope = (s: string): boolean => s === EMBED || SCOPE_RE.test(s)

export const grants = (held: Iterable<Scope>, required: Scope): boolean => {
  const access = required.slice(required.lastIndexOf('.') + 1)
  for (const s of held) {
    if (s === required || s === `*.${access}`) return true
    // A scope grants those below it: `buyers.read` grants `buyers.shipping-details.read`.
    if (s.endsWith(`.${access}`) && required.startsWith(s.slice(0, -access.length))) return true
    if (s === EMBED && EMBED_SCOPES.has(required)) return true
  }
  return false
}

/** Effective permission is the intersection of what the token asks for and what its key may do. */
export type ScopeCheck = 'granted' | 'missing_scope' | 'restricted_api_key'
export const checkScope = (tokenScopes: Iterable<Scope>, keyPermissions: Iterable<Scope>, required: Scope): ScopeCheck =>
  !grants(tokenScopes, required) ? 'missing_scope' : grants(keyPermissions, required) ? 'granted' : 'restricted_api_key'
