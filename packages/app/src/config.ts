import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { endpoints } from './connector-endpoints'
import { bool, delays, int, key32, oneOf, origins, text } from './config-codecs'

/**
 * Every setting comes from one environment variable, described once here: the codec decodes
 * it, the default applies when it is unset, and the table documents it (docs/configuration.md, `orka config`).
 */
interface Setting<A, D extends A | undefined = A | undefined> {
  readonly env: string
  readonly codec: t.Type<A, unknown, string>
  readonly default: D
  readonly secret?: boolean
  readonly doc: string
}

/** About 7 days in all (the original API's horizon): quick retries first, then daily ones. */
export const DEFAULT_RETRY_DELAYS_S = [10, 60, 300, 1800, 3600, 7200, 14400, 28800, 43200, 86400, 86400, 86400, 86400, 86400, 86400]

/** More processes than this would mostly contend for storage connections (each has its own pool). */
export const MAX_WORKERS = 64

const s = <A, D extends A | undefined>(x: Setting<A, D>) => x
export const SETTINGS = {
  port: s({ env: 'PORT', codec: int(0, 65535), default: 8080, doc: 'TCP port of the HTTP server' }),
  host: s({ env: 'HOST', codec: text('a host name or address'), default: '0.0.0.0', doc: 'Address the HTTP server binds to' }),
  metricsPort: s({
    env: 'METRICS_PORT',
    codec: int(0, 65535),
    default: 9464,
    doc: 'TCP port of the Prometheus metrics listener (`GET /metrics`), never the API port; `0`: no metrics at all',
  }),
  metricsHost: s({
    env: 'METRICS_HOST',
    codec: text('a host name or address'),
    default: '127.0.0.1',
    doc: 'Address the metrics listener binds to (loopback by default: expose it to the scraper only)',
  }),
  workers: s({
    env: 'WORKERS',
    codec: int(1, MAX_WORKERS),
    default: 1,
    doc: 'Processes serving HTTP (node:cluster); more than 1 needs `MONGODB_URI`',
  }),
  otelTracesExporter: s({
    env: 'OTEL_TRACES_EXPORTER',
    codec: text('exporter names, e.g. otlp'),
    default: undefined,
    doc: '`otlp` turns tracing on (OpenTelemetry, read by its Node SDK with the other `OTEL_*` variables); unset or `none`: no SDK is even loaded',
  }),
  otelExporterOtlpEndpoint: s({
    env: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    codec: text('an http:// or https:// URL', /^https?:\/\/.+/),
    default: undefined,
    doc: "Tracing on: the OpenTelemetry collector's OTLP address, read by the SDK; unset: `http://localhost:4318` (OTLP/HTTP)",
  }),
  otelServiceName: s({
    env: 'OTEL_SERVICE_NAME',
    codec: text('a service name'),
    default: 'orka',
    doc: 'Tracing on: `service.name` of the spans',
  }),
  environment: s({
    env: 'ENVIRONMENT',
    codec: oneOf('sandbox', 'production'),
    default: 'sandbox' as const,
    doc: '`production` refuses the generated dev key and a missing `VAULT_KEY`',
  }),
  mongodbUri: s({
    env: 'MONGODB_URI',
    codec: text('a mongodb:// or mongodb+srv:// URI', /^mongodb(\+srv)?:\/\/.+/),
    default: undefined,
    secret: true,
    doc: 'MongoDB connection string; unset: the embedded in-memory store',
  }),
  mongodbDatabase: s({
    env: 'MONGODB_DATABASE',
    codec: text('a database name', /^[A-Za-z0-9_-]{1,63}$/),
    default: undefined,
    doc: "Database to use; unset: the URI's, else `orka`",
  }),
  lookupCacheMs: s({
    env: 'LOOKUP_CACHE_MS',
    codec: int(0, 60000),
    default: 5000,
    doc: 'MongoDB: how long an instance uses the API key, roles and merchant account it read for a request, and the gift card and card services it read; a key revoked, an account locked or a service changed elsewhere takes effect everywhere within this (0: read every time)',
  }),
  mongodbWriteConcern: s({
    env: 'MONGODB_WRITE_CONCERN',
    codec: text("'majority' or a number of members", /^(majority|\d+)$/),
    default: 'majority',
    doc: 'Write concern (journaled)',
  }),
  mongodbReadConcern: s({
    env: 'MONGODB_READ_CONCERN',
    codec: oneOf('majority', 'local', 'linearizable'),
    default: 'majority' as const,
    doc: 'Read concern',
  }),
  mongodbMaxPoolSize: s({ env: 'MONGODB_MAX_POOL_SIZE', codec: int(1, 1000), default: 20, doc: 'Connections per instance' }),
  mongodbTimeoutMs: s({ env: 'MONGODB_TIMEOUT_MS', codec: int(100, 120000), default: 10000, doc: 'Connect and server-selection timeout' }),
  vaultKey: s({
    env: 'VAULT_KEY',
    codec: key32,
    default: undefined,
    secret: true,
    doc:
      'AES-256 key for card data at rest and the root of every MAC key; ' +
      'unset (sandbox only): generated per process in memory, kept in `DATA_DIR` with MongoDB',
  }),
  merchantAccountHeader: s({
    env: 'MERCHANT_ACCOUNT_HEADER',
    codec: text('an HTTP header name', /^[A-Za-z0-9-]+$/),
    default: 'x-orka-merchant-account-id',
    doc: "Request header naming the merchant account (set it to the original API's name for its clients)",
  }),
  corsAllowedOrigins: s({
    env: 'CORS_ALLOWED_ORIGINS',
    codec: origins,
    default: [] as readonly string[],
    doc: 'Origins whose pages may call the browser routes (CORS), as browsers send them; empty: no CORS headers at all',
  }),
  seedFile: s({ env: 'SEED_FILE', codec: text('a file path'), default: undefined, doc: 'JSON provisioning applied idempotently at start' }),
  dataDir: s({ env: 'DATA_DIR', codec: text('a directory path'), default: '.data', doc: 'Where the dev API key is written' }),
  connectorTimeoutMs: s({
    env: 'CONNECTOR_TIMEOUT_MS',
    codec: int(1, 600000),
    default: 10000,
    doc: 'Time a gift card or card service has to answer a call before the connector gives up (gift cards: 504)',
  }),
  connectorMaxConnections: s({
    env: 'CONNECTOR_MAX_CONNECTIONS',
    codec: int(1, 1000),
    default: 32,
    doc: 'Calls one connector has in flight to its provider at most, per instance: the others wait their turn within `CONNECTOR_TIMEOUT_MS` (a provider that slows down holds that many sockets, not every request)',
  }),
  publicUrl: s({
    env: 'PUBLIC_URL',
    codec: text('an http:// or https:// base URL, without query or fragment', /^https?:\/\/[^\s?#@]+[^\s?#@/]$/),
    default: undefined,
    doc: "Orka's base URL as payment providers reach it: the start of each payment service's `webhook_url` (unset: none is shown)",
  }),
  connectorEndpoints: s({
    env: 'CONNECTOR_ENDPOINTS',
    codec: endpoints,
    default: {},
    // A URL pasted in may carry credentials (refused, and never repeated in the error).
    secret: true,
    doc: "Where connectors send their calls instead of their providers' own APIs, as connector-id=base-url pairs (tests, private gateways); operator configuration only, never an API field",
  }),
  idempotencyReplayS: s({
    env: 'IDEMPOTENCY_TTL_S',
    codec: int(1, 30 * 86400),
    default: 86400,
    doc: 'How long an idempotency key replays its first response',
  }),
  idempotencyLeaseS: s({
    env: 'IDEMPOTENCY_LEASE_S',
    codec: int(1, 3600),
    default: 120,
    doc: 'How long an unfinished request holds its idempotency key if its process dies',
  }),
  embedRateLimit: s({
    env: 'EMBED_RATE_LIMIT',
    codec: int(1, 1000000),
    default: 50,
    doc: 'Requests an `embed` token (or checkout session) may make per window',
  }),
  rateLimitWindowS: s({ env: 'RATE_LIMIT_WINDOW_S', codec: int(1, 86400), default: 60, doc: 'Rolling rate-limit window in seconds' }),
  rateLimitHoldMs: s({
    env: 'RATE_LIMIT_HOLD_MS',
    codec: int(0, 10000),
    default: 1000,
    doc: 'How long a `429` of a rate limit is held before it is sent (at most its `Retry-After`), so that a flood from one token cannot take the CPU from other requests; `0`: at once',
  }),
  shutdownTimeoutMs: s({
    env: 'SHUTDOWN_TIMEOUT_MS',
    codec: int(0, 600000),
    default: 10000,
    doc: 'On SIGTERM/SIGINT, how long in-flight requests may take to finish before connections are cut',
  }),
  maxTokenLifetimeS: s({
    env: 'MAX_TOKEN_LIFETIME_S',
    codec: int(60, 30 * 86400),
    default: 86400,
    doc: 'Longest a token may live: an `exp` further than this beyond its `iat` (or beyond now without `iat`) is refused',
  }),
  headersTimeoutMs: s({
    env: 'HEADERS_TIMEOUT_MS',
    codec: int(1000, 600000),
    default: 10000,
    doc: "Time a client has to send a request's headers; then the connection is closed (`408` if nothing was answered yet)",
  }),
  requestTimeoutMs: s({
    env: 'REQUEST_TIMEOUT_MS',
    codec: int(1000, 3600000),
    default: 30000,
    doc: 'Time a client has to send a whole request, body included; then `408` and the connection is closed',
  }),
  keepAliveTimeoutMs: s({
    env: 'KEEP_ALIVE_TIMEOUT_MS',
    codec: int(100, 600000),
    default: 5000,
    doc: 'How long an idle kept-alive connection stays open',
  }),
  maxConnections: s({
    env: 'MAX_CONNECTIONS',
    codec: int(1, 1000000),
    default: 10000,
    doc: 'Connections accepted at once per instance; more are closed at once',
  }),
  storageTimeoutMs: s({
    env: 'STORAGE_TIMEOUT_MS',
    codec: int(100, 120000),
    default: 5000,
    doc: 'Time any one storage call may take; then the request answers `500` with `Retry-After`',
  }),
  maxBodyBytes: s({ env: 'MAX_BODY_BYTES', codec: int(1024, 10485760), default: 65536, doc: 'Largest request body accepted' }),
  tokenCacheSize: s({
    env: 'TOKEN_CACHE_SIZE',
    codec: int(0, 1000000),
    default: 10000,
    doc: 'Verified tokens kept in memory until they expire',
  }),
  webhookHeaderPrefix: s({
    env: 'WEBHOOK_HEADER_PREFIX',
    codec: text('an HTTP header name prefix', /^[A-Za-z0-9][A-Za-z0-9-]{0,40}$/),
    default: 'X-Orka',
    doc: "Prefix of the `-Webhook-ID`, `-Webhook-Timestamp` and `-Webhook-Signatures` headers (the original API's for its receivers)",
  }),
  webhookTimeoutMs: s({
    env: 'WEBHOOK_TIMEOUT_MS',
    codec: int(100, 60000),
    default: 5000,
    doc: 'Time a whole delivery attempt may take (token fetch, connect, answer) before it fails as `timeout`',
  }),
  webhookRetryDelaysS: s({
    env: 'WEBHOOK_RETRY_DELAYS_S',
    codec: delays,
    default: DEFAULT_RETRY_DELAYS_S,
    doc: 'Delays before each retry of a failed delivery, in seconds, each up to 10 % later (jitter); default: 10 s to 1 day, about 7 days in all',
  }),
  webhookConcurrency: s({ env: 'WEBHOOK_CONCURRENCY', codec: int(1, 1000), default: 32, doc: 'Delivery attempts in flight per instance' }),
  webhookConcurrencyPerSubscription: s({
    env: 'WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION',
    codec: int(1, 100),
    default: 4,
    doc: 'Delivery attempts in flight per subscription and instance, so one slow endpoint cannot hold every slot',
  }),
  webhookLeaseS: s({
    env: 'WEBHOOK_LEASE_S',
    codec: int(2, 600),
    default: 10,
    doc: 'How long an attempt holds its delivery; if its process dies, another instance takes it over after this (must exceed `WEBHOOK_TIMEOUT_MS`)',
  }),
  webhookPollIntervalMs: s({
    env: 'WEBHOOK_POLL_INTERVAL_MS',
    codec: int(50, 60000),
    default: 1000,
    doc: 'How often each instance looks for due deliveries (events raised in the instance start at once)',
  }),
  webhookAllowPrivateAddresses: s({
    env: 'WEBHOOK_ALLOW_PRIVATE_ADDRESSES',
    codec: bool,
    default: false,
    doc: '`true` lets webhooks go to loopback, private and link-local addresses and `localhost` (sandboxes and tests only; warned at start)',
  }),
  webhookLogRetentionS: s({
    env: 'WEBHOOK_LOG_RETENTION_S',
    codec: int(86400, 366 * 86400),
    default: 30 * 86400,
    doc: 'How long finished deliveries stay in the delivery log',
  }),
  auditRetentionDays: s({
    env: 'AUDIT_RETENTION_DAYS',
    codec: int(1, 36500),
    default: 365,
    doc: 'How long audit log entries are kept (`GET /audit-logs`); older ones are deleted',
  }),
  logLevel: s({
    env: 'LOG_LEVEL',
    codec: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
    default: 'info' as const,
    doc: 'Log level',
  }),
  logFormat: s({
    env: 'LOG_FORMAT',
    codec: oneOf('json', 'pretty'),
    default: undefined,
    doc: '`pretty`: one readable line per event; `json`: JSON lines; unset: pretty when standard output is a terminal, JSON otherwise',
  }),
}

type Settings = typeof SETTINGS
type Value<S> = S extends Setting<infer A, infer D> ? (D extends undefined ? A | undefined : A) : never
export type Config = { readonly [K in keyof Settings]: Value<Settings[K]> }

/** Decodes the environment; every bad variable is reported with what it expects. */
export const loadConfig = (env: Record<string, string | undefined>): E.Either<string[], Config> => {
  const errors: string[] = []
  const out: Record<string, unknown> = {}
  for (const [name, setting] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    const raw = env[setting.env]
    if (raw === undefined || raw === '') {
      out[name] = setting.default
      continue
    }
    const r = setting.codec.decode(raw)
    if (E.isRight(r)) out[name] = r.right
    else errors.push(`${setting.env}: expected ${setting.codec.name}${setting.secret ? '' : `, got '${raw}'`}`)
  }
  const config = out as Config
  if (errors.length === 0 && config.environment === 'production' && config.vaultKey === undefined)
    errors.push('VAULT_KEY: required when ENVIRONMENT is production (32 bytes as 64 hex digits or base64)')
  if (errors.length === 0 && config.workers > 1 && config.mongodbUri === undefined)
    errors.push(
      'WORKERS: more than 1 needs MONGODB_URI: the embedded store lives inside each process, so every worker would have its own data, rate limits and idempotency keys',
    )
  if (errors.length === 0 && config.metricsPort !== 0 && config.metricsPort === config.port)
    errors.push('METRICS_PORT: must differ from PORT (metrics are never served on the API port)')
  if (errors.length === 0 && config.requestTimeoutMs < config.headersTimeoutMs)
    errors.push('REQUEST_TIMEOUT_MS: must be at least HEADERS_TIMEOUT_MS (the whole request includes its headers)')
  if (errors.length === 0 && config.webhookLeaseS * 1000 < config.webhookTimeoutMs + 1000)
    errors.push('WEBHOOK_LEASE_S: must exceed WEBHOOK_TIMEOUT_MS by at least a second, or an attempt could run twice')
  return errors.length > 0 ? E.left(errors) : E.right(config)
}
