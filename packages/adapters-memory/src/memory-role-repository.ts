import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { Role, RoleRepository, roleSortKey, Seek, seekIn, Unavailable } from '@orka/domain'
import { atomically, copy } from './memory-support'

export class MemoryRoleRepository implements RoleRepository {
  /** By slug: the catalogue's natural key. */
  private readonly roles = new Map<string, Role>()

  list(seek: Seek): TE.TaskEither<Unavailable, readonly Role[]> {
    return atomically(() => E.right(seekIn(this.roles.values(), roleSortKey, 'ascending', seek).map(copy)))
  }

  findBySlugs(slugs: readonly string[]): TE.TaskEither<Unavailable, readonly Role[]> {
    return atomically(() => E.right([...new Set(slugs)].flatMap((s) => this.roles.get(s) ?? []).map(copy)))
  }

  upsert(role: Role): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      const stored = this.roles.get(role.slug)
      this.roles.set(role.slug, copy({ ...role, id: stored?.id ?? role.id }))
      return E.right(undefined)
    })
  }
}
