import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SETTINGS } from '../../src/config'

describe('README configuration table', () => {
  it('lists every variable of the configuration codec, and nothing else', () => {
    const readme = readFileSync(join(__dirname, '..', '..', '..', '..', '..', 'README.md'), 'utf8')
    const table = readme.slice(readme.indexOf('| Variable | Default | Meaning |'))
    const documented = [...table.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1])
    expect(documented).to.deep.equal(Object.values(SETTINGS).map((s) => s.env))
  })
})
