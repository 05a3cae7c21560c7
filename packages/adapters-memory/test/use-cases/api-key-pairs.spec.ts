import { createHash } from 'node:crypto'
import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  ApiKeyPairChanges,
  ApiKeyCrypto,
  duplicate,
  forbidden,
  makeCreateApiKeyPair,
  makeDeleteApiKeyPair,
  makeRecordAudited,
  makeUpdateApiKeyPair,
  notFound,
  ROLE_CATALOGUE,
} from '@orka/domain'
import { anApiKeyPair, aPrincipal, left, ManualClock, MERCHANT_A, right, SequentialIds } from '@orka/domain/testing'
import { MemoryApiKeyPairRepository, MemoryAuditLog, MemoryMerchantAccountRepository, MemoryRoleRepository } from '../../src'
import { ACTOR, START, testMac } from './support'

/** Key material stands in for ES512 here: these cases are about who may make which key, not about curves. */
const fakeCrypto = (): ApiKeyCrypto => {
  let n = 0
  return {
    generate: () => {
      n++
      return TE.right({ privateKeyPem: `private-${n}`, publicKeyPem: `public-${n}` })
    },
    inspect: (pem) =>
      pem.startsWith('public-') ? O.some({ thumbprint: createHash('sha256').update(pem).digest('base64url'), publicKeyPem: pem }) : O.none,
  }
}

const roleId = (slug: string) => ROLE_CATALOGUE.find((r) => r.slug === slug)?.id ?? ''

const world = async () => {
  const clock = new ManualClock(START)
  const ids = new SequentialIds()
  const keys = new MemoryApiKeyPairRepository()
  const roles = new MemoryRoleRepository()
  for (const r of ROLE_CATALOGUE) await right(roles.upsert(r))
  const merchantAccounts = new MemoryMerchantAccountRepository()
  await right(merchantAccounts.upsert({ id: MERCHANT_A, display_name: 'A', locked: false }))
  const audit = new MemoryAuditLog()
  const deps = {
    keys,
    roles,
    merchantAccounts,
    crypto: fakeCrypto(),
    ids,
    clock,
    mac: testMac(),
    audited: makeRecordAudited({ audit, ids, clock }),
  }
  return { deps, keys, audit, create: makeCreateApiKeyPair(deps), update: makeUpdateApiKeyPair(deps), remove: makeDeleteApiKeyPair(deps) }
}
const OPERATOR = { actor: ACTOR, caller: null }

describe('API key pair use cases', () => {
  it('lets the operator (the CLI) make a key for any account and role; the private key is answered, never stored', async () => {
    const w = await world()
    const made = await right(
      w.create({ ...OPERATOR, input: { display_name: 'Ops', role_ids: [roleId('administrator')], merchant_account_ids: [MERCHANT_A] } }),
    )
    expect([made.private_key, made.creator, made.merchant_accounts.map((a) => a.id)]).to.deep.equal(['private-1', null, [MERCHANT_A]])
    const stored = await right(w.keys.list())
    expect(stored.map((k) => [k.id, k.merchant_account_id, k.roles, k.public_key_pem])).to.deep.equal([
      [made.id, MERCHANT_A, ['administrator'], 'public-1'],
    ])
    expect(JSON.stringify(stored)).to.not.include('private-1')
  })

  it('answers 409 naming the thumbprint for a public key stored already, and stores nothing more', async () => {
    const w = await world()
    const input = { display_name: 'Mine', role_ids: [roleId('read-only')], public_key: 'public-own' }
    const first = await right(w.create({ ...OPERATOR, input }))
    expect(await left(w.create({ ...OPERATOR, input }))).to.deep.equal(duplicate('ApiKeyPair', first.thumbprint))
    expect((await right(w.keys.list())).length).to.equal(1)
  })

  it('never brings back a key revoked between its read and its update: 404, the key stays revoked, no entry listed', async () => {
    const w = await world()
    const made = await right(
      w.create({ ...OPERATOR, input: { display_name: 'Raced', role_ids: [roleId('read-only')], merchant_account_ids: [MERCHANT_A] } }),
    )
    // A delete lands between the update's read of the key and its write.
    const keys = w.keys
    const racing: typeof keys = Object.assign(Object.create(keys) as typeof keys, {
      update: (id: string, changes: ApiKeyPairChanges) => TE.flatMap(() => keys.update(id, changes))(keys.revoke(id)),
    })
    const raced = makeUpdateApiKeyPair({ ...w.deps, keys: racing })
    expect(await left(raced({ ...OPERATOR, id: made.id, input: { active: true, display_name: 'Back' } }))).to.deep.equal(
      notFound('ApiKeyPair', made.id),
    )
    expect(
      O.map((k: { revoked: boolean; display_name?: string }) => [k.revoked, k.display_name])(await right(w.keys.findById(made.id))),
    ).to.deep.equal(O.some([true, 'Raced']))
    const entries = await right(w.audit.list(MERCHANT_A, {}, { direction: 'forward', from: O.none, limit: 10 }))
    expect(entries.map((e) => [e.action, e.committed])).to.deep.equal([['created', true]])
    expect(await right(w.audit.pendingBefore(new Date(START.getTime() + 3_600_000), 10))).to.deep.equal([])
  })

  it('refuses a bound caller any key of another account, and a key with roles beyond its token', async () => {
    const w = await world()
    const bound = aPrincipal({ key: anApiKeyPair({ merchant_account_id: MERCHANT_A }), scopes: ['api-key-pairs.write', '*.read'] })
    const caller = { actor: ACTOR, caller: bound }
    expect(await left(w.create({ ...caller, input: { display_name: 'x', role_ids: [roleId('read-only')] } }))).to.deep.equal(
      forbidden('merchant_account'),
    )
    expect(
      await left(
        w.create({ ...caller, input: { display_name: 'x', role_ids: [roleId('administrator')], merchant_account_ids: [MERCHANT_A] } }),
      ),
    ).to.deep.equal(forbidden('restricted_api_key'))
    const ok = await right(
      w.create({ ...caller, input: { display_name: 'x', role_ids: [roleId('read-only')], merchant_account_ids: [MERCHANT_A] } }),
    )
    expect(ok.creator).to.deep.equal({
      id: bound.key.id,
      name: `API key ${bound.key.thumbprint.slice(0, 8)}`,
      email_address: null,
      thumbprint: bound.key.thumbprint,
    })
    const other = await right(w.create({ ...OPERATOR, input: { display_name: 'instance-wide', role_ids: [roleId('read-only')] } }))
    expect(await left(w.remove({ ...caller, id: other.id }))).to.deep.equal(notFound('ApiKeyPair', other.id))
    expect(O.isSome(await right(w.keys.findById(other.id)))).to.equal(true)
  })
})
