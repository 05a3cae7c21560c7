import { expect } from 'chai'
import { Harness, IDS, startHarness, ValidationErrorBody } from '../support/harness'
import { OpenApiDoc, OpenApiParameter, OpenApiParameterSchema } from '../support/openapi'

const PAYMENT = {
  amount: 100,
  currency: 'USD',
  payment_method: { method: 'card', number: '4111111111111111', expiration_date: '12/30' },
}

/**
 * The document's parameter bounds are the ones the service enforces: for every documented
 * parameter with a length or range bound, a value just inside is not refused with 422 and a
 * value just outside is. Responses are recorded and validated by the conformance suite.
 */
describe('OpenAPI parameters: documented bounds are the enforced ones', () => {
  let h: Harness
  let doc: OpenApiDoc
  let transactionId: string
  before(async () => {
    h = await startHarness()
    doc = (await (await fetch(`${h.url}/openapi.json`)).json()) as OpenApiDoc
    transactionId = (await h.request<{ id: string }>('POST', '/transactions', { body: PAYMENT })).body.id
  })
  after(() => h.close())

  let serial = 0
  /** A value of the parameter's type at `size` (a length for strings, the value for integers). */
  const valueOf = (schema: OpenApiParameterSchema, size: number): string =>
    schema.type === 'integer' ? String(size) : `${String(++serial).padStart(6, '0')}${'k'.repeat(Math.max(0, size - 6))}`.slice(0, size)

  const call = (method: string, template: string, param: OpenApiParameter, value: string) => {
    const path = template
      .replace(`{${param.name}}`, param.in === 'path' ? encodeURIComponent(value) : `{${param.name}}`)
      .replace('{subscription_id}', IDS.defaultWebhook)
      .replace('{transaction_id}', transactionId)
      .replace(/\{[a-z_]+_id\}/g, '00000000-0000-4000-8000-000000000000')
    if (param.in === 'path') return h.request<ValidationErrorBody>(method, path, method === 'POST' || method === 'PUT' ? { body: {} } : {})
    if (param.in === 'query') return h.request<ValidationErrorBody>(method, `${path}?${param.name}=${encodeURIComponent(value)}`)
    if (param.in === 'header') {
      // The idempotent operations take a documented header with bounds; each needs its body.
      return h.request<ValidationErrorBody>(method, path, {
        headers: { [param.name]: value },
        body:
          template === '/gift-cards'
            ? { number: '4123455541234569998', pin: '1234' }
            : template === '/gift-cards/activations'
              ? { number: '4123455541234569999', amount: 100, currency: 'USD' }
              : template === '/transactions'
                ? PAYMENT
                : template === '/payment-methods'
                  ? PAYMENT.payment_method
                  : {},
      })
    }
    throw new Error(`no way to send a ${param.in} parameter`)
  }

  it('refuses with 422 exactly the values outside each documented bound', async () => {
    const checked: string[] = []
    for (const [template, ops] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(ops))
        for (const p of op.parameters) {
          const s = p.schema
          const [lo, hi] = s.type === 'integer' ? [s.minimum, s.maximum] : [s.minLength, s.maxLength]
          // Each bound, with the step from it to the nearest value outside.
          for (const [bound, step] of [
            [lo, -1],
            [hi, 1],
          ] as const) {
            if (bound === undefined) continue
            const inside = bound
            const outside = bound + step
            // An empty path segment is another route, not a value outside the bound.
            if (outside < 0 || (p.in === 'path' && outside === 0)) continue
            const ok = await call(method.toUpperCase(), template, p, valueOf(s, inside))
            const refused = await call(method.toUpperCase(), template, p, valueOf(s, outside))
            const what = `${method.toUpperCase()} ${template} ${p.in} ${p.name}`
            expect(ok.status, `${what} = ${inside} (inside): ${ok.text}`).not.to.equal(422)
            expect(refused.status, `${what} = ${outside} (outside): ${refused.text}`).to.equal(422)
            expect(refused.body.detail[0]!.loc.slice(0, 2), what).to.deep.equal([p.in, p.name])
            checked.push(`${what} ${inside}/${outside}`)
          }
        }
    // limit on three lists (1-100), cursor on three (..1000), external_identifier (1-200), idempotency-key (1-255).
    expect(checked.length, checked.join('\n')).to.be.greaterThanOrEqual(12)
  })

  it('refuses a path id that is not the documented UUID with 422', async () => {
    const templates = Object.keys(doc.paths).filter((t) => t.includes('{subscription_id}'))
    expect(doc.paths[templates[0]!]!.get!.parameters[0]!.schema).to.deep.equal({ type: 'string', format: 'uuid' })
    for (const method of ['GET', 'DELETE']) {
      const r = await h.request(method, '/webhook-subscriptions/not-a-uuid')
      expect([method, r.status]).to.deep.equal([method, 422])
    }
  })
})
