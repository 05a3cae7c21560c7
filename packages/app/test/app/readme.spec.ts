import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DECLINED_AMOUNTS, DECLINED_CARDS, FAILED_AMOUNTS, INTERNAL_ERROR, SLOW_AMOUNT, UNANSWERED_AMOUNT } from '@orka/adapters-node'
import { SETTINGS } from '../../src/config'

describe('README configuration table', () => {
  it('lists every variable of the configuration codec, and nothing else', () => {
    const readme = readFileSync(join(__dirname, '..', '..', '..', '..', '..', 'README.md'), 'utf8')
    const table = readme.slice(readme.indexOf('| Variable | Default | Meaning |'))
    const documented = [...table.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1])
    expect(documented).to.deep.equal(Object.values(SETTINGS).map((s) => s.env))
  })
})

describe('README test cards', () => {
  const readme = readFileSync(join(__dirname, '..', '..', '..', '..', '..', 'README.md'), 'utf8')
  const row = (start: string) => readme.split('\n').find((l) => l.startsWith(`| ${start}`)) ?? ''
  const codesIn = (line: string) => [...line.slice(line.indexOf('in order:')).matchAll(/`([a-z_]+)`/g)].map((m) => m[1])

  it("lists the simulator's declines and service errors in its order", () => {
    expect(codesIn(row('`200001`-`200022`'))).to.deep.equal([...DECLINED_AMOUNTS.values()])
    const vendors = [...FAILED_AMOUNTS].filter(([amount]) => amount <= 300_010).map(([, code]) => code)
    expect(codesIn(row('`300001`-`300010`'))).to.deep.equal(vendors)
    expect(row('`300011`-`300015`')).to.include(`\`${FAILED_AMOUNTS.get(300_011)!}\``)
    expect(row('`400000`-`400099`')).to.include(`\`${INTERNAL_ERROR}\``)
  })

  it('lists the slow and unanswered amounts and the test card numbers', () => {
    expect(row(`\`${SLOW_AMOUNT}\``)).to.include('approved after 2 s')
    expect(row(`\`${UNANSWERED_AMOUNT}\``)).to.include('never answered')
    for (const [number, code] of DECLINED_CARDS) expect(row(`\`${number}\``)).to.include(`declined, \`${code}\``)
  })
})
