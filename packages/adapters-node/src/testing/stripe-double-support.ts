/** What the Stripe double's parts share: objects as Stripe's JSON, its form encoding read back, its answers. */
export type Obj = Record<string, unknown>
export const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {})

/** How the double makes Stripe's objects: its fixtures, ids and clock. */
export interface Maker {
  fixture(name: string): Obj
  id(prefix: string): string
  now(): number
}

/** An answer, or (`hang`) an intent made whose answer is never sent. */
export type Answer = { status: number; body: Obj } | { hang: Obj }

export const error = (status: number, e: Obj) => ({ status, body: { error: { message: 'Refused by the Stripe double', ...e } } })

/** Stripe's form encoding, brackets and all, back into objects and arrays. */
export const parseForm = (body: string): Obj => {
  const out: Obj = {}
  for (const pair of body.split('&').filter((p) => p !== '')) {
    const [rawKey = '', rawValue = ''] = pair.split('=')
    const key = decodeURIComponent(rawKey.replace(/\+/g, ' '))
    const value = decodeURIComponent(rawValue.replace(/\+/g, ' '))
    const parts = key.split(/[[\]]+/).filter((p, i) => i === 0 || p !== '' || key.endsWith('[]'))
    let at: Obj = out
    parts.forEach((p, i) => {
      const last = i === parts.length - 1
      if (p === '' && last) return
      const next = parts[i + 1]
      if (last) at[p] = value
      else if (next === '' && i + 1 === parts.length - 1) ((at[p] ??= []) as unknown[]).push(value)
      else at = obj((at[p] ??= {}))
    })
  }
  return out
}

/** OpenAPI 3.0's `nullable: true` as JSON Schema says it (what Ajv checks): `null` also passes. */
export const withNulls = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(withNulls)
  if (typeof node !== 'object' || node === null) return node
  const { nullable, ...rest } = node as Obj
  const converted = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, withNulls(v)]))
  if (nullable !== true) return converted
  return typeof converted.type === 'string' && converted.enum === undefined
    ? { ...converted, type: [converted.type, 'null'] }
    : { anyOf: [converted, { type: 'null' }] }
}
