import { isDeepStrictEqual } from 'node:util'
import type { Problem } from './contract'
import type { RawResponse } from './raw-http'
import type { Expectation } from './transaction-expect'

type Json = Record<string, unknown>

/** A JSON value's keys and strings, walked: a card's security code must be neither. */
const walk = (v: unknown, visit: (key: string, value: unknown) => void, key = '') => {
  visit(key, v)
  if (Array.isArray(v)) for (const x of v) walk(x, visit, key)
  else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) walk(x, visit, k)
}

/** Where `actual` differs from the properties `expected` gives (arrays: same length, each item by its own properties). */
const differences = (expected: unknown, actual: unknown, path = ''): string[] => {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length)
      return [`${path} length ${Array.isArray(actual) ? actual.length : 'not an array'}, expected ${expected.length}`]
    return expected.flatMap((e, i) => differences(e, actual[i], `${path}/${i}`))
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null) return [`${path} is ${JSON.stringify(actual)}, expected an object`]
    return Object.entries(expected).flatMap(([k, e]) => differences(e, (actual as Json)[k], `${path}/${k}`))
  }
  return isDeepStrictEqual(expected, actual) ? [] : [`${path} is ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`]
}

/**
 * Every way an answer differs from the model's prediction: its status, then what the prediction
 * says of the body (the 422's locations, the 400's pointers, the 2xx's properties, a replay's
 * bytes, a list's items). Wherever it goes, a card's security code must appear neither in the
 * answer (no `security_code` property, no string equal to it) nor in the request's log lines.
 */
export const checkAnswer = (e: Expectation, res: RawResponse, logs: string, cvv: string | null): Problem[] => {
  const problems: Problem[] = []
  const add = (detail: string, message: string) => problems.push({ kind: 'model', detail: `${e.why}: ${detail}`, message })
  let body: unknown
  try {
    body = res.text === '' ? undefined : JSON.parse(res.text)
  } catch {
    body = undefined
  }
  if (res.status !== e.status)
    add(
      `predicted ${e.status}, got ${res.status}`,
      `the model predicted ${e.status} (${e.why}), the server answered ${res.status}: ${res.text.slice(0, 600)}`,
    )
  else if (e.text !== undefined) {
    if (res.text !== e.text || res.headers['idempotent-replayed'] !== 'true')
      add(
        'replay differs',
        `a replay must answer the first answer byte for byte with Idempotent-Replayed: true; got ${res.text.slice(0, 300)}`,
      )
  } else if (e.status === 422 && e.locs) {
    const got = ((body as { detail?: { loc: unknown }[] } | undefined)?.detail ?? []).map((d) => JSON.stringify(d.loc)).sort()
    const want = e.locs.map((l) => JSON.stringify(l)).sort()
    if (!isDeepStrictEqual([...new Set(got)], [...new Set(want)]))
      add('422 locations', `predicted locations ${want.join(' ')}, got ${got.join(' ')}: ${res.text.slice(0, 400)}`)
  } else if ((e.status === 400 || e.status === 404 || e.status === 409) && (e.pointers || e.detailType)) {
    const details = (body as { details?: { pointer: string; type: string }[] } | undefined)?.details ?? []
    if (e.pointers && !isDeepStrictEqual(details.map((d) => d.pointer).sort(), [...e.pointers].sort()))
      add(`${e.status} pointers`, `predicted pointers ${e.pointers.join(' ')}: ${res.text.slice(0, 400)}`)
    if (e.detailType && details[0]?.type !== e.detailType)
      add(`${e.status} type`, `predicted type ${e.detailType}: ${res.text.slice(0, 400)}`)
  } else if (e.body) {
    const diff = differences(e.body, body)
    if (diff.length > 0)
      add(`body ${diff[0]!.split(' ')[0]!.replace(/\/\d+/g, '/*')}`, `${diff.join('; ')}\n  body: ${res.text.slice(0, 800)}`)
  } else if (e.item && Array.isArray((body as Json | undefined)?.items)) {
    const items = (body as { items: Json[] }).items
    const broken = items.map(e.item).filter((x) => x !== undefined)
    if (broken.length > 0) add('item outside the filter', `${broken[0]}: ${res.text.slice(0, 400)}`)
    if (e.limit !== undefined && items.length > e.limit) add('page over its limit', `${items.length} items, limit ${e.limit}`)
  }
  walk(body, (k, v) => {
    if (k === 'security_code') add('security code in a response', `the response has a property ${k}: ${res.text.slice(0, 300)}`)
    else if (cvv !== null && v === cvv && k !== 'label' && k !== 'bin')
      add('security code in a response', `the response carries the security code at ${k}: ${res.text.slice(0, 300)}`)
  })
  if (logs.includes('security_code') || (cvv !== null && logs.includes(`"${cvv}"`)))
    add('security code in a log line', `a log line carries the security code: ${logs.slice(0, 400)}`)
  return problems
}
