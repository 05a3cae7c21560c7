import * as t from 'io-ts'
import { bool, boundedString, closed, intRange, literal, nullable, RuleViolation, str, tagged, uuid } from '../shared/codecs'
import { SortKey } from '../pagination/page'
import { isBlockedAddress, isLocalHostName } from './webhook-address'

const Url = boundedString('url', { min: 1, max: 2048, pattern: /^https?:\/\/[^\s/?#]+[^\s]*$/, format: 'uri' })
const text = (n: string) => boundedString(n, { min: 1, max: 1000 })
const scope = { scope: nullable(text('scope')) }

/** How Orka authenticates to the merchant's endpoint, as the merchant sends it. */
export const WebhookAuthenticationCreate = tagged('WebhookAuthenticationCreate', 'kind', {
  basic: closed('BasicAuthenticationCreate', { kind: literal('basic'), username: text('username'), password: text('password') }),
  oauth_client_credentials: closed(
    'CredentialsOAuthAuthenticationCreate',
    { kind: literal('oauth_client_credentials'), client_id: text('client_id'), client_secret: text('client_secret'), token_url: Url },
    scope,
  ),
  oauth_password: closed(
    'PasswordOAuthAuthenticationCreate',
    {
      kind: literal('oauth_password'),
      client_id: text('client_id'),
      client_secret: text('client_secret'),
      token_url: Url,
      username: text('username'),
      password: text('password'),
    },
    scope,
  ),
})
export type WebhookAuthenticationCreate = t.TypeOf<typeof WebhookAuthenticationCreate>

export const WebhookSubscriptionCreate = closed(
  'WebhookSubscriptionCreate',
  { url: Url },
  { active: bool, authentication: nullable(WebhookAuthenticationCreate) },
)
export type WebhookSubscriptionCreate = t.TypeOf<typeof WebhookSubscriptionCreate>

/**
 * The original API's update: an absent or null `url`/`active` leaves it as it is; an absent
 * `authentication` leaves it, `null` removes it.
 */
export const WebhookSubscriptionUpdate = closed(
  'WebhookSubscriptionUpdate',
  {},
  { url: nullable(Url), active: nullable(bool), authentication: nullable(WebhookAuthenticationCreate) },
)
export type WebhookSubscriptionUpdate = t.TypeOf<typeof WebhookSubscriptionUpdate>

/** How long, at most, a previous secret keeps signing after a rotation: 7 days, in minutes. */
export const MAX_ROTATION_DELTA_MINUTES = 7 * 24 * 60
/** Body of `rotate-secret`: minutes the previous secret keeps signing (absent, null or 0: none). */
export const WebhookSecretRotation = closed(
  'WebhookSecretRotation',
  {},
  { delta: nullable(intRange('delta', 0, MAX_ROTATION_DELTA_MINUTES)) },
)
export type WebhookSecretRotation = t.TypeOf<typeof WebhookSecretRotation>

/**
 * A subscription as stored: secrets (`secret`, passwords, client secrets) are sealed with the
 * SecretBox; `merchant_account_id` null is an instance-wide subscription. After a rotation the
 * previous secret goes on signing until `previous_secret_expires_at`.
 */
export const WebhookSubscriptionRecord = t.type({
  id: uuid,
  merchant_account_id: nullable(str),
  active: bool,
  url: str,
  authentication: nullable(t.record(t.string, t.union([t.string, t.null]))),
  sealed_secret: str,
  previous_sealed_secret: nullable(str),
  previous_secret_expires_at: nullable(str),
  created_at: str,
})
export type WebhookSubscriptionRecord = t.TypeOf<typeof WebhookSubscriptionRecord>

const MASK = literal('********')
const authType = { type: literal('webhook-authentication') }
/** The wire shape of a subscription (reference excerpt's WebhookSubscription). */
export const WebhookSubscription = closed(
  'WebhookSubscription',
  { id: uuid, active: bool, url: str, rotating: bool },
  {
    type: literal('webhook-subscription'),
    merchant_account_id: nullable(str),
    authentication: nullable(
      tagged('WebhookAuthentication', 'kind', {
        basic: closed('BasicAuthentication', { kind: literal('basic'), username: str }, { ...authType, password: MASK }),
        oauth_client_credentials: closed(
          'CredentialsOAuthAuthentication',
          { kind: literal('oauth_client_credentials'), client_id: str, token_url: str },
          { ...authType, client_secret: MASK, scope: nullable(str) },
        ),
        oauth_password: closed(
          'PasswordOAuthAuthentication',
          { kind: literal('oauth_password'), client_id: str, token_url: str, username: str },
          { ...authType, client_secret: MASK, scope: nullable(str), password: MASK },
        ),
      }),
    ),
    secret: nullable(str),
    creator: nullable(closed('Creator', { id: uuid, name: str, email_address: str })),
  },
)
export type WebhookSubscription = t.TypeOf<typeof WebhookSubscription>

export const webhookSortKey = (w: WebhookSubscriptionRecord): SortKey => [w.created_at, w.id]

const SECRET_FIELDS = ['password', 'client_secret'] as const

/** Seals the secrets of an authentication config before it is stored. */
export const sealAuthentication = (a: WebhookAuthenticationCreate, seal: (s: string) => string): Record<string, string | null> => {
  const out: Record<string, string | null> = { ...(a as Record<string, string | null>) }
  for (const f of SECRET_FIELDS) if (typeof out[f] === 'string') out[f] = seal(out[f])
  return out
}

/** Whether the previous secret still signs at `now`. */
export const isRotating = (r: WebhookSubscriptionRecord, now: Date): boolean =>
  r.previous_sealed_secret !== null && r.previous_secret_expires_at !== null && Date.parse(r.previous_secret_expires_at) > now.getTime()

/** The secrets that sign a delivery at `now`: the current one first, then the previous one while it lives. */
export const signingSecrets = (r: WebhookSubscriptionRecord, open: (s: string) => string, now: Date): string[] => {
  const previous = r.previous_sealed_secret
  return [open(r.sealed_secret), ...(previous !== null && isRotating(r, now) ? [open(previous)] : [])]
}

/** The authentication as the endpoint needs it, secrets opened; only ever handed to the sender. */
export const openAuthentication = (r: WebhookSubscriptionRecord, open: (s: string) => string): WebhookAuthenticationCreate | null =>
  r.authentication === null
    ? null
    : (Object.fromEntries(
        Object.entries(r.authentication).map(([k, v]) => [
          k,
          (SECRET_FIELDS as readonly string[]).includes(k) && typeof v === 'string' ? open(v) : v,
        ]),
      ) as WebhookAuthenticationCreate)

/** The response form: secrets of the endpoint's authentication are masked, never returned. */
export const presentWebhookSubscription = (r: WebhookSubscriptionRecord, open: (s: string) => string, now: Date): WebhookSubscription => {
  const a = r.authentication
  const masked: Record<string, unknown> | null =
    a === null
      ? null
      : {
          type: 'webhook-authentication',
          ...Object.fromEntries(Object.entries(a).map(([k, v]) => [k, (SECRET_FIELDS as readonly string[]).includes(k) ? '********' : v])),
        }
  return {
    type: 'webhook-subscription',
    id: r.id,
    merchant_account_id: r.merchant_account_id,
    active: r.active,
    url: r.url,
    authentication: masked as WebhookSubscription['authentication'],
    secret: open(r.sealed_secret),
    rotating: isRotating(r, now),
    creator: null,
  }
}

/** Where deliveries may go. */
export interface WebhookUrlPolicy {
  /** Production: only `https` URLs. */
  readonly requireHttps: boolean
  /** Sandboxes and tests: loopback and private addresses too. */
  readonly allowPrivateAddresses: boolean
}

/** Why `url` may not receive deliveries (or fetch their tokens) under `policy`, if it may not. */
export const urlRefusal = (url: string, policy: WebhookUrlPolicy): string | undefined => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return 'The URL cannot be parsed'
  }
  if (policy.requireHttps && parsed.protocol !== 'https:') return 'The URL must use https in production'
  if (policy.allowPrivateAddresses) return undefined
  if (isLocalHostName(parsed.hostname) || isBlockedAddress(parsed.hostname))
    return 'The URL must not point at a loopback, private, link-local, unspecified or multicast address'
  return undefined
}

/** The URLs of a subscription's input that `policy` refuses, at their place in the body. */
export const urlViolations = (
  input: { readonly url?: string | null; readonly authentication?: WebhookAuthenticationCreate | null },
  policy: WebhookUrlPolicy,
): RuleViolation[] => {
  const checked: [readonly string[], string | null | undefined][] = [
    [['url'], input.url],
    [
      ['authentication', 'token_url'],
      input.authentication != null && 'token_url' in input.authentication ? input.authentication.token_url : null,
    ],
  ]
  return checked.flatMap(([path, url]) => {
    const why = url == null ? undefined : urlRefusal(url, policy)
    return why === undefined ? [] : [{ path, msg: why }]
  })
}
