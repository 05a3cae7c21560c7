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
  const single = [...count].filter(([name, n]) => n > 1 && !REPEATABLE.has(name) && FILTERS.has(name)).map(([name]) => ['query', name])
  // A status or currency fault is named by its place among every value of its name (each parameter's, split at commas).
  const offset = new Map<string, number>()
  const placed = spec.params.map((p) => {
    const at = offset.get(p.name) ?? 0
    offset.set(p.name, at + value(p).split(',').length)
    return p.fault && REPEATABLE.has(p.name) ? ['query', p.name, at + Number(p.fault[2])] : p.fault
  })
  const refused = [...new Set(spec.params.filter((p) => p.refused === true).map((p) => `/${p.name}`))]
  let faults = [...placed.flatMap((f) => (f ? [f] : [])), ...single]
  // The list's filters, as the server reads them: every status and currency given, the other filters once.
  let filters = new Map<string, unknown>()
  for (const p of spec.params)
    if (p.filter !== undefined) {
      const meaning = p.value instanceof Slot ? value(p) : p.filter
      filters.set(
        p.name,
        REPEATABLE.has(p.name) ? [...((filters.get(p.name) as string[] | undefined) ?? []), ...(meaning as string[])] : meaning,
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
    refused.length > 0 && !(spec.cursor === 'same' && cursor !== null)
      ? { status: 400, why: 'filter not offered', pointers: refused, detailType: 'unsupported' }
      : faults.length > 0
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
/** The parameters given as a list (repeated, or separated with commas). */
const REPEATABLE = new Set(['status', 'currency'])
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

const buyerOf = (item: Json) => item.buyer as Json | null
const instant = (v: unknown) => Date.parse(String(v))
/** Whether a listed transaction breaks one filter of its list. */
const BREAKS: Readonly<Record<string, (item: Json, v: unknown) => boolean>> = {
  status: (item, v) => !(v as string[]).includes(String(item.status)),
  currency: (item, v) => !(v as string[]).includes(String(item.currency)),
  amount_gte: (item, v) => Number(item.amount) < Number(v),
  amount_lte: (item, v) => Number(item.amount) > Number(v),
  external_identifier: (item, v) => item.external_identifier !== v,
  buyer_id: (item, v) => buyerOf(item)?.id !== String(v).toLowerCase(),
  buyer_external_identifier: (item, v) => buyerOf(item)?.external_identifier !== v,
  checkout_session_id: (item, v) => item.checkout_session_id !== v,
  created_at_gte: (item, v) => instant(item.created_at) < instant(v),
  created_at_lte: (item, v) => instant(item.created_at) > instant(v),
}

/** Why a listed transaction breaks a filter of its list (none: it matches them all). */
export const outside = (item: Json, filters: ReadonlyMap<string, unknown>, account: Account): string | undefined => {
  if (item.merchant_account_id !== account) return `an item of ${String(item.merchant_account_id)} in ${account}'s list`
  for (const [name, v] of filters) if (BREAKS[name]?.(item, v) === true) return `${String(item.id)} breaks ${name}=${JSON.stringify(v)}`
  return undefined
}
