import type { Metric, Registry } from 'prom-client'

/** One sample as prom-client's registry formats and aggregates it. */
interface Sample {
  readonly metricName: string
  readonly labels: Readonly<Record<string, string | number>>
  readonly value: number
}

/** One label set's buckets (not cumulative: index i counts values in (bucket i-1, bucket i], the last one above every bucket). */
export class LeanSeries {
  private readonly counts: number[]
  private sum = 0
  private count = 0

  constructor(
    private readonly bounds: readonly number[],
    readonly labels: Readonly<Record<string, string>>,
  ) {
    this.counts = new Array<number>(bounds.length + 1).fill(0)
  }

  observe(value: number): void {
    let i = 0
    while (i < this.bounds.length && value > (this.bounds[i] ?? Infinity)) i++
    this.counts[i] = (this.counts[i] ?? 0) + 1
    this.sum += value
    this.count++
  }

  values(name: string): Sample[] {
    let acc = 0
    const out: Sample[] = this.bounds.map((le, i) => {
      acc += this.counts[i] ?? 0
      return { metricName: `${name}_bucket`, labels: { ...this.labels, le }, value: acc }
    })
    out.push(
      { metricName: `${name}_bucket`, labels: { ...this.labels, le: '+Inf' }, value: this.count },
      { metricName: `${name}_sum`, labels: this.labels, value: this.sum },
      { metricName: `${name}_count`, labels: this.labels, value: this.count },
    )
    return out
  }
}

const SERIES = Symbol('series')
type Level = Map<string | symbol, Level | LeanSeries>

/**
 * A histogram for the hot paths (every request, every embedded-store call): a series is looked
 * up once by its label values, then observing is a loop over the buckets. prom-client's own
 * `observe` validates and hashes the labels on every call, about 1.5 µs, five times a
 * `GET /roles` on the embedded store. It is registered as a prom-client metric, so the
 * exposition and the cluster aggregation (summed) are prom-client's, as for every other metric.
 */
export class LeanHistogram<L extends string> {
  readonly type = 'histogram'
  readonly aggregator = 'sum'
  private readonly series: LeanSeries[] = []
  /** One level per label name, then the series: no key string is built per observation. */
  private readonly index: Level = new Map()

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly L[],
    private readonly bounds: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Metric)
  }

  /** The series of these label values, made on first use. */
  labels(values: Readonly<Record<L, string>>): LeanSeries {
    let level = this.index
    for (const name of this.labelNames) {
      let next = level.get(values[name]) as Level | undefined
      if (next === undefined) {
        next = new Map()
        level.set(values[name], next)
      }
      level = next
    }
    let s = level.get(SERIES) as LeanSeries | undefined
    if (s === undefined) {
      s = new LeanSeries(this.bounds, { ...values })
      level.set(SERIES, s)
      this.series.push(s)
    }
    return s
  }

  get() {
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values: this.series.flatMap((s) => s.values(this.name)),
    })
  }

  reset(): void {
    this.series.length = 0
    this.index.clear()
  }
}
