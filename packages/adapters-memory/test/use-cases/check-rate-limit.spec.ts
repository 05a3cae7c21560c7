import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { makeCheckRateLimit, Principal, Quota, RateLimitStore, rateLimited, unavailable } from '@orka/domain'
import { aPrincipal, ManualClock } from '@orka/domain/testing'
import { MemoryRateLimitStore } from '../../src'
import { START } from './support'

/** Which operations draw on which policy is declared with each operation in adapters-http. */
type Policy = { policy: 'embed' } | { policy: 'checkout-session'; sessionId: string }

describe('makeCheckRateLimit', () => {
  const setup = (withStore: (store: RateLimitStore) => RateLimitStore = (store) => store) => {
    const clock = new ManualClock(START)
    const memory = new MemoryRateLimitStore()
    /** Every bucket drawn from, with the limit and window asked for. */
    const draws: [string, number, number][] = []
    const store: RateLimitStore = {
      admit: (key, limit, windowMs, now) => {
        draws.push([key, limit, windowMs])
        return memory.admit(key, limit, windowMs, now)
      },
    }
    const check = makeCheckRateLimit({ store: withStore(store), clock, config: { limit: 50, windowS: 60 } })
    const card = { policy: 'embed' } as const
    return { clock, draws, check: (principal: Principal, req: Policy = card) => check({ ...req, principal })() }
  }
  const embed = (tokenId = 'jti-embed-1') => aPrincipal({ scopes: ['embed'], tokenId })
  const quota = (remaining: number, resetS: number, policy = 'embed'): Quota => ({ policy, limit: 50, windowS: 60, remaining, resetS })

  it('admits exactly 50 embed requests per 60 s, then answers RateLimited', async () => {
    const { clock, check, draws } = setup()
    const token = embed()
    for (let i = 0; i < 50; i++) {
      expect(await check(token), `request ${i}`).to.deep.equal(E.right(O.some(quota(49 - i, 60 - Math.floor(i / 10)))))
      if (i % 10 === 9) clock.advance(1000)
    }
    // Now at +5 s: the first request leaves the window at +60 s.
    expect(await check(token)).to.deep.equal(E.left(rateLimited(55, quota(0, 55))))
    expect(draws[0]).to.deep.equal([`embed:${token.tokenId}`, 50, 60_000])
    // Retry-After is rounded up to whole seconds.
    clock.set(new Date(START.getTime() + 58_500))
    expect(await check(token)).to.deep.equal(E.left(rateLimited(2, quota(0, 2))))
    clock.set(new Date(START.getTime() + 59_999))
    expect(await check(token)).to.deep.equal(E.left(rateLimited(1, quota(0, 1))))
    clock.set(new Date(START.getTime() + 60_000))
    // The ten requests of the first second are free again.
    expect(await check(token)).to.deep.equal(E.right(O.some(quota(9, 1))))
  })

  it('limits each embed token on its own', async () => {
    const { check } = setup()
    for (let i = 0; i < 50; i++) await check(embed('jti-a'))
    expect(E.isLeft(await check(embed('jti-a')))).to.equal(true)
    expect(await check(embed('jti-b'))).to.deep.equal(E.right(O.some(quota(49, 60))))
  })

  it('never limits a server-to-server token, and does not touch the store for it', async () => {
    const { check, draws } = setup()
    const server = aPrincipal({ scopes: ['*.read', '*.write'] })
    for (let i = 0; i < 200; i++) expect(await check(server)).to.deep.equal(E.right(O.none))
    expect(await check(aPrincipal({ scopes: ['gift-cards.write'] }))).to.deep.equal(E.right(O.none))
    expect(draws).to.deep.equal([])
  })

  it('limits the Secure Fields route per checkout session id, apart from the card routes', async () => {
    const { check } = setup()
    const token = embed()
    const session = (sessionId: string) => ({ policy: 'checkout-session', sessionId }) as const
    for (let i = 0; i < 50; i++)
      expect(await check(token, session('cs-1'))).to.deep.equal(E.right(O.some(quota(49 - i, 60, 'checkout-session'))))
    expect(await check(token, session('cs-1'))).to.deep.equal(E.left(rateLimited(60, quota(0, 60, 'checkout-session'))))
    // Another session, and the same token's card routes, draw on their own quotas.
    expect(await check(embed('jti-other'), session('cs-2'))).to.deep.equal(E.right(O.some(quota(49, 60, 'checkout-session'))))
    expect(await check(token)).to.deep.equal(E.right(O.some(quota(49, 60))))
    // The session is the key, whichever token uses it.
    expect(await check(embed('jti-other'), session('cs-1'))).to.deep.equal(E.left(rateLimited(60, quota(0, 60, 'checkout-session'))))
  })

  it('does not count refused requests', async () => {
    const { clock, check } = setup()
    const token = embed()
    for (let i = 0; i < 50; i++) await check(token)
    clock.advance(30_000)
    for (let i = 0; i < 20; i++) expect(E.isLeft(await check(token))).to.equal(true)
    clock.advance(30_000)
    for (let i = 0; i < 50; i++) expect(await check(token)).to.deep.equal(E.right(O.some(quota(49 - i, 60))))
  })

  it('never asks a client to retry after 0 seconds', async () => {
    // A refusal whose window resets at once: the memory store never answers so, a stub does.
    const { check } = setup(() => ({ admit: () => TE.right({ admitted: false, remaining: 0, resetMs: 0 }) }))
    expect(await check(embed())).to.deep.equal(E.left(rateLimited(1, quota(0, 0))))
  })

  it('passes a failing store on as Unavailable', async () => {
    const boom = unavailable(new Error('down'))
    const { check } = setup(() => ({ admit: () => TE.left(boom) }))
    expect(await check(embed())).to.deep.equal(E.left(boom))
  })
})
