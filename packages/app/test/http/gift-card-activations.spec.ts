import { expect } from 'chai'
import {
  DEFAULT_GIFT_CARD_SERVICE,
  ErrorBody,
  errorBody,
  Harness,
  IDS,
  Resource,
  startHarness,
  UUID_RE,
  ValidationErrorBody,
} from '../support/harness'

/** The properties of a GiftCard these tests read. */
interface GiftCard extends Resource {
  readonly expiration_date: string
  readonly merchant_account_id: string
  readonly buyer: (Resource & { readonly reconciliation_id: string }) | null
}

const NUMBER = '4123455541234560001'
const PIN = '8642'
const violation = (loc: (string | number)[], type: string, msg: string, extra: Record<string, unknown> = {}) => ({
  loc,
  msg,
  type,
  ...extra,
})

describe('POST /gift-cards/activations', () => {
  let h: Harness
  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())
  const activate = <T = GiftCard>(body: unknown, o: { merchantAccount?: string; auth?: string } = {}) =>
    h.request<T>('POST', '/gift-cards/activations', { body, ...o })

  it('activates through the primary service and answers 201 with exactly the GiftCard properties', async () => {
    const r = await activate({ number: NUMBER, amount: 5000, currency: 'USD', external_identifier: 'order-1' })
    expect(r.status).to.equal(201)
    expect(r.headers.get('content-type')).to.match(/^application\/json/)
    expect(r.body.id).to.match(UUID_RE)
    const now = h.clock.now()
    const expiry = new Date(now)
    expiry.setUTCFullYear(expiry.getUTCFullYear() + 3)
    expect(r.body).to.deep.equal({
      type: 'gift-card',
      id: r.body.id,
      merchant_account_id: 'default',
      gift_card_service: DEFAULT_GIFT_CARD_SERVICE,
      bin: '412345',
      sub_bin: '554',
      last4: '0001',
      expiration_date: r.body.expiration_date,
      buyer: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      last_used_at: null,
      usage_count: 0,
      cit_last_used_at: null,
      cit_usage_count: 0,
    })
    expect(Date.parse(r.body.expiration_date)).to.be.greaterThan(now.getTime())
    expect(r.text).not.to.include(NUMBER)
  })

  it('uses the primary service of the merchant account named in the header', async () => {
    const r = await activate({ number: '6000000000000000001' }, { merchantAccount: 'acme' })
    expect(r.status).to.equal(201)
    expect(r.body.merchant_account_id).to.equal('acme')
    expect(r.body.gift_card_service).to.deep.equal({
      type: 'gift-card-service',
      id: IDS.acmeService,
      gift_card_service_definition_id: 'mock-gift-card',
      display_name: 'Acme cards',
    })
  })

  it('stores the card with store: true and embeds the buyer named by id', async () => {
    const r = await activate({ number: '6000000000000000101', pin: PIN, store: true, buyer_id: IDS.defaultBuyer })
    expect(r.status).to.equal(201)
    expect(r.body.buyer).to.deep.include({
      type: 'buyer',
      id: IDS.defaultBuyer,
      merchant_account_id: 'default',
      external_identifier: 'buyer-1',
      display_name: 'Ada Lovelace',
    })
    expect(r.body.buyer!.reconciliation_id).to.be.a('string')
  })

  it('stores a card with a PIN of 64 characters, the most a PIN may have', async () => {
    const r = await activate({ number: '4123455541234561001', pin: '7'.repeat(64), store: true })
    expect(r.status).to.equal(201)
  })

  it('embeds the buyer named by external identifier', async () => {
    const r = await activate({ number: '6000000000000000102', pin: PIN, store: true, buyer_external_identifier: 'buyer-1' })
    expect(r.status).to.equal(201)
    expect(r.body.buyer!.id).to.equal(IDS.defaultBuyer)
  })

  it('answers 409 duplicate_record with the stored card id when the same number is stored again', async () => {
    const first = await activate({ number: '6000000000000000201', pin: PIN, store: true })
    expect(first.status).to.equal(201)
    const again = await activate({ number: '6000000000000000201', pin: '1111', store: true })
    expect(again.status).to.equal(409)
    expect(again.body).to.deep.equal(errorBody(409, [], { resource_id: first.body.id }))
  })

  it('deduplicates per merchant account: the same number may be stored in another account', async () => {
    expect((await activate({ number: '6000000000000000202', pin: PIN, store: true })).status).to.equal(201)
    expect((await activate({ number: '6000000000000000202', pin: PIN, store: true }, { merchantAccount: 'acme' })).status).to.equal(201)
  })

  it('keeps nothing with store: false, so the number can still be stored afterwards', async () => {
    expect((await activate({ number: '6000000000000000301' })).status).to.equal(201)
    expect((await activate({ number: '6000000000000000301', pin: PIN, store: true })).status).to.equal(201)
  })

  it('answers 400 with a detail on /buyer_id for a buyer that does not exist', async () => {
    const r = await activate({ number: '6000000000000000401', pin: PIN, store: true, buyer_id: '99999999-9999-4999-8999-999999999999' })
    expect(r.status).to.equal(400)
    expect(r.body).to.deep.equal(
      errorBody(400, [
        { location: 'body', pointer: '/buyer_id', message: 'No buyer with this id exists in this merchant account', type: 'unknown_buyer' },
      ]),
    )
  })

  it("answers 400 for another merchant account's buyer", async () => {
    const r = await activate<ErrorBody>({ number: '6000000000000000402', pin: PIN, store: true, buyer_id: IDS.acmeBuyer })
    expect(r.status).to.equal(400)
    expect(r.body.details[0]!.pointer).to.equal('/buyer_id')
  })

  it('answers 400 with a detail on /buyer_external_identifier for an unknown external identifier', async () => {
    const r = await activate({ number: '6000000000000000403', pin: PIN, store: true, buyer_external_identifier: 'nobody' })
    expect(r.status).to.equal(400)
    expect(r.body).to.deep.equal(
      errorBody(400, [
        {
          location: 'body',
          pointer: '/buyer_external_identifier',
          message: 'No buyer with this external identifier exists in this merchant account',
          type: 'unknown_buyer',
        },
      ]),
    )
  })

  it('answers 400 with a detail on /number when the service declines the card (test number ending 0002)', async () => {
    const r = await activate({ number: '6000000000000000002' })
    expect(r.status).to.equal(400)
    expect(r.body).to.deep.equal(
      errorBody(400, [{ location: 'body', pointer: '/number', message: 'The gift card was declined', type: 'card_declined' }]),
    )
  })

  it('answers 502 when the service fails (0502)', async () => {
    const r = await activate({ number: '6000000000000000502' })
    expect(r.status).to.equal(502)
    expect(r.body).to.deep.equal(errorBody(502))
  })

  it('answers 504 when the service does not answer within the connector timeout (0504)', async () => {
    const r = await activate({ number: '6000000000000000504' })
    expect(r.status).to.equal(504)
    expect(r.body).to.deep.equal(errorBody(504))
  })

  describe('rejects a body that fails its schema with 422, changing nothing', () => {
    const cases: [string, unknown, unknown[]][] = [
      [
        'a number that is too short',
        { number: '123' },
        [violation(['body', 'number'], 'string_too_short', 'String should have at least 16 characters', { ctx: { min_length: 16 } })],
      ],
      [
        'a number that is too long',
        { number: '12345678901234567890' },
        [violation(['body', 'number'], 'string_too_long', 'String should have at most 19 characters', { ctx: { max_length: 19 } })],
      ],
      [
        'a number with letters',
        { number: '412345554123456A' },
        [violation(['body', 'number'], 'string_pattern_mismatch', "String should match pattern '^\\d+$'", { ctx: { pattern: '^\\d+$' } })],
      ],
      [
        'a number sent as a JSON number',
        { number: 4123455541234560 },
        [violation(['body', 'number'], 'string_type', 'Input should be a valid string')],
      ],
      ['a missing number', {}, [violation(['body', 'number'], 'missing', 'Field required')]],
      [
        'an empty PIN',
        { number: NUMBER, pin: '' },
        [violation(['body', 'pin'], 'string_too_short', 'String should have at least 1 character', { ctx: { min_length: 1 } })],
      ],
      [
        'a PIN of 65 characters, without echoing it',
        { number: NUMBER, pin: '7'.repeat(65) },
        [violation(['body', 'pin'], 'string_too_long', 'String should have at most 64 characters', { ctx: { max_length: 64 } })],
      ],
      [
        'a PIN of 60 KB, without echoing it',
        { number: NUMBER, pin: '7'.repeat(60_000) },
        [violation(['body', 'pin'], 'string_too_long', 'String should have at most 64 characters', { ctx: { max_length: 64 } })],
      ],
      [
        'a negative amount',
        { number: NUMBER, amount: -1, currency: 'USD' },
        [violation(['body', 'amount'], 'greater_than_equal', 'Input should be greater than or equal to 0', { input: -1, ctx: { ge: 0 } })],
      ],
      [
        'an amount over 99999999',
        { number: NUMBER, amount: 100000000, currency: 'USD' },
        [
          violation(['body', 'amount'], 'less_than_equal', 'Input should be less than or equal to 99999999', {
            input: 100000000,
            ctx: { le: 99999999 },
          }),
        ],
      ],
      [
        'a fractional amount',
        { number: NUMBER, amount: 1.5, currency: 'USD' },
        [violation(['body', 'amount'], 'int_type', 'Input should be a valid integer', { input: 1.5 })],
      ],
      [
        'a lower-case currency',
        { number: NUMBER, amount: 1, currency: 'usd' },
        [
          violation(['body', 'currency'], 'string_pattern_mismatch', "String should match pattern '^[A-Z]{3}$'", {
            input: 'usd',
            ctx: { pattern: '^[A-Z]{3}$' },
          }),
        ],
      ],
      [
        'an empty external identifier',
        { number: NUMBER, external_identifier: '' },
        [
          violation(['body', 'external_identifier'], 'string_too_short', 'String should have at least 1 character', {
            input: '',
            ctx: { min_length: 1 },
          }),
        ],
      ],
      [
        'a 201-character buyer external identifier',
        { number: NUMBER, store: true, pin: PIN, buyer_external_identifier: 'x'.repeat(201) },
        [
          violation(['body', 'buyer_external_identifier'], 'string_too_long', 'String should have at most 200 characters', {
            input: 'x'.repeat(201),
            ctx: { max_length: 200 },
          }),
        ],
      ],
      [
        'a buyer id that is not a UUID',
        { number: NUMBER, store: true, pin: PIN, buyer_id: 'nope' },
        [violation(['body', 'buyer_id'], 'uuid_parsing', 'Input should be a valid UUID', { input: 'nope' })],
      ],
      [
        'store as a string',
        { number: NUMBER, store: 'yes' },
        [violation(['body', 'store'], 'bool_type', 'Input should be a valid boolean', { input: 'yes' })],
      ],
      [
        'an unknown property',
        { number: NUMBER, cvv: '123' },
        [violation(['body', 'cvv'], 'extra_forbidden', 'Extra inputs are not permitted')],
      ],
      [
        'rule 1: a currency without an amount',
        { number: NUMBER, currency: 'USD' },
        [violation(['body', 'amount'], 'value_error', 'Value error, `amount` is required when `currency` is given')],
      ],
      [
        'rule 1: an amount without a currency',
        { number: NUMBER, amount: 10 },
        [violation(['body', 'currency'], 'value_error', 'Value error, `currency` is required when `amount` is given')],
      ],
      [
        'rule 2: store without a PIN',
        { number: NUMBER, store: true },
        [violation(['body', 'pin'], 'value_error', 'Value error, `pin` is required when `store` is true')],
      ],
      [
        'rule 3: a buyer id without store',
        { number: NUMBER, buyer_id: IDS.defaultBuyer },
        [
          violation(['body', 'buyer_id'], 'value_error', 'Value error, `buyer_id` is allowed only when `store` is true', {
            input: IDS.defaultBuyer,
          }),
        ],
      ],
      [
        'rule 3: a buyer external identifier with store false',
        { number: NUMBER, store: false, buyer_external_identifier: 'buyer-1' },
        [
          violation(
            ['body', 'buyer_external_identifier'],
            'value_error',
            'Value error, `buyer_external_identifier` is allowed only when `store` is true',
            { input: 'buyer-1' },
          ),
        ],
      ],
      [
        'rule 4: both buyer fields',
        { number: NUMBER, store: true, pin: PIN, buyer_id: IDS.defaultBuyer, buyer_external_identifier: 'buyer-1' },
        [
          violation(
            ['body', 'buyer_external_identifier'],
            'value_error',
            'Value error, `buyer_id` and `buyer_external_identifier` must not both be set',
            { input: 'buyer-1' },
          ),
        ],
      ],
      ['a body that is an array', [NUMBER], [violation(['body'], 'model_type', 'Input should be a valid dictionary or object')]],
    ]
    for (const [what, body, detail] of cases)
      it(`rejects ${what}`, async () => {
        const r = await activate(body)
        expect(r.status).to.equal(422)
        expect(r.body).to.deep.equal({ detail })
        expect(r.text).not.to.include(NUMBER)
        expect(r.text).not.to.include('4123455541234560')
      })

    it('rejects a body that is not JSON without echoing it', async () => {
      const r = await h.request<ValidationErrorBody>('POST', '/gift-cards/activations', { rawBody: `{"number": "${NUMBER}", ` })
      expect(r.status).to.equal(422)
      expect(r.body.detail).to.have.length(1)
      expect(r.body.detail[0]).to.include({ type: 'json_invalid' })
      expect(r.body.detail[0]!.loc[0]).to.equal('body')
      expect(r.text).not.to.include(NUMBER)
    })
  })

  it('never writes a card number, PIN or token to the log', async () => {
    const token = h.token()
    await h.request('POST', '/gift-cards/activations', { auth: token, body: { number: '6000000000000000777', pin: '97531', store: true } })
    await h.request('POST', '/gift-cards/activations', { auth: token, body: { number: '6000000000000000002', pin: '97531' } })
    const all = h.logs.join('\n')
    expect(h.logs.length).to.be.greaterThan(0)
    for (const secret of [NUMBER, '6000000000000000777', token, token.split('.')[2]!]) expect(all).not.to.include(secret)
    // A PIN is a few digits: inside a timestamp or an id they are chance, so it is looked for standing alone.
    for (const pin of ['97531', PIN]) expect(all).not.to.match(new RegExp(`(?<![0-9a-f-])${pin}(?![0-9a-f-])`, 'i'))
  })
})
