import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  duplicate,
  forbidden,
  makeCreateMerchantAccount,
  makeGetMerchantAccount,
  makeRecordAudited,
  makeUpdateMerchantAccount,
  MerchantAccountCreate,
  notFound,
  unavailable,
} from '@orka/domain'
import { left, ManualClock, right, SequentialIds } from '@orka/domain/testing'
import { MemoryAuditLog, MemoryMerchantAccountRepository } from '../../src'
import { ACTOR, START, testBox, testMac } from './support'

const world = (onboarding: 'ok' | 'fails' = 'ok') => {
  const clock = new ManualClock(START)
  const ids = new SequentialIds()
  const merchantAccounts = new MemoryMerchantAccountRepository()
  const onboarded: string[] = []
  const deps = {
    merchantAccounts,
    onboard: (id: string) =>
      onboarding === 'ok' ? TE.right(void onboarded.push(id)) : TE.left(unavailable(new Error('payment services unreachable'))),
    clock,
    box: testBox(),
    mac: testMac(),
    audited: makeRecordAudited({ audit: new MemoryAuditLog(), ids, clock }),
  }
  return {
    clock,
    merchantAccounts,
    onboarded,
    box: deps.box,
    create: makeCreateMerchantAccount(deps),
    get: makeGetMerchantAccount(deps),
    update: makeUpdateMerchantAccount(deps),
  }
}
const ADMIN = { actor: ACTOR, boundTo: null }
const input = (o: Partial<MerchantAccountCreate> = {}): MerchantAccountCreate => ({ id: 'shop-1', display_name: 'Shop One', ...o })

describe('merchant account use cases', () => {
  it('onboards a new account before storing it, once', async () => {
    const w = world()
    const made = await right(w.create({ ...ADMIN, input: input() }))
    expect([made.id, made.display_name, w.onboarded]).to.deep.equal(['shop-1', 'Shop One', ['shop-1']])
    expect(O.isSome(await right(w.merchantAccounts.find('shop-1')))).to.equal(true)
  })

  it('refuses a taken id before onboarding: the account that has it gets nothing added', async () => {
    const w = world()
    await right(w.create({ ...ADMIN, input: input() }))
    expect(await left(w.create({ ...ADMIN, input: input({ display_name: 'Impostor' }) }))).to.deep.equal(
      duplicate('MerchantAccount', 'shop-1'),
    )
    expect(w.onboarded).to.deep.equal(['shop-1'])
    expect((await right(w.get({ admin: ADMIN, id: 'shop-1' }))).display_name).to.equal('Shop One')
  })

  it('stores nothing when onboarding fails: the create can be retried as it was', async () => {
    const w = world('fails')
    expect((await left(w.create({ ...ADMIN, input: input() })))._tag).to.equal('Unavailable')
    expect(await right(w.merchantAccounts.find('shop-1'))).to.deep.equal(O.none)
  })

  it("refuses a bound key's create, and hides every other account from it", async () => {
    const w = world()
    await right(w.create({ ...ADMIN, input: input() }))
    const bound = { actor: ACTOR, boundTo: 'acme' }
    expect(await left(w.create({ ...bound, input: input({ id: 'shop-2' }) }))).to.deep.equal(forbidden('merchant_account'))
    expect(w.onboarded).to.deep.equal(['shop-1'])
    expect(await left(w.get({ admin: bound, id: 'shop-1' }))).to.deep.equal(notFound('MerchantAccount', 'shop-1'))
    expect(await left(w.update({ ...bound, id: 'shop-1', input: { display_name: 'Mine now' } }))).to.deep.equal(
      notFound('MerchantAccount', 'shop-1'),
    )
    expect((await right(w.get({ admin: ADMIN, id: 'shop-1' }))).display_name).to.equal('Shop One')
  })

  it('seals secrets, answers them null, keeps one an update leaves out and drops one it clears', async () => {
    const w = world()
    const made = await right(
      w.create({ ...ADMIN, input: input({ loon_secret_key: 'loon-7f3a', account_updater_request_encryption_key: 'aukey' }) }),
    )
    expect([made.loon_secret_key, made.account_updater_request_encryption_key]).to.deep.equal([null, null])
    const stored = O.toNullable(await right(w.merchantAccounts.find('shop-1')))
    expect(Object.keys(stored?.sealed ?? {}).sort()).to.deep.equal(['account_updater_request_encryption_key', 'loon_secret_key'])
    expect(JSON.stringify(stored)).to.not.include('loon-7f3a').and.not.include('aukey')
    expect(w.box.open(stored?.sealed?.loon_secret_key ?? '')).to.equal('loon-7f3a')
    await right(w.update({ ...ADMIN, id: 'shop-1', input: { account_updater_request_encryption_key: null, over_capture_amount: 250 } }))
    const after = O.toNullable(await right(w.merchantAccounts.find('shop-1')))
    expect(Object.keys(after?.sealed ?? {})).to.deep.equal(['loon_secret_key'])
    expect(after?.settings?.over_capture_amount).to.equal(250)
    expect(E.isRight(await w.get({ admin: ADMIN, id: 'shop-1' })())).to.equal(true)
  })
})
