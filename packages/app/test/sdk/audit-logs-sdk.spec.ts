import { expect } from 'chai'
import { AuditLogEntry } from '@gr4vy/sdk/models/components'
import { userOf } from '../audit/audit-support'
import { onBothStores, uniqueId } from './transactions-support'

/**
 * The original API SDK's own end-to-end case for audit logs (`tests/backoffice/audit-logs.test.ts`:
 * a change, then `auditLogs.list({})` answers a page), ported to Orka on both stores. Where the
 * SDK's case only checks that a page came back, this one checks the whole entry the SDK parsed
 * (its schemas validate every answer) and its filters.
 */
onBothStores("the original API SDK's audit logs against Orka", (world) => {
  it('listing audit logs returns a page with the change just made, newest first', async () => {
    const { sdk, h } = world()
    const buyer = await sdk.buyers.create({ displayName: 'John Doe', externalIdentifier: uniqueId('buyer') })
    const page = await sdk.auditLogs.list({})
    const user = userOf(h.pems.admin)
    const expected: AuditLogEntry = {
      type: 'audit-log',
      id: page.result.items[0]!.id!,
      merchantAccountId: 'default',
      resource: { type: 'buyer', id: buyer.id!, name: 'John Doe' },
      action: 'created',
      user: { type: 'user', id: user.id, name: user.name, emailAddress: null, isStaff: false, status: 'active' },
      timestamp: world().now(),
    }
    expect(page.result.items[0]).to.deep.equal(expected)
    expect(page.result.limit).to.equal(20)
  })

  it('filters by action, resource type and user as the SDK sends them', async () => {
    const { sdk, h } = world()
    const buyer = await sdk.buyers.create({ displayName: 'Jane Roe', externalIdentifier: uniqueId('buyer') })
    await sdk.buyers.delete(buyer.id!)
    const deleted = await sdk.auditLogs.list({ action: 'deleted', resourceType: 'buyer', userId: userOf(h.pems.admin).id })
    expect(deleted.result.items[0]).to.deep.include({ action: 'deleted', resource: { type: 'buyer', id: buyer.id!, name: 'Jane Roe' } })
    expect(deleted.result.items.every((e) => e.action === 'deleted' && e.resource.type === 'buyer')).to.equal(true)
    const none = await sdk.auditLogs.list({ userId: userOf(h.pems.readOnly).id })
    expect(none.result).to.deep.equal({ items: [], limit: 20, nextCursor: null, previousCursor: null })
  })
})
