import * as TE from 'fp-ts/TaskEither'
import { seekIn } from '../pagination/seek-in'
import { ROLE_CATALOGUE } from '../roles/role-catalogue'
import { roleSortKey } from '../roles/role'
import { RoleRepository } from '../roles/roles.ports'
import { Clock, IdGenerator } from '../shared/clock.ports'
import { Mac, MacPurpose } from '../shared/crypto.ports'
import { GiftCardConnector } from '../gift-cards/gift-card.ports'
import { serviceFailed } from '../shared/errors'

/** A clock tests move by hand. Hands out fresh Dates, so a caller cannot move it by mutation. */
export class ManualClock implements Clock {
  private at: number
  constructor(start: Date) {
    this.at = start.getTime()
  }
  now(): Date {
    return new Date(this.at)
  }
  set(date: Date): void {
    this.at = date.getTime()
  }
  advance(ms: number): void {
    this.at += ms
  }
}

/** Predictable v4-shaped UUIDs (`…-000000000001`, `…-000000000002`, …) for tests. */
export class SequentialIds implements IdGenerator {
  private n = 0
  constructor(private readonly prefix = '00000000-0000-4000-8000') {}
  uuid(): string {
    return `${this.prefix}-${(++this.n).toString(16).padStart(12, '0')}`
  }
}

/** A deterministic stand-in for HMAC: FNV-1a over a secret, the purpose and the data, as hex. */
export const fakeMac = (secret = 'k1'): Mac => ({
  mac(purpose: MacPurpose, data: string): string {
    let h = 0x811c9dc5
    for (const ch of `${secret}\u0000${purpose}\u0000${data}`) {
      h ^= ch.codePointAt(0) ?? 0
      h = Math.imul(h, 0x01000193) >>> 0
    }
    return h.toString(16).padStart(8, '0')
  },
})

/** The role catalogue, read only: keyset pages by slug, lookups by slug; upserts change nothing. */
export const catalogueRoles: RoleRepository = {
  list: (seek) => TE.right(seekIn(ROLE_CATALOGUE, roleSortKey, 'ascending', seek)),
  findBySlugs: (slugs) => TE.right(ROLE_CATALOGUE.filter((r) => slugs.includes(r.slug))),
  upsert: () => TE.right(undefined),
}

/** Every call of `c`, as `c` answers it: spread it, then replace the calls a test watches or breaks. */
export const passThrough = (c: GiftCardConnector): GiftCardConnector => ({
  activate: (req) => c.activate(req),
  balance: (req) => c.balance(req),
  redeem: (req) => c.redeem(req),
  reverse: (req) => c.reverse(req),
  refund: (req) => c.refund(req),
})

/** A connector whose every call fails: spread it, then give the one call a test uses. */
export const failingConnector = (reason = 'not used by this test'): GiftCardConnector => {
  const fails = () => TE.left(serviceFailed(reason, 'gift-card'))
  return { activate: fails, balance: fails, redeem: fails, reverse: fails, refund: fails }
}
