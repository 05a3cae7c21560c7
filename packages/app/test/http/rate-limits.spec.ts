import { expect } from 'chai'
import { errorBody, Harness, startHarness } from '../support/harness'

describe('rate limits for embed tokens', () => {
  let h: Harness
  beforeEach(async () => {
    h = await startHarness()
  })
  afterEach(() => h.close())
  const activate = (auth: string, n: number) =>
    h.request('POST', '/gift-cards/activations', { auth, body: { number: `6100000000${String(n).padStart(6, '0')}001` } })

  it('admits 50 requests per rolling 60 s per token, then 429 with Retry-After and RateLimit headers', async () => {
    const embed = h.token('admin', { scopes: ['embed'] })
    for (let i = 0; i < 50; i++) {
      const r = await activate(embed, i + 1)
      expect(r.status, `request ${i + 1}`).to.equal(201)
      expect(r.headers.get('ratelimit-policy')).to.equal('"embed";q=50;w=60')
      // t: seconds until the oldest counted request (the first, at 0 s) leaves the window
      expect(r.headers.get('ratelimit')).to.equal(`"embed";r=${49 - i};t=${60 - i}`)
      if (i < 49) h.clock.advance(1000)
    }
    const over = await activate(embed, 100)
    expect(over.status).to.equal(429)
    expect(over.body).to.deep.equal(errorBody(429))
    // the first request was 49 s ago: its slot frees in 11 s
    expect(over.headers.get('retry-after')).to.equal('11')
    expect(over.headers.get('ratelimit')).to.equal('"embed";r=0;t=11')
    h.clock.advance(10_999)
    expect((await activate(embed, 101)).status).to.equal(429)
    h.clock.advance(1)
    expect((await activate(embed, 102)).status).to.equal(201)
    expect((await activate(embed, 103)).status).to.equal(429)
  })

  it('never admits more than 50 in any 60 s span, across a burst at a window boundary', async () => {
    const embed = h.token('admin', { scopes: ['embed'] })
    h.clock.advance(59_000)
    const admitted: number[] = []
    for (let i = 0; i < 240; i++) {
      const r = await activate(embed, i)
      if (r.status === 201) admitted.push(h.clock.now().getTime())
      else expect(r.status).to.equal(429)
      h.clock.advance(500)
    }
    for (const start of admitted) expect(admitted.filter((t) => t >= start && t < start + 60_000).length).to.be.at.most(50)
    // 50 at once, 50 more when the first ones leave the window 60 s later, none in between
    expect(admitted.length).to.equal(100)
  })

  it('counts each token separately and never limits server-to-server tokens', async () => {
    const a = h.token('admin', { scopes: ['embed'] })
    for (let i = 0; i < 50; i++) await activate(a, i)
    expect((await activate(a, 60)).status).to.equal(429)
    const b = h.token('admin', { scopes: ['embed'] })
    expect((await activate(b, 61)).status).to.equal(201)
    const server = h.token('admin')
    for (let i = 0; i < 60; i++) {
      const r = await activate(server, 200 + i)
      expect(r.status).to.equal(201)
      expect(r.headers.get('ratelimit')).to.equal(null)
    }
  })

  it('counts activations, stores, balance checks and transactions together, exactly', async () => {
    const embed = h.token('admin', { scopes: ['embed'] })
    const number = (i: number) => `6200000000${String(i).padStart(6, '0')}001`
    for (let i = 0; i < 12; i++) expect((await activate(embed, i)).status).to.equal(201)
    for (let i = 0; i < 13; i++)
      expect((await h.request('POST', '/gift-cards', { auth: embed, body: { number: number(i), pin: '4321' } })).status).to.equal(201)
    for (let i = 0; i < 13; i++) {
      const r = await h.request('POST', '/gift-cards/balances', {
        auth: embed,
        body: { items: [{ number: number(100 + i), pin: '4321' }] },
      })
      expect(r.status).to.equal(200)
      expect(r.headers.get('ratelimit')).to.equal(`"embed";r=${24 - i};t=60`)
    }
    const payment = {
      amount: 100,
      currency: 'USD',
      payment_method: { method: 'card', number: '4111111111111111', expiration_date: '12/30' },
    }
    for (let i = 0; i < 12; i++) {
      const r = await h.request<{ status: string }>('POST', '/transactions', { auth: embed, body: payment })
      expect([r.status, r.body.status]).to.deep.equal([201, 'authorization_succeeded'])
    }
    for (const over of [
      await h.request('POST', '/transactions', { auth: embed, body: payment }),
      await activate(embed, 99),
      await h.request('POST', '/gift-cards', { auth: embed, body: { number: number(99), pin: '4321' } }),
      await h.request('POST', '/gift-cards/balances', { auth: embed, body: { items: [] } }),
    ]) {
      expect(over.status).to.equal(429)
      expect(over.body).to.deep.equal(errorBody(429))
    }
  })

  it('limits Secure Fields per checkout session id, whatever the token, before looking the session up', async () => {
    const embed = h.token('admin', { scopes: ['embed'] })
    const s1 = '11111111-2222-4333-8444-555555555551'
    for (let i = 0; i < 50; i++)
      expect(
        (await h.request('POST', `/checkout/sessions/${s1}/fields`, { auth: h.token('admin', { scopes: ['embed'] }), body: {} })).status,
      ).to.equal(422)
    const over = await h.request('POST', `/checkout/sessions/${s1}/fields`, { auth: embed, body: {} })
    expect(over.status).to.equal(429)
    expect(over.headers.get('ratelimit-policy')).to.equal('"checkout-session";q=50;w=60')
    expect(
      (await h.request('POST', '/checkout/sessions/11111111-2222-4333-8444-555555555552/fields', { auth: embed, body: {} })).status,
    ).to.equal(422)
  })
})

describe('rate limit configuration', () => {
  it('applies EMBED_RATE_LIMIT and RATE_LIMIT_WINDOW_S', async () => {
    const h = await startHarness({ env: { EMBED_RATE_LIMIT: '2', RATE_LIMIT_WINDOW_S: '10' } })
    try {
      const embed = h.token('admin', { scopes: ['embed'] })
      const statuses = []
      for (let i = 0; i < 3; i++)
        statuses.push(
          (await h.request('POST', '/gift-cards/activations', { auth: embed, body: { number: `620000000000000000${i}` } })).status,
        )
      expect(statuses).to.deep.equal([201, 201, 429])
    } finally {
      await h.close()
    }
  })
})

describe('RATE_LIMIT_HOLD_MS', () => {
  it('holds a 429 that long before sending it, the same answer otherwise; admitted requests and other accounts are not held', async () => {
    const h = await startHarness({ env: { EMBED_RATE_LIMIT: '1', RATE_LIMIT_HOLD_MS: '400' } })
    try {
      const embed = h.token('admin', { scopes: ['embed'] })
      const balances = async () => {
        const t0 = performance.now()
        const r = await h.request('POST', '/gift-cards/balances', { auth: embed, body: { items: [] } })
        return { r, ms: performance.now() - t0 }
      }
      const first = await balances()
      expect([first.r.status, first.r.body]).to.deep.equal([200, { items: [] }])
      expect(first.ms).to.be.below(400)
      const [over, read] = await Promise.all([balances(), h.request('GET', '/roles?limit=1')])
      expect([over.r.status, over.r.body, over.r.headers.get('retry-after')]).to.deep.equal([429, errorBody(429), '60'])
      expect(over.ms).to.be.at.least(390)
      expect(read.status).to.equal(200)
    } finally {
      await h.close()
    }
  })
})
