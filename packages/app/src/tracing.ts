import type { Config } from './config'
import { logSafeIds } from './trace-ids'

/** The name of Orka's tracer: every span it makes itself (the MongoDB ones are the instrumentation's). */
export const TRACER_NAME = 'orka'

let on = false

/** Whether this process exports traces: `startTracing` ran. Until then every span is the API's no-op. */
export const tracingOn = (): boolean => on

/** `OTEL_TRACES_EXPORTER` names an exporter other than `none`. Unset is off (the SDK itself would default to `otlp`). */
export const tracingRequested = (config: Pick<Config, 'otelTracesExporter'>): boolean =>
  (config.otelTracesExporter ?? '')
    .split(',')
    .map((e) => e.trim())
    .some((e) => e !== '' && e !== 'none')

/**
 * Starts the OpenTelemetry Node SDK, which reads the standard `OTEL_*` variables itself. Loaded
 * only here, so a process without tracing never loads it; called before anything requires
 * `mongodb`, since the MongoDB instrumentation hooks that `require`. Traces only: metrics are
 * Prometheus's and logs pino's. Resolves to the function that flushes and stops it.
 */
export const startTracing = async (serviceName: string): Promise<() => Promise<void>> => {
  const { NodeSDK, tracing } = await import('@opentelemetry/sdk-node')
  const { MongoDBInstrumentation } = await import('@opentelemetry/instrumentation-mongodb')
  const sdk = new NodeSDK({
    serviceName,
    idGenerator: logSafeIds(new tracing.RandomIdGenerator()),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new MongoDBInstrumentation({
        // Commands outside a request or a webhook attempt (polls, sweeps) would each be a trace of its own.
        requireParentSpan: true,
        // The command's option names only (`find`, `filter`, …), never a value: filters hold ids and codes, inserts whole documents.
        dbStatementSerializer: (cmd) => JSON.stringify(Object.fromEntries(Object.keys(cmd).map((k) => [k, '?']))),
      }),
    ],
  })
  sdk.start()
  on = true
  return () => sdk.shutdown()
}
