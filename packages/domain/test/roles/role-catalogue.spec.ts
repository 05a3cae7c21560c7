import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { grants, isScope } from '../../src/auth/scopes'
import { Role } from '../../src/roles/role'
import { ROLE_CATALOGUE } from '../../src/roles/role-catalogue'

describe('ROLE_CATALOGUE', () => {
  it('decodes every role with the Role codec', () => {
    expect(ROLE_CATALOGUE.map((r) => E.isRight(Role.decode(r)))).to.deep.equal(ROLE_CATALOGUE.map(() => true))
  })

  it('has unique slugs and ids', () => {
    expect([new Set(ROLE_CATALOGUE.map((r) => r.slug)).size, new Set(ROLE_CATALOGUE.map((r) => r.id)).size]).to.deep.equal([
      ROLE_CATALOGUE.length,
      ROLE_CATALOGUE.length,
    ])
  })

  it('seeds administrator with every scope and read-only with *.read', () => {
    const allow = (slug: string) => ROLE_CATALOGUE.find((r) => r.slug === slug)?.permissions.allow
    expect([allow('administrator'), allow('read-only')]).to.deep.equal([['*.read', '*.write'], ['*.read']])
  })

  it('grants the checkout session scopes through the wildcards: administrator both, read-only reading only', () => {
    const allow = (slug: string) => ROLE_CATALOGUE.find((r) => r.slug === slug)?.permissions.allow ?? []
    const granted = (slug: string) => ['checkout-sessions.read', 'checkout-sessions.write'].map((s) => grants(allow(slug), s))
    expect([granted('administrator'), granted('read-only'), granted('gift-card-operator')]).to.deep.equal([
      [true, true],
      [true, false],
      [false, false],
    ])
  })

  it('seeds at least one narrow role, without wildcards', () => {
    const narrow = ROLE_CATALOGUE.filter((r) => r.permissions.allow.every((s) => !s.startsWith('*.')))
    expect(narrow.map((r) => r.slug)).to.include('gift-card-operator')
  })

  it('allows only well-formed scopes', () => {
    expect(ROLE_CATALOGUE.flatMap((r) => r.permissions.allow).filter((s) => !isScope(s))).to.deep.equal([])
  })
})
