import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readSeedFile } from '../../src/seed-file'

describe('readSeedFile', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'orka-seed-'))
  })
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true })
  })

  it('names each fault by its property and in the words of the API', () => {
    const path = join(dir, 'seed.json')
    writeFileSync(path, JSON.stringify({ merchant_accounts: [{ id: '', display_name: 'A', locked: 'no' }], colour: 'red' }))
    expect(() => readSeedFile(path)).to.throw(
      `SEED_FILE ${path}: colour: Extra inputs are not permitted; merchant_accounts.0.id: String should have at least 1 character; ` +
        'merchant_accounts.0.locked: Input should be a valid boolean',
    )
  })

  it("takes payment_services in the original API's PaymentServiceCreate words", () => {
    const path = join(dir, 'seed.json')
    const service = {
      id: '5b0e0c1e-2a4f-4a7e-9a51-0d3f4b2c9e11',
      merchant_account_id: 'acme',
      payment_service_definition_id: 'mock-card',
      display_name: 'Backup',
      position: 1,
      active: false,
      accepted_currencies: ['USD'],
      accepted_countries: ['US'],
      fields: [{ key: 'mode', value: 'down' }],
    }
    writeFileSync(path, JSON.stringify({ payment_services: [service] }))
    expect(readSeedFile(path)).to.deep.equal({ payment_services: [service] })
    writeFileSync(
      path,
      JSON.stringify({ payment_services: [{ ...service, position: -1, accepted_currencies: ['usd'], three_d_secure_enabled: true }] }),
    )
    expect(() => readSeedFile(path)).to.throw(
      /^SEED_FILE .*: payment_services\.0\.three_d_secure_enabled: Extra inputs are not permitted; payment_services\.0\.position: .*; payment_services\.0\.accepted_currencies\.0: /,
    )
  })
})
