import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  ConnectorCatalogue,
  ConnectorDefinition,
  makeCreatePaymentService,
  makeDeletePaymentService,
  makeGetPaymentService,
  makeListPaymentOptions,
  makeListPaymentServices,
  makePaymentServiceSession,
  makeProvisionPaymentService,
  makeUpdatePaymentService,
  makeVerifyCredentials,
  PaymentService,
  PaymentServiceCreate,
  PaymentServiceDeps,
  PaymentServiceRepository,
  REVISION_ROUNDS,
  PaymentServiceUpdate,
  presentAuditEntry,
  serviceTimeout,
} from '@orka/domain'
import { MERCHANT_A, MERCHANT_B, right, ScriptedCardConnector } from '@orka/domain/testing'
import { ACTOR, START } from './support'
import { payment, transactionWorld } from './transaction-world'

/** The world's two scripted connectors, as a registry would define them: `card-2` needs a secret API key. */
const definition = (id: string, fields: ConnectorDefinition['fields'] = []): ConnectorDefinition => ({
  id,
  displayName: `Card ${id}`,
  method: 'card',
  fields,
  currencies: [],
  countries: [],
  features: {
    delayedCapture: id === 'card-1',
    partialCapture: true,
    void: true,
    refunds: true,
    partialRefunds: true,
    multipleRefunds: true,
  },
})
const CATALOGUE: ConnectorCatalogue = {
  cardDefinitions: [
    definition('card-1', [{ key: 'region', displayName: 'Region', required: false, secret: false, format: 'text', values: ['eu', 'us'] }]),
    definition('card-2', [
      { key: 'account', displayName: 'Account', required: true, secret: false, format: 'text' },
      { key: 'api_key', displayName: 'API key', required: true, secret: true, format: 'text' },
    ]),
  ],
}
const SECRET = 'sk_live_do_not_leak_9f8e7d'

const create = (o: Partial<PaymentServiceCreate> = {}): PaymentServiceCreate => ({
  display_name: 'Card two',
  payment_service_definition_id: 'card-2',
  fields: [
    { key: 'account', value: 'acct-1' },
    { key: 'api_key', value: SECRET },
  ],
  accepted_currencies: [],
  accepted_countries: [],
  ...o,
})

/** Payment services over the transaction world's store: its first service (`card-1`, position 0) is there already. */
const world = async () => {
  const first = new ScriptedCardConnector()
  const second = new ScriptedCardConnector({ verify: (fields) => (fields.some((f) => f.value === 'sk_refused') ? refusal : null) })
  const w = await transactionWorld([first, second])
  // Only the first service is configured at the start: the second connector is configured through the use cases.
  await right(w.cardServices.write({ ...w.records[1]!, deleted_at: START.toISOString(), revision: 1 }))
  const deps: PaymentServiceDeps = { ...w, catalogue: CATALOGUE }
  const cmd = { merchantAccountId: MERCHANT_A, actor: ACTOR }
  return {
    ...w,
    first,
    second,
    deps,
    create: (input: PaymentServiceCreate = create()) => makeCreatePaymentService(deps)({ ...cmd, input }),
    update: (id: string, input: PaymentServiceUpdate) => makeUpdatePaymentService(deps)({ ...cmd, id, input }),
    remove: (id: string, merchantAccountId = MERCHANT_A) => makeDeletePaymentService(deps)({ ...cmd, merchantAccountId, id }),
    get: (id: string, merchantAccountId = MERCHANT_A) => makeGetPaymentService(deps)({ merchantAccountId, id }),
    list: (filter = {}) => makeListPaymentServices(deps)({ merchantAccountId: MERCHANT_A, filter, limit: 20 }),
    verify: (input: Parameters<ReturnType<typeof makeVerifyCredentials>>[0]['input']) =>
      makeVerifyCredentials({ ...deps, cardConnectors: w.cardConnectors })({ merchantAccountId: MERCHANT_A, input }),
    pay: async () => right(w.create(payment())),
    entries: async () =>
      (await right(w.audit.list(MERCHANT_A, { resource_type: 'payment-service' }, { direction: 'forward', from: O.none, limit: 100 }))).map(
        presentAuditEntry,
      ),
  }
}
/** The store with another `write` (a class's methods do not spread). */
const withWrite = (store: PaymentServiceRepository, write: PaymentServiceRepository['write']): PaymentServiceRepository => ({
  findById: (account, id) => store.findById(account, id),
  listForAccount: (account) => store.listForAccount(account),
  listAll: () => store.listAll(),
  write,
})
const refusal = { _tag: 'CredentialsRefused' as const, field: 'api_key', reason: 'Invalid API key provided' }

