import { randomBytes } from 'node:crypto'
import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { cardDeclined, GiftCardConnector, GiftCardConnectors, serviceFailed } from '@orka/domain'
import { HmacMac, MOCK_GIFT_CARD_DEFINITION_ID, MockGiftCardConnector, SystemClock } from '@orka/adapters-node'
import { MemoryGiftCardLedger } from '@orka/adapters-memory'
import { errorBody, Harness, Resource, startHarness, UUID_RE } from '../support/harness'

const PIN = '86420'
let counter = 0
/** A fresh 16-digit number per call, so that stored cards never collide across cases. */
const aNumber = () => `60362800${String(++counter).padStart(8, '0')}`

type Behaviour = () => TE.TaskEither<unknown, unknown>
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * A provider whose behaviour each case sets: the connector port is where an embedder's own
 * provider (or a remote service's answer) enters, so it gets what such code can do wrong.
 * Numbers ending 0504 go to the real mock connector, whose own timeout is under test.
 */
class ScriptedConnectors implements GiftCardConnectors {
  behaviour: Behaviour = () => TE.right({ expirationDate: '2030-01-01T00:00:00.000Z' })
  private readonly mock = new MockGiftCardConnector({
    clock: new SystemClock(),
    timeoutMs: 300,
    ledger: new MemoryGiftCardLedger(),
    mac: new HmacMac(randomBytes(32)),
  })
  private readonly scripted = {
    activate: (req) => (req.number.endsWith('0504') ? this.mock.activate(req) : this.behaviour()),
  } as GiftCardConnector
  forDefinition(definitionId: string) {
    return definitionId === MOCK_GIFT_CARD_DEFINITION_ID ? O.some(this.scripted) : O.none
  }
}

describe('Faults: the gift card service slow, hanging, failing and answering garbage', () => {
  const provider = new ScriptedConnectors()
  let h: Harness
  before(async () => {
    h = await startHarness({ configure: (c) => c.register(GiftCardConnectors, { useValue: provider }) })
  })
  after(() => h.close())
  afterEach(() => {
    provider.behaviour = () => TE.right({ expirationDate: '2030-01-01T00:00:00.000Z' })
  })

  const activate = (number: string, key?: string) =>
    h.request<Resource & { readonly expiration_date: string }>('POST', '/gift-cards/activations', {
      body: { number, pin: PIN, store: true },
      headers: key ? { 'idempotency-key': key } : {},
    })
  const logLines = () => h.logs.map((l) => JSON.parse(l) as Record<string, unknown>)

  it('keeps serving other requests while an activation waits on a slow provider, then answers it 201', async () => {
    provider.behaviour = () => async () => (await sleep(200), E.right({ expirationDate: '2030-01-01T00:00:00.000Z' }))
    const finished: string[] = []
    const slow = activate(aNumber()).then((r) => (finished.push('activation'), r))
    const roles = h.request('GET', '/roles').then((r) => (finished.push('roles'), r))
    const [a, b] = await Promise.all([slow, roles])
    expect([a.status, b.status, finished]).to.deep.equal([201, 200, ['roles', 'activation']])
    expect(a.body.expiration_date).to.equal('2030-01-01T00:00:00.000Z')
  })

  it('answers 504 when the provider hangs past CONNECTOR_TIMEOUT_MS, serving others meanwhile, and logs it as a warning', async () => {
    const number = '6036280000000504'
    const finished: string[] = []
    const hung = activate(number).then((r) => (finished.push('activation'), r))
    const roles = h.request('GET', '/roles').then((r) => (finished.push('roles'), r))
    const [a, b] = await Promise.all([hung, roles])
    expect([a.status, a.body, b.status, finished]).to.deep.equal([504, errorBody(504), 200, ['roles', 'activation']])
    const warning = logLines().find((l) => l.msg === 'gift card service timed out' && l.requestId === a.headers.get('x-request-id'))
    expect(warning?.level).to.equal(40)
    expect(h.logs.join('\n')).not.to.include(number)
  })

  it('answers 502 while the provider fails, records nothing, and completes the same request once it recovers', async () => {
    const number = aNumber()
    provider.behaviour = () => TE.left(serviceFailed('upstream answered 503', 'gift-card'))
    const failed = await activate(number, 'fault-recovers')
    provider.behaviour = () => TE.right({ expirationDate: '2031-02-03T04:05:06.000Z' })
    const retried = await activate(number, 'fault-recovers')
    expect([failed.status, failed.body, retried.status, retried.body.expiration_date]).to.deep.equal([
      502,
      errorBody(502),
      201,
      '2031-02-03T04:05:06.000Z',
    ])
    expect(retried.body.id).to.match(UUID_RE)
  })

  describe('answers 502 in the envelope, vaults nothing and logs no exception when the provider answers garbage', () => {
    const cases: [string, Behaviour][] = [
      ['a date that is not a date', () => TE.right({ expirationDate: 'in three years' })],
      ['a number for the date', () => TE.right({ expirationDate: 1893456000 })],
      ['nothing at all', () => TE.right(undefined)],
      ['an HTML error page', () => TE.right('<html><body>502 Bad Gateway</body></html>')],
      ['an error it does not know', () => TE.left({ _tag: 'Teapot', reason: 'short and stout' })],
      ['a rejected promise', () => () => Promise.reject(new Error('socket hang up'))],
      [
        'an exception',
        () => {
          throw new TypeError("Cannot read properties of undefined (reading 'balance')")
        },
      ],
    ]
    for (const [what, behaviour] of cases)
      it(`when it answers ${what}`, async () => {
        const number = aNumber()
        provider.behaviour = behaviour
        const r = await activate(number, `garbage-${number}`)
        provider.behaviour = () => TE.right({ expirationDate: '2030-01-01T00:00:00.000Z' })
        // Nothing was vaulted or recorded: the same request completes once the provider behaves.
        const again = await activate(number, `garbage-${number}`)
        expect([r.status, r.body, again.status]).to.deep.equal([502, errorBody(502), 201])
        const lines = logLines().filter((l) => l.requestId === r.headers.get('x-request-id'))
        expect(lines.map((l) => [l.level, l.msg])).to.deep.equal([
          [40, 'gift card service failed'],
          [30, 'request'],
        ])
      })
  })

  it('shows a decline with a generic reason when the provider quotes the card number or PIN in it, and logs neither', async () => {
    const number = aNumber()
    for (const reason of [`card ${number} is blocked`, `PIN ${PIN} is wrong`]) {
      provider.behaviour = () => TE.left(cardDeclined(reason))
      const r = await activate(number)
      expect([r.status, r.body]).to.deep.equal([
        400,
        errorBody(400, [{ location: 'body', pointer: '/number', message: 'The gift card was declined', type: 'card_declined' }]),
      ])
    }
    const all = h.logs.join('\n')
    expect([all.includes(number), all.includes(PIN)]).to.deep.equal([false, false])
  })
})
