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
})
