import type { RawResponse } from './raw-http'
import { encodeComponent, QueryPart } from './requests'
import type { Account, Expectation } from './transaction-expect'
import { ListParam, ListSpec, Slot } from './transaction-spec'

type Json = Record<string, unknown>

/** A page's cursor, and the list (query, filters) it continues. */
export interface ListCursor {
  readonly account: Account
  readonly query: string
  readonly scope: string
  readonly filters: Map<string, unknown>
  readonly cursor: string
}

/**
 * `GET /transactions` from its spec: the query as sent, and the prediction: a 422 naming every
 * parameter that breaks the schema (a repeated one but `status`, each bad status by its place),
 * a 400 for a cursor of another list (the filters are its scope) or none at all, else a page
 * whose every item matches every filter, within its limit.
 */
export const planList = (
  spec: ListSpec,
  account: Account,
  run: { readonly slot: (s: Slot) => string; readonly cursors: ListCursor[]; readonly pick: number },
): { query: QueryPart[]; expect: Expectation; learn: (res: RawResponse) => void } => {
  const value = (p: ListParam) => (p.value instanceof Slot ? run.slot(p.value) : p.value)
  let query = spec.params.map((p) => `${encodeComponent(p.name)}=${p.encoded === true ? value(p) : encodeComponent(value(p))}`).join('&')
  const count = new Map<string, number>()
  for (const p of spec.params) count.set(p.name, (count.get(p.name) ?? 0) + 1)
  const single = [...count].filter(([name, n]) => n > 1 && name !== 'status' && FILTERS.has(name)).map(([name]) => ['query', name])
  // A status fault is named by its place among every status given (each parameter's values, split at commas).
  let offset = 0
  const placed = spec.params.map((p) => {
    const at = offset
    if (p.name === 'status') offset += value(p).split(',').length
    return p.fault && p.name === 'status' ? ['query', 'status', at + Number(p.fault[2])] : p.fault
  })
  let faults = [...placed.flatMap((f) => (f ? [f] : [])), ...single]
  // The list's filters, as the server reads them: every status given, the other filters once.
  let filters = new Map<string, unknown>()
  for (const p of spec.params)
    if (p.filter !== undefined) {
      const meaning = p.value instanceof Slot ? value(p) : p.filter
      filters.set(
        p.name,
        p.name === 'status' ? [...((filters.get('status') as string[] | undefined) ?? []), ...(meaning as string[])] : meaning,
      )
    }
  const scopeOf = (f: Map<string, unknown>) =>
    JSON.stringify(
      [...f].map(([k, v]) => [k, k === 'buyer_id' ? String(v).toLowerCase() : v]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    )
  let cursor: string | null = null
  let stale = false
  if (spec.cursor === 'same' || spec.cursor === 'other') {
    const mine = run.cursors.filter((c) => c.account === account && (spec.cursor === 'same' || c.scope !== scopeOf(filters)))
    const c = mine[run.pick % Math.max(1, mine.length)]
    if (c !== undefined) {
      if (spec.cursor === 'same') ({ query, filters, faults } = { query: c.query, filters: c.filters, faults: [] })
      else stale = true
      cursor = c.cursor
    }
  } else if (spec.cursor === 'garbage') {
    cursor = 'eyJ4IjoxfQ'
    stale = true
  }
  const limit = /(?:^|&)limit=(\d+)(?:&|$)/.exec(query)
  const parts: QueryPart[] = [
    ...(query === '' ? [] : [{ raw: query }]),
    ...(cursor === null ? [] : [{ raw: `cursor=${encodeComponent(cursor)}` }]),
  ]
  const expect: Expectation =
    faults.length > 0
      ? { status: 422, why: 'schema', locs: faults }
      : stale
        ? { status: 400, why: 'cursor of another list', pointers: ['/cursor'], detailType: 'invalid_cursor' }
        : { status: 200, why: 'page', limit: limit ? Number(limit[1]) : 20, item: (item) => outside(item, filters, account) }
  const scope = scopeOf(filters)
  const learn = (res: RawResponse) => {
    if (res.status !== 200) return
    const next = (JSON.parse(res.text) as { next_cursor?: unknown }).next_cursor
    if (typeof next === 'string' && run.cursors.length < 200) run.cursors.push({ account, query, scope, filters, cursor: next })
  }
  return { query: parts, expect, learn }
}

/** The list's parameters (a repeated one is a 422, but `status`). */
export const FILTERS = new Set([
  'status',
  'buyer_id',
  'buyer_external_identifier',
  'external_identifier',
  'checkout_session_id',
  'created_at_gte',
  'created_at_lte',
  'amount_gte',
  'amount_lte',
  'currency',
  'limit',
  'cursor',
])

/** Why a listed transaction breaks a filter of its list (none: it matches them all). */
export const outside = (item: Json, filters: ReadonlyMap<string, unknown>, account: Account): string | undefined => {
  if (item.merchant_account_id !== account) return `an item of ${String(item.merchant_account_id)} in ${account}'s list`
  for (const [name, v] of filters) {
    const f = { name }
    const buyer = item.buyer as Json | null
    const bad =
      f.name === 'status'
        ? !(v as string[]).includes(String(item.status))
        : f.name === 'amount_gte'
          ? Number(item.amount) < Number(v)
          : f.name === 'amount_lte'
            ? Number(item.amount) > Number(v)
            : f.name === 'currency'
              ? item.currency !== v
              : f.name === 'external_identifier'
                ? item.external_identifier !== v
                : f.name === 'buyer_id'
                  ? buyer?.id !== String(v).toLowerCase()
                  : f.name === 'buyer_external_identifier'
                    ? buyer?.external_identifier !== v
                    : f.name === 'checkout_session_id'
                      ? item.checkout_session_id !== v
                      : f.name === 'created_at_gte'
                        ? Date.parse(String(item.created_at)) < Date.parse(String(v))
                        : f.name === 'created_at_lte'
                          ? Date.parse(String(item.created_at)) > Date.parse(String(v))
                          : false
    if (bad) return `${String(item.id)} breaks ${f.name}=${JSON.stringify(v)}`
  }
  return undefined
}
