import * as t from 'io-ts'
import { CursorString, Limit, Page, PageQuery } from '@orka/domain'
import { integerParam } from '../decode/decode'

/** `limit` and `cursor`, with the domain's codecs; other query parameters are ignored. */
export const pageQueryProps = { limit: Limit, cursor: CursorString }

export const rawPageQuery = (q: Record<string, string | string[] | undefined>) => ({ limit: integerParam(q['limit']), cursor: q['cursor'] })

export const pageQueryOf = (q: { limit?: number | undefined; cursor?: string | undefined }): PageQuery => ({
  ...(q.limit === undefined ? {} : { limit: q.limit }),
  ...(q.cursor === undefined ? {} : { cursor: q.cursor }),
})

/** The page envelope with each item encoded through its domain codec (a whitelist). */
export const encodePage = <C extends t.Mixed>(item: C, page: Page<t.TypeOf<C>>) => ({
  items: page.items.map((i) => item.encode(i) as unknown),
  limit: page.limit,
  next_cursor: page.next_cursor,
  previous_cursor: page.previous_cursor,
})
