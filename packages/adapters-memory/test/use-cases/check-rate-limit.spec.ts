import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { makeCheckRateLimit, Principal, Quota, rateLimited } from '@orka/domain'
import { aPrincipal, ManualClock } from '@orka/domain/testing'
import { MemoryRateLimitStore } from '../../src'
import { START } from './support'

/** Which operations draw on which policy is declared with each operation in adapters-http. */
type Policy = { policy: 'embed' } | { policy: 'checkout-session'; sessionId: string }

describe('makeCheckRateLimit', () => {
  const setup = () => {
    const clock = new ManualClock(START)
    const check = makeCheckRateLimit({ store: new MemoryRateLimitStore(), clock, config: { limit: 50, windowS: 60 } })
    const card = { policy: 'embed' } as const
    return { clock, check: (principal: Principal, req: Policy = card) => check({ ...req, principal })() }
  }
  const embed = (tokenId = 'jti-embed-1') => aPrincipal({ scopes: ['embed'], tokenId })
  const quota = (remaining: number, resetS: number, policy = 'embed'): Quota => ({ policy, limit: 50, windowS: 60, remaining, resetS })

  it('admits exactly 50 embed requests per 60 s, then answers RateLimited', async () => {
    const { clock, check } = setup()
    const token = embed()
    for (let i = 0; i < 50; i++) {
      expect(await check(token), `request ${i}`).to.deep.equal(E.right(O.some(quota(49 - i, 60 - Math.floor(i / 10)))))
      if (i % 10 === 9) clock.advance(1000)
    }
    // Now at +5 s: the first request leaves the window at +60 s.
    expect(await check(token)).to.deep.equal(E.left(rateLimited(55, quota(0, 55))))
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

  it('never limits a server-to-server token', async () => {
    const { check } = setup()
    const server = aPrincipal({ scopes: ['*.read', '*.write'] })
    for (let i = 0; i < 200; i++) expect(await check(server)).to.deep.equal(E.right(O.none))
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
})
