import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'chai'
import { hasPnpm, PNPM_VERSION } from '../support/pnpm'

const REPO = join(__dirname, '..', '..', '..', '..', '..')
const PNPM = hasPnpm() ? ['pnpm'] : ['npx', '-y', `pnpm@${PNPM_VERSION}`]

const run = (cwd: string, [command, ...args]: readonly string[]) => {
  const r = spawnSync(command ?? '', args, { cwd, encoding: 'utf8', timeout: 240_000 })
  return { status: r.status, out: `${r.stdout}${r.stderr}` }
}

/** The `js` blocks of the embedding guide, in order. */
const guideExamples = (): string[] =>
  [...readFileSync(join(REPO, 'docs', 'embedding.md'), 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1] ?? '')

/**
 * What a team embedding the domain does, outside the workspace: packs `@orka/domain` and
 * `@orka/adapters-memory`, installs the tarballs in a throwaway project (the rest from the
 * registry), and runs the embedding guide's two examples as written: a use case on the memory
 * adapters, and the storage contract suites against them.
 */
describe('the packed domain, in a project outside the workspace', function () {
  this.timeout(600_000)
  let dir: string
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'orka-embed-'))
    mkdirSync(join(dir, 'packs'))
    for (const pkg of ['domain', 'adapters-memory']) {
      const packed = run(join(REPO, 'packages', pkg), [...PNPM, 'pack', '--pack-destination', join(dir, 'packs')])
      expect(packed.status, packed.out).to.equal(0)
    }
    const project = {
      name: 'embeds-orka',
      private: true,
      type: 'module',
      dependencies: {
        '@orka/domain': 'file:packs/orka-domain-1.0.0.tgz',
        '@orka/adapters-memory': 'file:packs/orka-adapters-memory-1.0.0.tgz',
        chai: '^4.5.0',
        mocha: '^11.7.0',
      },
      // The adapters' own dependency on the domain is the tarball too, never a registry's package of that name.
      overrides: { '@orka/domain': '$@orka/domain' },
    }
    writeFileSync(join(dir, 'package.json'), JSON.stringify(project, null, 2))
    const installed = run(dir, ['npm', 'install', '--no-audit', '--no-fund', '--ignore-scripts'])
    expect(installed.status, installed.out).to.equal(0)
  })
  after(() => {
    rmSync(dir, { recursive: true, force: true })
  })

  it('installs the packages with no workspace link: only what they ship', () => {
    const pkg = (name: string) =>
      JSON.parse(readFileSync(join(dir, 'node_modules', '@orka', name, 'package.json'), 'utf8')) as Record<string, unknown>
    expect([pkg('domain').license, pkg('adapters-memory').license]).to.deep.equal(['Apache-2.0', 'Apache-2.0'])
    expect((pkg('adapters-memory').dependencies as Record<string, string>)['@orka/domain']).to.equal('1.0.0')
    const listed = run(dir, ['npm', 'ls', '@orka/domain', '--all', '--parseable'])
    expect(
      listed.out
        .trim()
        .split('\n')
        .filter((l) => l.includes('@orka/domain')),
    ).to.have.length(1)
  })

  it("runs the guide's first use case as written", () => {
    const [example] = guideExamples()
    writeFileSync(join(dir, 'first-use-case.mjs'), example ?? '')
    const r = run(dir, ['node', 'first-use-case.mjs'])
    expect([r.status, r.out]).to.deep.equal([0, 'created buyer Ada Lovelace in default\n'])
  })

  it("runs the storage contract suites against the memory adapters, as the guide's second example does", () => {
    const [, spec] = guideExamples()
    writeFileSync(join(dir, 'storage.spec.mjs'), spec ?? '')
    const r = run(dir, ['npx', 'mocha', '--reporter', 'dot', 'storage.spec.mjs'])
    expect(r.status, r.out.slice(-3000)).to.equal(0)
    const passing = Number(/(\d+) passing/.exec(r.out)?.[1] ?? 0)
    expect(passing, r.out.slice(-500)).to.be.greaterThan(300)
    expect(r.out).to.not.match(/\d+ (failing|pending)/)
  })
})
