import { CursorString, DEFAULT_LIMIT, Limit } from '@orka/domain'
import { integerParam } from '../decode/decode'

/** `limit` and `cursor`, with the domain's codecs. */
export const PAGE_QUERY = {
  limit: { codec: Limit, description: 'The maximum number of items to return.', default: DEFAULT_LIMIT, parse: integerParam },
  cursor: {
    codec: CursorString,
    description:
      'The page to return: a `next_cursor` or `previous_cursor` of an earlier page of the same list, filter and merchant account.',
  },
}
