/** One line of the results table; a case that did not give a figure has only `result`. */
export interface Row {
  readonly id: string
  readonly name: string
  readonly rps?: number
  /** ms */
  readonly p50?: number
  readonly p99?: number
  /** The reference and its figure, e.g. `bare Koa 9,812 req/s`. */
  readonly reference?: string
  readonly ratio?: number
  readonly target?: string
  /** `met`, `not met`, `reference`, `not measured: <why>` or `FAILED: <why>`. */
  readonly result: string
  /** Printed under the table, after the row's id. */
  readonly notes?: readonly string[]
}

export const int = (n: number) => Math.round(n).toLocaleString('en-US')
export const ms = (n: number) => (n >= 100 ? `${Math.round(n)} ms` : n >= 10 ? `${n.toFixed(1)} ms` : `${n.toFixed(2)} ms`)
export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`

/** `met`/`not met` of a ratio against a bound. */
export const judge = (
  ratio: number,
  target: { readonly atLeast: number } | { readonly atMost: number },
): Pick<Row, 'ratio' | 'target' | 'result'> =>
  'atLeast' in target
    ? { ratio, target: `>= ${target.atLeast.toFixed(2)}`, result: ratio >= target.atLeast ? 'met' : 'not met' }
    : { ratio, target: `<= ${target.atMost.toFixed(2)}`, result: ratio <= target.atMost ? 'met' : 'not met' }

const COLUMNS: readonly { readonly title: string; readonly cell: (r: Row) => string; readonly right?: boolean }[] = [
  { title: '#', cell: (r) => r.id },
  { title: 'case', cell: (r) => r.name },
  { title: 'req/s', cell: (r) => (r.rps === undefined ? '' : r.rps < 10 ? r.rps.toFixed(2) : int(r.rps)), right: true },
  { title: 'p50', cell: (r) => (r.p50 === undefined ? '' : ms(r.p50)), right: true },
  { title: 'p99', cell: (r) => (r.p99 === undefined ? '' : ms(r.p99)), right: true },
  { title: 'reference', cell: (r) => r.reference ?? '' },
  { title: 'ratio', cell: (r) => (r.ratio === undefined ? '' : r.ratio.toFixed(2)), right: true },
  { title: 'target', cell: (r) => r.target ?? '' },
  { title: 'result', cell: (r) => r.result },
]

/** The table as fixed-width text (a Markdown-free layout that reads the same in a terminal and a code block). */
export const formatTable = (rows: readonly Row[]): string => {
  const cells = rows.map((r) => COLUMNS.map((c) => c.cell(r)))
  const widths = COLUMNS.map((c, i) =>
    Math.max(c.title.length, ...cells.map((row) => (i === COLUMNS.length - 1 ? 0 : (row[i] ?? '').length))),
  )
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => (i === COLUMNS.length - 1 ? v : COLUMNS[i]?.right ? v.padStart(widths[i] ?? 0) : v.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd()
  const header = line(COLUMNS.map((c) => c.title))
  return [header, '-'.repeat(header.length), ...cells.map(line)].join('\n')
}

/** Each row's notes, as `id: note` lines. */
export const formatNotes = (rows: readonly Row[]): string[] => rows.flatMap((r) => (r.notes ?? []).map((n) => `${r.id}: ${n}`))
