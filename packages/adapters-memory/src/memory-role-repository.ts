import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { Role, RoleRepository, roleSortKey, Seek, Unavailable } from '@orka/domain'
import { atomically, keep } from './memory-support'
import { SortedIndex } from './sorted-index'

export class MemoryRoleRepository implements RoleRepository {
  /** By slug: the catalogue's natural key. */
  private readonly roles = new Map<string, Role>()
  private readonly listed = new SortedIndex(roleSortKey)

  list(seek: Seek): TE.TaskEither<Unavailable, readonly Role[]> {
    return atomically(() => E.right(this.listed.seek('ascending', seek)))
  }

  findBySlugs(slugs: readonly string[]): TE.TaskEither<Unavailable, readonly Role[]> {
    return atomically(() => E.right([...new Set(slugs)].flatMap((s) => this.roles.get(s) ?? [])))
  }

  upsert(role: Role): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      const stored = this.roles.get(role.slug)
      const kept = keep({ ...role, id: stored?.id ?? role.id })
      this.roles.set(role.slug, kept)
      this.listed.put(kept)
      return E.right(undefined)
    })
  }
}
