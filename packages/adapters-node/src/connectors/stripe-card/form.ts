/** A request's parameters as Stripe takes them: nested objects and arrays in bracket notation. */
export type FormValue = string | number | boolean | null | undefined | readonly FormValue[] | { readonly [k: string]: FormValue }

/** `application/x-www-form-urlencoded` in Stripe's bracket notation (`card[number]`, `expand[]`); null and undefined are left out. */
export const formEncode = (params: Readonly<Record<string, FormValue>>): string => {
  const pairs: string[] = []
  const add = (key: string, v: FormValue): void => {
    if (v === null || v === undefined) return
    if (Array.isArray(v)) for (const x of v as readonly FormValue[]) add(`${key}[]`, x)
    else if (typeof v === 'object') for (const [k, x] of Object.entries(v)) add(`${key}[${k}]`, x)
    else pairs.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`)
  }
  for (const [k, v] of Object.entries(params)) add(k, v)
  return pairs.join('&')
}
