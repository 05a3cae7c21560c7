import * as t from 'io-ts'
import { bool, boundedString, closed, literal, nullable, str, tagged, uuid } from '../shared/codecs'
import { SortKey } from '../pagination/page'

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
 * A subscription as stored: secrets (`secret`, passwords, client secrets) are sealed with the
 * SecretBox; `merchant_account_id` null is an instance-wide subscription.
 */
export const WebhookSubscriptionRecord = t.type({
  id: uuid,
  merchant_account_id: nullable(str),
  active: bool,
  url: str,
  authentication: nullable(t.record(t.string, t.union([t.string, t.null]))),
  sealed_secret: str,
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
export const sealAuthentication = (
  a: WebhookAuthenticationCreate,
  seal: (s: string) => string,
): Record<string, string | null> => {
  const out: Record<string, string | null> = { ...(a as Record<string, string | null>) }
  for (const f of SECRET_FIELDS) if (typeof out[f] === 'string') out[f] = seal(out[f] as string)
  return out
}

/** The response form: secrets of the endpoint's authentication are masked, never returned. */
export const presentWebhookSubscription = (r: WebhookSubscriptionRecord, open: (s: string) => string): WebhookSubscription => {
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
    rotating: false,
    creator: null,
  }
}