const left = async <L, A>(task: () => Promise<E.Either<L, A>>): Promise<L> => {
  const r = await task()
  if (E.isRight(r)) return expect.fail(`expected a refusal, got ${JSON.stringify(r.right)}`)
  return r.left
}

describe('payment services, managed by the use cases', () => {
  it('creates a service: its secret sealed at rest and never shown, its other fields shown, after the others', async () => {
    const w = await world()
    const s = await right(w.create())
    const expected: PaymentService = {
      type: 'payment-service',
      id: s.id,
      merchant_account_id: MERCHANT_A,
      payment_service_definition_id: 'card-2',
      active: true,
      method: 'card',
      display_name: 'Card two',
      position: 1,
      status: 'created',
      accepted_currencies: [],
      accepted_countries: [],
      payment_method_tokenization_enabled: false,
      network_tokens_enabled: false,
      open_loop: false,
      settlement_reporting_enabled: false,
      three_d_secure_enabled: false,
      merchant_profile: null,
      webhook_url: null,
      fields: [{ key: 'account', value: 'acct-1' }],
      reporting_fields: [],
      is_deleted: false,
      created_at: START.toISOString(),
      updated_at: START.toISOString(),
    }
    expect(s).to.deep.equal(expected)
    expect(await right(w.get(s.id))).to.deep.equal(expected)
    const stored = O.toNullable(await right(w.cardServices.findById(MERCHANT_A, s.id)))
    expect(stored?.fields).to.deep.equal([{ key: 'account', value: 'acct-1' }])
    expect(stored?.sealed_fields?.map((f) => f.key)).to.deep.equal(['api_key'])
    expect(JSON.stringify(stored)).to.not.include(SECRET)
    expect(w.box.open(stored!.sealed_fields![0]!.sealed)).to.equal(SECRET)
  })

  it('refuses, storing nothing: an unknown definition, a key it lacks, a key twice, a value outside its set, a required field missing or emptied, what Orka does not do', async () => {
    const w = await world()
    const cases: [PaymentServiceCreate, string[]][] = [
      [create({ payment_service_definition_id: 'stripe-card' }), ["Orka has no connector 'stripe-card' (it has: card-1, card-2)"]],
      [
        create({ fields: [...create().fields, { key: 'secret_key', value: SECRET }] }),
        ["card-2 has no field 'secret_key' (it has: account, api_key)"],
      ],
      [create({ fields: [...create().fields, { key: 'api_key', value: SECRET }] }), ["The field 'api_key' is sent twice"]],
      [
        create({ payment_service_definition_id: 'card-1', fields: [{ key: 'region', value: 'ap' }] }),
        ["region 'ap' is not one of: eu, us"],
      ],
      [create({ fields: [{ key: 'account', value: 'acct-1' }] }), ['card-2 needs the field api_key']],
      [
        create({
          fields: [
            { key: 'account', value: 'acct-1' },
            { key: 'api_key', value: '' },
          ],
        }),
        ['card-2 needs the field api_key'],
      ],
      [{ ...create(), three_d_secure_enabled: true }, ['`three_d_secure_enabled` is not supported']],
    ]
    for (const [input, messages] of cases) {
      const e = await left(w.create(input))
      expect(e._tag).to.equal('InvalidRequest')
      if (e._tag === 'InvalidRequest') expect(e.problems.map((p) => p.message)).to.deep.equal(messages)
      expect(JSON.stringify(e)).to.not.include(SECRET)
    }
    expect((await right(w.list())).items.map((s) => s.display_name)).to.deep.equal(['Service 1'])
    expect(await w.entries()).to.deep.equal([])
  })

  it('updates only what is sent: a secret not sent is kept, one sent replaced, an empty value removes a field; the audit names what changed', async () => {
    const w = await world()
    const s = await right(w.create())
    w.clock.advance(1000)
    const renamed = await right(w.update(s.id, { display_name: 'Renamed' }))
    expect(renamed).to.deep.equal({ ...s, display_name: 'Renamed', updated_at: w.clock.now().toISOString() })
    const opened = async () => {
      const r = O.toNullable(await right(w.cardServices.findById(MERCHANT_A, s.id)))
      return r?.sealed_fields?.map((f) => [f.key, w.box.open(f.sealed)])
    }
    expect(await opened()).to.deep.equal([['api_key', SECRET]])
    await right(w.update(s.id, { fields: [{ key: 'api_key', value: 'sk_live_rotated' }] }))
    expect(await opened()).to.deep.equal([['api_key', 'sk_live_rotated']])
    // Removing a required field is refused; nothing changes.
    const e = await left(w.update(s.id, { fields: [{ key: 'account', value: '' }] }))
    expect(e._tag === 'InvalidRequest' && e.problems.map((p) => p.message)).to.deep.equal(['card-2 needs the field account'])
    await right(w.update(s.id, { position: 0, accepted_currencies: ['EUR'], active: false }))
    const entries = await w.entries()
    expect(entries.map((x) => [x.action, x.changes])).to.deep.equal([
      ['updated', ['position', 'active', 'accepted_currencies']],
      ['updated', ['fields.api_key']],
      ['updated', ['display_name']],
      ['created', undefined],
    ])
    expect(JSON.stringify(entries)).to.not.include('sk_live')
  })

  it('makes two changes sent at once both, one after the other: neither undoes the other, each audited once', async () => {
    const w = await world()
    const s = await right(w.create())
    const writes: boolean[] = []
    const cardServices = withWrite(w.cardServices, (r) => TE.tap((won: boolean) => TE.right(writes.push(won)))(w.cardServices.write(r)))
    const update = makeUpdatePaymentService({ ...w.deps, cardServices })
    const cmd = { merchantAccountId: MERCHANT_A, actor: ACTOR, id: s.id }
    await Promise.all([
      right(update({ ...cmd, input: { display_name: 'Renamed' } })),
      right(update({ ...cmd, input: { active: false, fields: [{ key: 'api_key', value: 'sk_live_rotated' }] } })),
    ])
    // The second read the same revision as the first, lost its write, read again and made its change over the first's.
    expect(writes).to.deep.equal([true, false, true])
    const stored = O.toNullable(await right(w.cardServices.findById(MERCHANT_A, s.id)))
    expect([stored?.display_name, stored?.active, stored?.revision]).to.deep.equal(['Renamed', false, 2])
    expect(stored?.sealed_fields?.map((f) => w.box.open(f.sealed))).to.deep.equal(['sk_live_rotated'])
    expect((await w.entries()).map((x) => [x.action, x.changes])).to.deep.equal([
      ['updated', ['active', 'fields.api_key']],
      ['updated', ['display_name']],
      ['created', undefined],
    ])
  })

  it(`answers a 409 when another writer moves first ${String(REVISION_ROUNDS)} times running, changing nothing and leaving no entry`, async () => {
    const w = await world()
    const s = await right(w.create())
    const before = await right(w.cardServices.findById(MERCHANT_A, s.id))
    let writes = 0
    const cardServices = withWrite(w.cardServices, () => {
      writes++
      return TE.right(false)
    })
    const deps = { ...w.deps, cardServices }
    const cmd = { merchantAccountId: MERCHANT_A, actor: ACTOR, id: s.id }
    const conflict = {
      _tag: 'Conflict',
      resourceId: s.id,
      problem: {
        field: null,
        path: [],
        message: `The payment service ${s.id} kept changing while this change was made to it: send the change again`,
        type: 'concurrent_update',
      },
    }
    expect(await left(makeUpdatePaymentService(deps)({ ...cmd, input: { display_name: 'Renamed' } }))).to.deep.equal(conflict)
    expect(await left(makeDeletePaymentService(deps)(cmd))).to.deep.equal(conflict)
    expect(writes).to.equal(2 * REVISION_ROUNDS)
    expect(await right(w.cardServices.findById(MERCHANT_A, s.id))).to.deep.equal(before)
    expect((await w.entries()).map((x) => x.action)).to.deep.equal(['created'])
    expect(await right(w.audit.pendingBefore(new Date(START.getTime() + 3_600_000), 100))).to.deep.equal([])
  })

  it('deletes a service: a 404 from then on, kept for the transactions routed to it, listed with deleted=true; a second delete or an update is a 404', async () => {
    const w = await world()
    const s = await right(w.create())
    await right(w.remove(s.id))
    expect(await left(w.get(s.id))).to.deep.include({ _tag: 'NotFound' })
    expect(await left(w.remove(s.id))).to.deep.include({ _tag: 'NotFound' })
    expect(await left(w.update(s.id, { display_name: 'Back' }))).to.deep.include({ _tag: 'NotFound' })
    expect((await right(w.list({ deleted: true }))).items.map((x) => [x.id, x.is_deleted])).to.deep.include([s.id, true])
    expect((await right(w.list())).items.map((x) => x.id)).to.not.include(s.id)
    expect((await w.entries()).map((x) => x.action)).to.deep.equal(['deleted', 'created'])
  })

  it("answers another account's service as a 404, to every operation", async () => {
    const w = await world()
    const s = await right(w.create())
    expect(await left(w.get(s.id, MERCHANT_B))).to.deep.include({ _tag: 'NotFound' })
    expect(await left(w.remove(s.id, MERCHANT_B))).to.deep.include({ _tag: 'NotFound' })
    expect(
      await left(makeUpdatePaymentService(w.deps)({ merchantAccountId: MERCHANT_B, actor: ACTOR, id: s.id, input: { active: false } })),
    ).to.deep.include({
      _tag: 'NotFound',
    })
    expect(await left(makePaymentServiceSession(w.deps)({ merchantAccountId: MERCHANT_B, id: s.id }))).to.deep.include({ _tag: 'NotFound' })
    expect(await right(w.get(s.id))).to.deep.equal(s)
  })

  it('lists in routing order, a page at a time, a cursor bound to its filters', async () => {
    const w = await world()
    const a = await right(w.create({ ...create(), display_name: 'A', position: 5 }))
    const b = await right(w.create({ ...create(), display_name: 'B', position: 2 }))
    const page = await right(makeListPaymentServices(w.deps)({ merchantAccountId: MERCHANT_A, filter: {}, limit: 2 }))
    expect(page.items.map((s) => s.display_name)).to.deep.equal(['Service 1', 'B'])
    const next = await right(
      makeListPaymentServices(w.deps)({ merchantAccountId: MERCHANT_A, filter: {}, limit: 2, cursor: page.next_cursor ?? undefined }),
    )
    expect(next.items.map((s) => s.id)).to.deep.equal([a.id])
    expect(b.position).to.equal(2)
    const other = await left(
      makeListPaymentServices(w.deps)({
        merchantAccountId: MERCHANT_A,
        filter: { deleted: true },
        limit: 2,
        cursor: page.next_cursor ?? undefined,
      }),
    )
    expect(other._tag).to.equal('InvalidRequest')
    expect((await right(w.list({ method: 'paypal' }))).items).to.deep.equal([])
  })

  describe('routing reads them', () => {
    it('a service created, reordered, deactivated and deleted changes where the next payment goes; one routed keeps its service', async () => {
      const w = await world()
      const routedTo = async () => (await w.pay()).value.payment_service?.payment_service_definition_id
      expect(await routedTo()).to.equal('card-1')
      w.clock.advance(1000)
      const s = await right(w.create({ ...create(), position: 0 }))
      // Ties on position go to the oldest: still the first service.
      expect(await routedTo()).to.equal('card-1')
      await right(w.update(w.records[0]!.id, { position: 3 }))
      expect(await routedTo()).to.equal('card-2')
      const routed = await w.pay()
      await right(w.update(s.id, { active: false }))
      expect(await routedTo()).to.equal('card-1')
      await right(w.update(s.id, { active: true, accepted_currencies: ['EUR'] }))
      expect(await routedTo()).to.equal('card-1')
      await right(w.update(s.id, { accepted_currencies: [] }))
      expect(await routedTo()).to.equal('card-2')
      await right(w.remove(s.id))
      expect(await routedTo()).to.equal('card-1')
      // The payment routed to the deleted service still shows it and can be captured there.
      const captured = await right(w.capture(routed.value.id))
      expect(captured.value.transaction.payment_service?.id).to.equal(s.id)
      expect(captured.value.transaction.status).to.equal('capture_succeeded')
      expect(w.second.calls.map((c) => c.op)).to.deep.equal(['authorize', 'authorize', 'authorize', 'capture'])
    })

    it('the connector gets the secret as stored now: a rotated key is used from the next call', async () => {
      const w = await world()
      const seen: string[] = []
      const s = await right(w.create({ ...create(), position: 0 }))
      await right(w.update(w.records[0]!.id, { active: false }))
      const original = w.second.authorize.bind(w.second)
      w.second.authorize = (req) => {
        seen.push(req.service.fields.find((f) => f.key === 'api_key')?.value ?? 'none')
        return original(req)
      }
      await w.pay()
      await right(w.update(s.id, { fields: [{ key: 'api_key', value: 'sk_live_rotated' }] }))
      await w.pay()
      expect(seen).to.deep.equal([SECRET, 'sk_live_rotated'])
    })

    it('payment options: a card when an active service takes the currency and country, a gift card with a primary gift card service', async () => {
      const w = await world()
      const options = (input: { currency?: string; country?: string }) =>
        right(makeListPaymentOptions({ ...w.deps, giftCardServices: w.giftCards.services })({ merchantAccountId: MERCHANT_A, input })).then(
          (o) => o.items.map((i) => [i.method, i.can_delay_capture]),
        )
      expect(await options({ currency: 'USD', country: 'US' })).to.deep.equal([
        ['card', true],
        ['gift-card', false],
      ])
      await right(w.update(w.records[0]!.id, { accepted_countries: ['GB'] }))
      expect(await options({ currency: 'USD', country: 'US' })).to.deep.equal([['gift-card', false]])
      await right(w.create({ ...create(), accepted_countries: ['US'] }))
      expect(await options({ currency: 'USD', country: 'US' })).to.deep.equal([
        ['card', false],
        ['gift-card', false],
      ])
    })
  })

  describe('verifying credentials', () => {
    it('asks the connector, with the fields sent over a stored service’s; a refusal names the field, never its value', async () => {
      const w = await world()
      expect(await right(w.verify({ payment_service_definition_id: 'card-2', fields: create().fields }))).to.deep.equal({ verified: true })
      const refused = await left(
        w.verify({
          payment_service_definition_id: 'card-2',
          fields: [
            { key: 'account', value: 'acct-1' },
            { key: 'api_key', value: 'sk_refused' },
          ],
        }),
      )
      expect(refused).to.deep.equal({
        _tag: 'InvalidRequest',
        message: 'Request failed validation',
        problems: [
          { field: 'input', path: ['fields', '1', 'value'], message: 'api_key: Invalid API key provided', type: 'credentials_refused' },
        ],
      })
      const s = await right(w.create())
      // The stored secret is used when none is sent.
      expect(await right(w.verify({ payment_service_definition_id: 'card-2', payment_service_id: s.id, fields: [] }))).to.deep.equal({
        verified: true,
      })
      const missing = await left(w.verify({ payment_service_definition_id: 'card-2', fields: [{ key: 'account', value: 'a' }] }))
      expect(missing._tag === 'InvalidRequest' && missing.problems.map((p) => p.message)).to.deep.equal(['card-2 needs the field api_key'])
      const mismatch = await left(w.verify({ payment_service_definition_id: 'card-1', payment_service_id: s.id, fields: [] }))
      expect(mismatch._tag === 'InvalidRequest' && mismatch.problems.map((p) => p.type)).to.deep.equal([
        'payment_service_definition_mismatch',
      ])
    })

    it('passes on a connector timing out as a timeout', async () => {
      const w = await world()
      const timingOut = new ScriptedCardConnector({ verify: () => serviceTimeout('card') })
      const verify = makeVerifyCredentials({ ...w.deps, cardConnectors: { forDefinition: () => O.some(timingOut) } })
      expect(
        await left(verify({ merchantAccountId: MERCHANT_A, input: { payment_service_definition_id: 'card-1', fields: [] } })),
      ).to.deep.equal(serviceTimeout('card'))
    })
  })

  describe('provisioning (the seed file)', () => {
    it('creates a service by its id, leaves it alone when it matches, makes it match when it differs, leaves it deleted', async () => {
      const w = await world()
      const provision = (input: PaymentServiceCreate) =>
        makeProvisionPaymentService(w.deps)({
          merchantAccountId: MERCHANT_A,
          actor: ACTOR,
          id: '0c0c0c0c-0000-4000-8000-000000000001',
          input,
        })
      const input = create({ position: 4, active: true })
      expect(await right(provision(input))).to.equal('created')
      expect(await right(provision(input))).to.equal('unchanged')
      w.clock.advance(1000)
      expect(
        await right(
          provision({
            ...input,
            fields: [
              { key: 'account', value: 'acct-2' },
              { key: 'api_key', value: SECRET },
            ],
          }),
        ),
      ).to.equal('updated')
      const s = await right(w.get('0c0c0c0c-0000-4000-8000-000000000001'))
      expect([s.fields, s.created_at, s.updated_at]).to.deep.equal([
        [{ key: 'account', value: 'acct-2' }],
        START.toISOString(),
        w.clock.now().toISOString(),
      ])
      expect(await left(provision({ ...input, fields: [] }))).to.deep.include({ _tag: 'InvalidRequest' })
      await right(w.remove(s.id))
      expect(await right(provision(input))).to.equal('deleted')
      await left(w.get(s.id))
    })
  })
})
