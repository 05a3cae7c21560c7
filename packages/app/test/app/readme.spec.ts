import { expect } from 'chai'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DECLINED_AMOUNTS, DECLINED_CARDS, FAILED_AMOUNTS, INTERNAL_ERROR, SLOW_AMOUNT, UNANSWERED_AMOUNT } from '@orka/adapters-node'
import { SETTINGS } from '../../src/config'

const REPO = join(__dirname, '..', '..', '..', '..', '..')
const doc = (path: string) => readFileSync(join(REPO, path), 'utf8')

describe('README', () => {
  const readme = doc('README.md')

  it('stays short: at most 250 lines', () => {
    expect(readme.split('\n').length).to.be.at.most(250)
  })

  it('links every guide under docs/', () => {
    const guides = readdirSync(join(REPO, 'docs')).filter((f) => f.endsWith('.md'))
    const linked = new Set([...readme.matchAll(/\]\(docs\/([\w-]+\.md)[)#]/g)].map((m) => m[1]))
    expect(guides.filter((g) => !linked.has(g))).to.deep.equal([])
  })
})

describe('the configuration guide', () => {
  it('lists every variable of the configuration codec, and nothing else', () => {
    const table = doc('docs/configuration.md').slice(doc('docs/configuration.md').indexOf('| Variable | Default | Meaning |'))
    const documented = [...table.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1])
    expect(documented).to.deep.equal(Object.values(SETTINGS).map((s) => s.env))
  })
})

describe('the payments guide: test cards', () => {
  const readme = doc('docs/payments.md')
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
